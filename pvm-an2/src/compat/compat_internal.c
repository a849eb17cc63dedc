/* Non-API names Debian's libpvm3 exports that Debian's own programs use (nm -D
 * --undefined-only over /usr/bin): the helpers pvmsleep, pvmgetclock, pvmlogerror (bandwidth
 * tests, trsg, libfpvm3), the variables srm.pvm and ptest read (pvmmytid, pvmmyctx, pvmctrc,
 * pvmdebmask) and pvmnametag; pvmgettmp and pvmgetrsh (the console). The variables are
 * copies, brought up to date whenever the task joins, leaves or changes context or output
 * settings: this file watches the library's state (lpvm.state_watcher) from load on. */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <pvm3.h>
#include <pvmproto.h>
#include <stdlib.h>

#include "errors.h"
#include "lib_state.h"
#include "trace.h"


int pvmmytid = -1;                 /* our tid, -1 outside the virtual machine */
int pvmmyctx;                      /* the current message context */
int pvmdebmask;                    /* stock's debug mask; programs may set it, we log nothing more */
struct Pvmtracer pvmctrc;          /* where our children's output and trace data go */

static void publish(void)
{
	pvmmytid = lpvm.mytid;
	pvmmyctx = lpvm.ctx;
	pvmctrc.trctid = lpvm.trc_tid;
	pvmctrc.trcctx = lpvm.trc_ctx;
	pvmctrc.trctag = lpvm.trc_tag;
	pvmctrc.outtid = lpvm.out_tid;
	pvmctrc.outctx = lpvm.out_ctx;
	pvmctrc.outtag = lpvm.out_tag;
	pvmctrc.trcbuf = lpvm.trc_buf;
	pvmctrc.trcopt = lpvm.trc_opt;
	/* the children's trace mask; before the task has joined, the empty one */
	if (trc_mask_valid(lpvm_trc.child_mask))
		memcpy(pvmctrc.tmask, lpvm_trc.child_mask, sizeof pvmctrc.tmask);
	else
		trc_mask_clear(pvmctrc.tmask);
}

__attribute__((constructor)) static void watch_state(void)
{
	lpvm.state_watcher = publish;
}

/* The pvm console's helpers: the directory for temporary files, the remote shell. */
char *pvmgettmp(void)
{
	char *d = getenv("PVM_TMP");
	return d && *d ? d : "/tmp";
}

char *pvmgetrsh(void)
{
	char *r = getenv("PVM_RSH");
	return r && *r ? r : "/usr/bin/rsh";
}

int pvmsleep(int secs);
int pvmsleep(int secs)
{
	return secs > 0 ? (int)sleep((unsigned)secs) : 0;
}

int pvmgetclock(struct timeval *tv);
int pvmgetclock(struct timeval *tv)
{
	return tv ? gettimeofday(tv, NULL) : -1;
}

int pvmlogerror(char *s);
int pvmlogerror(char *s)
{
	if (lpvm.mytid == -1)
		fprintf(stderr, "libpvm [pid%d]: %s", (int)getpid(), s ? s : "");
	else
		fprintf(stderr, "libpvm [t%x]: %s", (unsigned)lpvm.mytid, s ? s : "");
	return 0;
}

/* The protocol's tag names, or the number (*found says which). */
char *pvmnametag(int tag, int *found);
char *pvmnametag(int tag, int *found)
{
#define N(x) { x, #x },
	static const struct { int tag; const char *name; } names[] = {
	N(SM_SPAWN) N(SM_EXEC) N(SM_EXECACK) N(SM_TASK) N(SM_CONFIG) N(SM_ADDHOST) N(SM_DELHOST) 
	N(SM_ADD) N(SM_ADDACK) N(SM_NOTIFY) N(SM_TASKX) N(SM_HOSTX) N(SM_HANDOFF) N(SM_SCHED) 
	N(SM_STHOST) N(SM_STHOSTACK) N(SM_STTASK) N(DM_ADD) N(DM_ADDACK) N(DM_EXEC) N(DM_EXECACK) 
	N(DM_SENDSIG) N(DM_HTUPD) N(DM_HTUPDACK) N(DM_HTCOMMIT) N(DM_SLCONF) N(DM_STARTACK) 
	N(DM_TASK) N(DM_TASKACK) N(DM_DELHOST) N(DM_DELHOSTACK) N(DM_NULL) N(DM_TASKOUT) 
	N(DM_PSTAT) N(DM_PSTATACK) N(DM_HALT) N(DM_MCA) N(DM_NOTIFY) N(DM_NOTIFYACK) N(DM_DB) 
	N(DM_DBACK) N(DM_RESET) N(DM_RESETACK) N(DM_HTDEL) N(DM_HOSTSYNC) N(DM_HOSTSYNCACK) 
	N(TM_CONNECT) N(TM_CONN2) N(TM_EXIT) N(TM_ADDHOST) N(TM_DELHOST) N(TM_CONFIG) N(TM_MSTAT) 
	N(TM_HALT) N(TM_TICKLE) N(TM_SPAWN) N(TM_PSTAT) N(TM_SENDSIG) N(TM_TASK) N(TM_MCA) 
	N(TM_NOTIFY) N(TM_DB) N(TM_SCHED) N(TM_TASKER) N(TM_HOSTER) N(TM_TRACER) N(TM_HOSTSYNC) 
	N(TM_SETOPT) N(TM_GETOPT) N(TM_CONTEXT) N(TM_SHMCONN) N(TC_CONREQ) N(TC_CONACK) 
	N(TC_TASKEXIT) N(TC_NOOP) N(TC_OUTPUT) N(TC_SETTRACE) N(TC_SETTMASK) N(TC_SETTRCBUF) 
	N(TC_SETTRCOPT) N(TC_SHMAT) N(TC_OUTPUTX) N(TC_SIBLINGS) 
	};
#undef N
	static char number[16];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].tag == tag) {
			if (found)
				*found = 1;
			return (char *)names[i].name;
		}
	snprintf(number, sizeof number, "%d", tag);
	if (found)
		*found = 0;
	return number;
}
