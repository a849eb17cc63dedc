/* The controller of pvm_trace_live, on Debian's libpvm3: spawns trace_phases (argv[1]) and,
 * between its phases, changes its tracing as XPVM did, with task-control messages in the
 * system context: TC_SETTMASK adds pvm_pkint to the mask before phase 2, TC_SETTRCBUF sets a
 * buffer and TC_SETTRCOPT switches to counting before phase 3. */
#include <pvm3.h>
#include <pvmproto.h>
#include <sys/time.h>
#include <pvmtev.h>
#include <stdio.h>

#define TAG_DATA 20
#define TAG_READY 21
#define TAG_GO 22

static void control(int tid, int tag, const char *s, int v)
{
	int ctx = pvm_setcontext(SYSCTX_TC);
	pvm_initsend(PvmDataDefault);
	if (s)
		pvm_pkstr((char *)s);
	else
		pvm_pkint(&v, 1, 1);
	pvm_send(tid, tag);
	pvm_setcontext(ctx);
}

int main(int argc, char **argv)
{
	if (argc != 2 || pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmResvTids, 1);   /* the TC_* tags are negative */
	int tid;
	if (pvm_spawn(argv[1], NULL, PvmTaskDefault, "", 1, &tid) != 1) {
		fprintf(stderr, "trace_live_ctl: cannot spawn %s\n", argv[1]);
		pvm_exit();
		return 1;
	}
	Pvmtmask mask;
	pvm_gettmask(PvmTaskSelf, mask);
	for (int n = 1; n <= 3; n++) {
		int n2;
		pvm_recv(tid, TAG_DATA);
		pvm_precv(tid, TAG_READY, &n2, 1, PVM_INT, NULL, NULL, NULL);
		if (n == 1) {
			TEV_MASK_SET(mask, TEV_PKINT);
			control(tid, TC_SETTMASK, mask, 0);
		} else if (n == 2) {
			control(tid, TC_SETTRCBUF, NULL, 4096);
			control(tid, TC_SETTRCOPT, NULL, PvmTraceCount);
		}
		pvm_initsend(PvmDataDefault);
		pvm_send(tid, TAG_GO);
	}
	pvm_exit();
	printf("trace_live_ctl: done\n");
	return 0;
}
