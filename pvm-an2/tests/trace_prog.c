/* The traced program of the trace tests: a parent spawns two children of itself, sends each
 * an array, multicasts a string to both, and receives their answers; each child receives,
 * answers and leaves. Every call's arguments and results are fixed, so that two runs traced
 * by Debian's tracer give the same records apart from times and task ids. */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>

#define NCHILD 2
#define TAG_DATA 11
#define TAG_MCAST 12
#define TAG_ANSWER 13

static int child(int parent)
{
	int v[4];
	char text[64];
	pvm_recv(parent, TAG_DATA);
	pvm_upkint(v, 4, 1);
	pvm_recv(parent, TAG_MCAST);
	pvm_upkstr(text);
	double sum = v[0] + v[1] + v[2] + v[3] + (double)strlen(text);
	pvm_initsend(PvmDataDefault);
	pvm_pkdouble(&sum, 1, 1);
	pvm_send(parent, TAG_ANSWER);
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	int parent = pvm_parent();
	if (parent > 0)
		return child(parent);
	int tids[NCHILD];
	int n = pvm_spawn(argv[0], NULL, PvmTaskDefault, "", NCHILD, tids);
	if (n != NCHILD) {
		fprintf(stderr, "trace_prog: spawned %d of %d\n", n, NCHILD);
		pvm_exit();
		return 1;
	}
	for (int i = 0; i < NCHILD; i++) {
		int v[4] = { i, 2 * i, 3 * i, 4 * i };
		pvm_initsend(PvmDataDefault);
		pvm_pkint(v, 4, 1);
		pvm_send(tids[i], TAG_DATA);
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkstr("to every child");
	pvm_mcast(tids, NCHILD, TAG_MCAST);
	double total = 0;
	for (int i = 0; i < NCHILD; i++) {
		double d;
		pvm_recv(tids[i], TAG_ANSWER);
		pvm_upkdouble(&d, 1, 1);
		total += d;
	}
	printf("trace_prog: total %g\n", total);
	pvm_exit();
	return 0;
}
