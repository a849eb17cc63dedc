/* The AN2 fast path as the core sees it (route_an2.c, an2_order.c): every call is a no-op
 * returning 0 when the fast path is off. */
#ifndef AN2PVM_FASTPATH_H
#define AN2PVM_FASTPATH_H

struct msg;

/* After joining pvmd: opens the endpoint, registers our tid, adds the route. */
void an2_fastpath_start(void);
/* pvm_exit, before TM_EXIT: our AN2 messages are all out and confirmed by their receivers. */
void an2_fastpath_quiesce(void);
/* lpvm_route_send: 1 if m went over AN2; 0 if it takes the daemon route (after a NOTE when
 * order needs one); < 0 a PVM error. */
int an2_fastpath_send(struct msg *m, int dst, int ctx);
/* pvm_mcast: 1 if tid is a fast-path peer (send it its copy alone). */
int an2_fastpath_wants(int tid);
/* rxq_deliver: 1 if the fast path took the message (its control message, or held/delivered
 * in order with the peer's AN2 messages). */
int an2_fastpath_intercept(struct msg *m);
/* pvm_notify cancelled PvmTaskExit notices (tag, ctx) about these tasks: the pvmd's answer
 * to it looks like a notice, but the tasks live on. */
void an2_fastpath_exit_notify_cancelled(int tag, int ctx, const int *tids, int count);
/* A receive from tid (-1: any) that is to fail (PvmSysErr) because an AN2 pair failed. */
int an2_fastpath_recv_error(int tid);
/* lpvm_pump: whether to read the pvmd socket now (force: poll() found it ready); */
int an2_fastpath_daemon_due(int force);
/* idle: 1 = look again (spun or yielded; no sleep yet), 0 = sleep in poll() now (deadline_us
 * absolute CLOCK_MONOTONIC microseconds or -1), or with *look set: poll() without sleeping
 * (the pvmd socket is due a look); woke() after a sleeping poll(), busy() when something
 * arrived. */
int an2_fastpath_idle(long long deadline_us, int *look);
void an2_fastpath_woke(void);
void an2_fastpath_busy(void);
/* lpvm_pump returns: we no longer poll (withdraws the hint idle() gave the controller). */
void an2_fastpath_wait_over(void);

/* rxqueue.c: rxq_deliver without the fast path's hook (messages it releases in order). */
void rxq_enqueue(struct msg *m);

#endif
