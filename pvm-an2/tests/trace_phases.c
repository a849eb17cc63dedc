/* The traced task of pvm_trace_live: three phases of the same calls, each started by its
 * parent (trace_live_ctl) once it has changed this task's tracing with task-control messages;
 * what each phase leaves in the trace shows which change took effect. The task says it is
 * ready with pvm_psend and waits with pvm_probe, both left out of the trace mask: the changes
 * arrive while it makes no traced call, so they take effect at the same place for every
 * library. */
#include <pvm3.h>
#include <sched.h>

#define TAG_DATA 20
#define TAG_READY 21
#define TAG_GO 22

static void phase(int parent, int n)
{
	int v[3] = { n, n + 1, n + 2 };
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 3, 1);
	pvm_send(parent, TAG_DATA);
	pvm_psend(parent, TAG_READY, &n, 1, PVM_INT);
	while (pvm_probe(parent, TAG_GO) == 0)   /* the changes are taken in here */
		sched_yield();
	pvm_recv(parent, TAG_GO);
}

int main(void)
{
	if (pvm_mytid() < 0)
		return 1;
	int parent = pvm_parent();
	if (parent < 0) {
		pvm_exit();
		return 1;
	}
	for (int n = 1; n <= 3; n++)
		phase(parent, n);
	pvm_exit();
	return 0;
}
