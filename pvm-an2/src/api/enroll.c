/* Joining and leaving as a program sees it: pvm_mytid, pvm_parent, pvm_exit; and the tid and
 * version helpers. */
#include <stdio.h>   /* before <pvm3.h>: it declares pvm_catchout only when FILE is known */
#include <pvm3.h>

#include "catchout.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "mhf.h"
#include "pvm_ids.h"
#include "trace.h"

static int mytid_untraced(void)
{
	int cc = lpvm_attach();
	return cc ? lpvm_error("pvm_mytid", cc) : lpvm.mytid;
}

static int parent_untraced(void)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_parent", cc);
	return lpvm.myptid ? lpvm.myptid : PvmNoParent;   /* PvmParentNotSet arrives as is */
}

int pvm_mytid(void)
{
	if (trc_armed())
		return trc_call_none(TEV_MYTID, TEV_DID_MT, mytid_untraced);
	return mytid_untraced();
}

int pvm_parent(void)
{
	if (trc_armed())
		return trc_call_none(TEV_PARENT, TEV_DID_PT, parent_untraced);
	return parent_untraced();
}

static int exit_untraced(void)
{
	if (lpvm.mytid == -1)
		return 0;
	int cc = 0;
	if (!lpvm.dead) {
		catchout_at_exit();   /* the children's output we collect is all printed first */
		fflush(stdout);
		fflush(stderr);
		cc = lpvm_send_exit();
	} else {
		cc = PvmSysErr;
	}
	mhf_at_exit();
	lpvm_detach();
	return cc < 0 ? lpvm_error("pvm_exit", cc) : 0;
}

int pvm_exit(void)
{
	if (!trc_armed())
		return exit_untraced();
	int top = trc_claim();
	TRC_EVENT(top, TEV_EXIT, TEV_EVENT_ENTRY) {}
	trc_flush();   /* every event so far, or the summary, before we leave */
	int cc = exit_untraced();
	if (top)
		trc_release();
	return cc;
}

int pvm_tidtohost(int tid)
{
	return tid & TIDHOST;
}

char *pvm_version(void)
{
	return PVM_VER;
}
