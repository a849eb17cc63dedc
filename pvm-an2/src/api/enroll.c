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

int pvm_mytid(void)
{
	int cc = lpvm_attach();
	return cc ? lpvm_error("pvm_mytid", cc) : lpvm.mytid;
}

int pvm_parent(void)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_parent", cc);
	return lpvm.myptid ? lpvm.myptid : PvmNoParent;   /* PvmParentNotSet arrives as is */
}

int pvm_exit(void)
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

int pvm_tidtohost(int tid)
{
	return tid & TIDHOST;
}

char *pvm_version(void)
{
	return PVM_VER;
}
