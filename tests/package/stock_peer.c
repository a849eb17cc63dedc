/* stock_peer: a PVM task pinned to Debian's libpvm3 (its RPATH outranks LD_LIBRARY_PATH), for
 * the package test's `an2run --check`: it joins, says so, and waits up to 60 s for a message. */
#include <pvm3.h>
#include <stdio.h>

int main(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	printf("joined t%x\n", me);
	fflush(stdout);
	struct timeval limit = {60, 0};
	pvm_trecv(-1, -1, &limit);
	pvm_exit();
	return 0;
}
