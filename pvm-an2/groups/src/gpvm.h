/* Internals of libgpvm3-an2, the group library: the calls to pvmgs and the cache of frozen
 * groups. Built on the public API of <pvm3.h> only, so it runs on any PVM 3.4 libpvm3. */
#ifndef GPVM_H
#define GPVM_H

#include <pvm3.h>

#include "gs_protocol.h"

/* The error of the last failed call, documented with pvm_perror; both Debian's libpvm3 and
 * libpvm3-an2 export it, <pvm3.h> does not declare it. */
extern int pvm_errno;

/* Exported by Debian's libgpvm3, and so by us, though <pvm3.h> does not declare them. */
void pvm_gsdump(void);
int pvm_grphostinfo(char *group, int host, int *coordinator, int *members_on_host, int *nhosts);
int pvm_grpvhostinfo(char *group, int **coordinators, int **members_on_host, int *nhosts);

/* One call to pvmgs: the caller's send and receive buffers and context are put aside while
 * it runs, and gs_call_end gives them back. Between the two, the reply is the active receive
 * buffer (when gs_call_begin returned 0). */
struct gs_call {
	int saved_sbuf;
	int saved_rbuf;
	int saved_ctx;
	int server;
};

/* Sends request (group name, then *arg if arg is not NULL) and waits for the reply. Returns
 * 0 or a PVM error code (PvmNullGroup for a NULL or empty name, PvmSysErr when no group
 * server can be found or started or when it dies while we wait). */
int gs_call_begin(struct gs_call *call, const char *group, int request, const int *arg);
void gs_call_end(struct gs_call *call);
/* Sends a request that has no reply. */
int gs_send_only(int request);

/* The group server's tid, starting pvmgs if none runs (or a PVM error code). */
int gs_server_tid(void);

/* Unpacks the state that follows most replies, and the static info after GS_STATIC, which
 * it puts in the cache. Returns 0 or an error code for a malformed reply. */
int gs_unpack_state(void);

/* The cache of frozen groups (pvm_freezegroup): what members may answer without pvmgs. */
struct frozen_group {
	struct frozen_group *next;
	char *name;
	int ntids;        /* members */
	int maxntids;     /* instance slots, holes included */
	int *tids;        /* [maxntids], GS_NO_TID for a hole */
	int nhosts;
	int *members_on_host;   /* [nhosts] */
	int *coordinators;      /* [nhosts] */
};
struct frozen_group *frozen_find(const char *name);
void frozen_forget(const char *name);
void frozen_forget_all(void);
int frozen_unpack(void);   /* the static info of a reply -> cache; 0 or error */

/* Shared helpers of the group calls. */
int grp_getinst(const char *group, int tid);
int grp_gettid(const char *group, int inst);
int grp_hostinfo(const char *group, int host, int *coordinator, int *members_on_host, int *nhosts);
/* The members in instance order: *tids malloc'ed, *ntids set; holes refused (PvmNoInst) when
 * no_holes. Returns 0 or an error code. */
int grp_tidlist(const char *group, int no_holes, int **tids, int *ntids);
/* Sets pvm_errno, reports as libpvm does under PvmAutoErr, returns cc. */
int grp_error(const char *fn, int cc);

#endif
