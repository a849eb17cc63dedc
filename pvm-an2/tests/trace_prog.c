/* The traced program of the trace tests: a parent spawns two children of itself, asks to be
 * told of their exits, sends each an array, multicasts a string to both, and receives their
 * answers (one by pvm_send, one by pvm_psend) and exit notices; each child receives, asks for
 * its siblings, answers and leaves. On the way the parent looks at the virtual machine
 * (pvm_config, pvm_pstat of a child) and its options (pvm_getopt, pvm_setopt), and sends
 * the tracer an event of its own (pvm_mkbuf(PvmDataTrace)). (Not
 * pvm_tasks: how many tasks it counts depends on when the pvmd hears of a tracer's exit.) Every call's arguments and results are fixed, so that two runs traced
 * by Debian's tracer give the same records apart from times and task ids. With an argument,
 * the children are spawned on that host (PvmTaskHost): the cross-host trace test. */
#include <pvm3.h>
#include <sys/time.h>   /* before <pvmtev.h> */
#include <pvmtev.h>
#include <stdio.h>
#include <string.h>

#define NCHILD 2
#define TAG_DATA 11
#define TAG_MCAST 12
#define TAG_ANSWER 13
#define TAG_PSEND 14
#define TAG_EXIT 15

static int child(int parent)
{
	int v[4];
	char text[64];
	pvm_recv(parent, TAG_DATA);
	pvm_upkint(v, 4, 1);
	pvm_recv(parent, TAG_MCAST);
	pvm_upkstr(text);
	double sum = v[0] + v[1] + v[2] + v[3] + (double)strlen(text);
	int *sibs;
	int nsibs = pvm_siblings(&sibs);
	pvm_initsend(PvmDataDefault);
	pvm_pkdouble(&sum, 1, 1);
	pvm_send(parent, TAG_ANSWER);
	pvm_psend(parent, TAG_PSEND, &nsibs, 1, PVM_INT);
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	const char *host = argc > 1 ? argv[1] : "";
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	int parent = pvm_parent();
	if (parent > 0)
		return child(parent);
	int tids[NCHILD];
	int n = pvm_spawn(argv[0], NULL, *host ? PvmTaskHost : PvmTaskDefault, (char *)host,
	                  NCHILD, tids);
	if (n != NCHILD) {
		fprintf(stderr, "trace_prog: spawned %d of %d\n", n, NCHILD);
		pvm_exit();
		return 1;
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, NCHILD, tids);
	int nhost, narch;
	struct pvmhostinfo *hosts;
	pvm_config(&nhost, &narch, &hosts);
	pvm_pstat(tids[0]);
	pvm_setopt(PvmAutoErr, pvm_getopt(PvmAutoErr));
	int old = pvm_setsbuf(pvm_mkbuf(PvmDataTrace));   /* a user-defined event */
	int one = 1, pair[2] = { NCHILD, 7 };
	double ratio = 0.5;
	pvm_pkstr("children spawned");
	pvm_pkint(&one, 1, 1);
	pvm_pkint(pair, 2, 1);
	pvm_pkdouble(&ratio, 1, 1);
	pvm_send(PVM_TRACE_TID, PVM_TRACE_CODE);
	pvm_freebuf(pvm_setsbuf(old));
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
		int nsibs = 0, src, tag, len;
		pvm_recv(tids[i], TAG_ANSWER);
		pvm_upkdouble(&d, 1, 1);
		pvm_precv(tids[i], TAG_PSEND, &nsibs, 1, PVM_INT, &src, &tag, &len);
		total += d + nsibs;
	}
	for (int i = 0; i < NCHILD; i++)
		pvm_recv(-1, TAG_EXIT);   /* (the notices come from the pvmd) */
	printf("trace_prog: total %g\n", total);
	pvm_exit();
	return 0;
}
