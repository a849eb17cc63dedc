/* The traced group program of the trace tests: alone in group "traced", it joins, asks its
 * size, its instance and the tid of instance 0, passes a barrier of one, broadcasts (to no one:
 * PvmNoInst), reduces, scatters and gathers with itself as root, and leaves. Every call's
 * arguments and answers are fixed, so that two runs traced by Debian's tracer give the same
 * records apart from times and task ids. Prints one line per answer. */
#include <pvm3.h>
#include <stdio.h>

#define GROUP "traced"
#define TAG 31

int main(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	printf("joingroup: %d\n", pvm_joingroup(GROUP));
	printf("gsize: %d\n", pvm_gsize(GROUP));
	printf("getinst: %d\n", pvm_getinst(GROUP, me));
	printf("gettid is me: %d\n", pvm_gettid(GROUP, 0) == me);
	printf("barrier: %d\n", pvm_barrier(GROUP, 1));
	pvm_initsend(PvmDataDefault);
	printf("bcast: %d\n", pvm_bcast(GROUP, TAG));
	int v[3] = { 1, 2, 3 };
	printf("reduce: %d\n", pvm_reduce(PvmSum, v, 3, PVM_INT, TAG, GROUP, 0));
	int part[3], all[3] = { 4, 5, 6 }, back[3];
	printf("scatter: %d\n", pvm_scatter(part, all, 3, PVM_INT, TAG, GROUP, 0));
	printf("gather: %d\n", pvm_gather(back, part, 3, PVM_INT, TAG, GROUP, 0));
	printf("values: %d %d %d, %d %d %d\n", v[0], v[1], v[2], back[0], back[1], back[2]);
	printf("lvgroup: %d\n", pvm_lvgroup(GROUP));
	pvm_exit();
	return 0;
}
