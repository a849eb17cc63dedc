/* libpvm3-an2 internal state and the functions its files share. */
#ifndef AN2PVM_H
#define AN2PVM_H

#include <pvm3.h>
#include <pvmproto.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/time.h>

#include "msg.h"
#include "route.h"

/* Task id layout (PVM 3.4). */
#define TIDHOST   0x3ffc0000
#define TIDLOCAL  0x0003ffff
#define TIDGID    0x40000000
#define TIDPVMD   ((int)0x80000000)
#define TID_IS_TASK(x) (!((x) & (TIDGID | TIDPVMD)) && ((x) & TIDLOCAL))
#define TID_IS_PVMD(x) (((x) & (TIDGID | TIDPVMD)) == TIDPVMD && !((x) & TIDLOCAL))

#define MSGHDRLEN 32
#define FFSOM 1
#define FFEOM 2

#define MAX_ROUTES 4

struct lib_state {
	int mytid;               /* -1 until connected */
	int myptid;
	int mypid;
	int dsig;                /* our data signature */
	int dead;                /* the pvmd connection failed: every daemon call is PvmSysErr */
	int exiting;             /* TM_EXIT sent: the pvmd closing the socket is expected */
	int ctx;                 /* current message context */
	int route_opt;           /* PvmRoute: PvmDontRoute keeps a message off the fast path */
	int debug_mask, autoerr, frag_size, resv_tids, show_tids, no_reset;
	int out_tid, out_ctx, out_tag, trc_tid, trc_ctx, trc_tag, trc_buf, trc_opt;
	int self_out_tid, self_out_ctx, self_out_tag, self_trc_tid, self_trc_ctx, self_trc_tag;
	int self_trc_buf, self_trc_opt;
	int udp_max, sched_tid;
	int nsibs;               /* -1 until TC_SIBLINGS arrives */
	int *sib_tids;
	struct msg *sbuf, *rbuf; /* active send and receive buffers */
	struct route *daemon;                /* route to the local pvmd: routes[0] */
	struct route *routes[MAX_ROUTES];
	int nroutes;
	int next_wid;
	int sends_since_pump;    /* sends since the input was last looked at */
	int (*recv_match)(int mid, int tid, int tag);
};

extern struct lib_state lpvm;
extern int pvm_errno;     /* errors.c; stock exports it without declaring it in <pvm3.h> */

/* errors.c */
int lpvm_error(const char *fn, int code);  /* records pvm_errno, auto-error reporting */
void lpvm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* task.c */
int lpvm_attach(void);        /* connect to pvmd if not yet; 0 or negative error */
void lpvm_detach(void);       /* close everything, back to unconnected */

/* routes.c: after the pvmd route (routes[0]), every optional route that opens. 0 or
 * PvmOutOfRes. */
int lpvm_routes_open(void);
void lpvm_routes_close(void);
/* The first route, from the last opened to the pvmd route, that takes m. */
int lpvm_routes_send(struct msg *m);
/* Whether a route carries messages to tid itself (route_ops.carries). */
int lpvm_routes_carry(int tid);
/* PVM's own contexts (pvmproto.h): their messages always take the daemon route. */
static inline int lpvm_is_sysctx(int ctx)
{
	return ctx <= SYSCTX_FIRST && ctx >= SYSCTX_LAST;
}
/* A message arriving by any route: 1 if a route took it (route_ops.filter). */
int lpvm_routes_filter(struct msg *m);
/* A receive from tid that must fail (route_ops.recv_error): the error, or 0. */
int lpvm_routes_recv_error(int tid);
/* A task (or every task of a host: tid is its pvmd's) has gone (route_ops.peer_failed). */
void lpvm_routes_peer_failed(int tid);
void lpvm_routes_flush(void);   /* what routes deferred while one was being read */
void lpvm_routes_quiesce(void);

/* notices.c: the PvmTaskExit and PvmHostDelete notices pvm_notify asked the pvmd for */
/* A request (or its cancel) sent to the pvmd: for tids (tasks or pvmds), tag, ctx. */
void lpvm_notices_asked(int cancel, int tag, int ctx, const int *tids, int count);
/* An arriving message: the task or pvmd tid it says has gone, or 0 (not such a notice, or
 * the answer to a cancel). Called once per message; leaves its unpack position alone. */
int lpvm_notice_gone(struct msg *m);
/* The application gets the notice about tid: lpvm_notices_flush() tells the routes. */
void lpvm_notice_delivered(int tid);
void lpvm_notices_flush(void);   /* from control_flush(), where no route is being read */
void lpvm_notices_clear(void);   /* the task left: no notice is to come */

/* the pvmd route (route_daemon.c) */
struct route *daemon_route_open(const char *sockaddr_text, int *err);

/* rxqueue.c: the single receive queue shared by all routes */
void rxq_deliver(struct msg *m);          /* a complete incoming message, in arrival order */
void rxq_enqueue(struct msg *m);          /* ... that every route's filter has passed */
struct msg *rxq_take_match(int tid, int tag, int remove);   /* uses lpvm.recv_match */
struct msg *rxq_take_system(int src_pvmd, int tag, int ctx, int wid);
/* Waits for more input: tmo NULL = forever, {0,0} = poll. Returns messages delivered or < 0. */
int lpvm_pump(const struct timeval *tmo);
void rxq_clear(void);
void rxq_forget(struct msg *m);            /* unlinks a queued message being freed */
int lpvm_default_match(int mid, int tid, int tag);

/* messaging.c */
int lpvm_route_send(struct msg *m, int dst, int tag, int ctx);
/* Sends req to the pvmd and waits for its answer (*reply, rewound; caller frees). */
/* Sends req to dst with a fresh wait id and waits for the reply carrying it (from the pvmd
 * when dst is TIDPVMD). 0 with *reply, or a negative PVM error. */
int lpvm_request(struct msg *req, int dst, int tag, int ctx, struct msg **reply);
int lpvm_daemon_call(struct msg *req, int tag, struct msg **reply);
/* Multicast of m to tids (sorted, deduplicated, without us) through the pvmd. */
int lpvm_mcast_ctx(struct msg *m, const int *tids, int count, int tag, int ctx);

/* control.c */
int control_handle(struct msg *m);        /* 1 if m was a system message and consumed */
int control_flush(void);                  /* sends replies queued by control_handle */
void control_reset(void);                /* drops queued replies (shutdown) */

/* pack.c helpers for internal messages */
int lpvm_pack_int(struct msg *m, int v);
int lpvm_pack_str(struct msg *m, const char *s);
int lpvm_unpack_int(struct msg *m, int *v);
int lpvm_unpack_str_alloc(struct msg *m, char **s);
int lpvm_pack(struct msg *m, int type, const void *p, int cnt, int std);
int lpvm_unpack(struct msg *m, int type, void *p, int cnt, int std);

/* Internal pack/unpack types (match the PVM_* data types of <pvm3.h>). */

#endif
