/* Calls of <pvm3.h> that belong to part 2 (issue 6): they answer PvmNotImpl for now, so
 * that programs linked to Debian's libpvm3 load on the drop-in library (BIND_NOW). The group
 * calls and PvmSum & co. are not here: like Debian's, they live in the group library. */
#include <stdio.h>   /* before <pvm3.h>: it declares pvm_catchout only when FILE is known */
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include "an2pvm.h"

#define NOT_YET(name) lpvm_error(name, PvmNotImpl)

int pvm_addmhf(int src, int tag, int ctx, int (*f)(int)) { (void)src; (void)tag; (void)ctx; (void)f; return NOT_YET("pvm_addmhf"); }
int pvm_delmhf(int mhid) { (void)mhid; return NOT_YET("pvm_delmhf"); }
int pvm_catchout(FILE *f) { (void)f; return NOT_YET("pvm_catchout"); }
int pvm_export(char *n) { (void)n; return NOT_YET("pvm_export"); }
int pvm_unexport(char *n) { (void)n; return NOT_YET("pvm_unexport"); }
int pvm_getfds(int **fds) { (void)fds; return NOT_YET("pvm_getfds"); }
int pvm_getnoresets(int **t, int *n) { (void)t; (void)n; return NOT_YET("pvm_getnoresets"); }
int pvm_hostsync(int h, struct timeval *c, struct timeval *d) { (void)h; (void)c; (void)d; return NOT_YET("pvm_hostsync"); }
int pvm_reg_hoster(void) { return NOT_YET("pvm_reg_hoster"); }
int pvm_reg_rm(struct pvmhostinfo **h) { (void)h; return NOT_YET("pvm_reg_rm"); }
int pvm_reg_tasker(void) { return NOT_YET("pvm_reg_tasker"); }
int pvm_reg_tracer(int a, int b, int c, int d, char *e, int f, int g) { (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; return NOT_YET("pvm_reg_tracer"); }
int pvm_start_pvmd(int argc, char **argv, int block) { (void)argc; (void)argv; (void)block; return NOT_YET("pvm_start_pvmd"); }
int pvm_delete(char *n, int r) { (void)n; (void)r; return NOT_YET("pvm_delete"); }
int pvm_insert(char *n, int r, int d) { (void)n; (void)r; (void)d; return NOT_YET("pvm_insert"); }
int pvm_lookup(char *n, int r, int *d) { (void)n; (void)r; (void)d; return NOT_YET("pvm_lookup"); }


/* Debian's library exports these helpers and some of its programs (the pvm console, the
 * bandwidth tests, libfpvm3) call them. */
int pvmdisplaymhfinfo(char *who, char *msg, int tid);
int pvmdisplaymhfinfo(char *who, char *msg, int tid) { (void)who; (void)msg; (void)tid; return 0; }

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

/* Exported by Debian's library though not declared in <pvm3.h> (tracing masks). */
int pvm_gettmask(int who, char *tmask);
int pvm_gettmask(int who, char *tmask) { (void)who; (void)tmask; return NOT_YET("pvm_gettmask"); }
int pvm_settmask(int who, char *tmask);
int pvm_settmask(int who, char *tmask) { (void)who; (void)tmask; return NOT_YET("pvm_settmask"); }

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
