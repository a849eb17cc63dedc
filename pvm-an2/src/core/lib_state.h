/* The library's state: one per process, defined at the bottom of the core (lib_state.c). */
#ifndef LPVM_LIB_STATE_H
#define LPVM_LIB_STATE_H

struct msg;
struct route;

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
	/* pvm_recvf's matcher; NULL: the receive queue's own (source, tag, context) */
	int (*recv_match)(int mid, int tid, int tag);
	/* pvm_exit, set with PvmAutoErr (PvmAutoErr 2 leaves through it before exiting) */
	int (*leave)(void);
	/* Told of every change to mytid, ctx and the output and trace settings, by whoever keeps
	 * a copy of them (Debian's exported variables); NULL: nobody. */
	void (*state_watcher)(void);
};

extern struct lib_state lpvm;

/* Tells the state's watcher (if any) that mytid, ctx or the output settings changed. */
static inline void lpvm_state_changed(void)
{
	if (lpvm.state_watcher)
		lpvm.state_watcher();
}

#endif
