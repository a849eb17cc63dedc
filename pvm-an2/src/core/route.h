/* route.h — the operations table every message route implements in full (the pvmd route,
 * the AN2 fast path): the core (send, receive queue, waiting, task start and exit) talks to
 * routes only through it, and each route keeps its state in its own struct. */
#ifndef AN2PVM_ROUTE_H
#define AN2PVM_ROUTE_H

#include <poll.h>

struct msg;
struct route;

/* route_ops.send: "not mine", the next route (towards the pvmd route) takes the message. */
#define ROUTE_PASS 1

struct route_ops {
	const char *name;
	/* Sends m to m->dst with m's tag/ctx/wid/enc: 0, ROUTE_PASS, or a negative PVM error.
	 * May block until written, but keeps draining its own input meanwhile (no deadlock with
	 * a peer sending to us). Does not take ownership of m. */
	int (*send)(struct route *r, struct msg *m);
	/* 1 if this route carries messages to tid itself: a multicast sends tid its own copy. */
	int (*carries)(struct route *r, int tid);
	/* Moves what has arrived into the receive queue (rxq_deliver) without blocking; the
	 * number of complete messages delivered (a message found lost, which recv_error will
	 * report, counts as one), or a negative PVM error. */
	int (*progress)(struct route *r);
	/* Whether another route's progress() that costs a system call is due now (ready: the
	 * core's poll() found its descriptor ready). A route that keeps the core polling rations
	 * the others; one that does not says 1. */
	int (*others_due)(struct route *r, int ready);
	/* A message that arrived by any route, before it is queued: 1 if this route takes it
	 * (its own control message, or one held back for order), 0 to queue it. */
	int (*filter)(struct route *r, struct msg *m);
	/* Fills up to max pollfds that become readable when progress() has work; the count. */
	int (*pollfds)(struct route *r, struct pollfd *fds, int max);
	/* Longest the core may sleep in poll() before calling progress() again (-1: forever). */
	int (*poll_ms_max)(struct route *r);
	/* Waiting, when nothing arrived: 1 to look again at once (the route spins or yields
	 * first), 0 to sleep in poll() now (*look: a poll() that does not sleep; deadline_us:
	 * absolute CLOCK_MONOTONIC microseconds, or -1). woke() after that poll(), busy() when
	 * something arrived, wait_over() when the wait ends. */
	int (*idle)(struct route *r, long long deadline_us, int *look);
	void (*woke)(struct route *r);
	void (*busy)(struct route *r);
	void (*wait_over)(struct route *r);
	/* A receive from tid (-1: any) that must fail now because this route lost a message
	 * from it: the PVM error (once), or 0. */
	int (*recv_error)(struct route *r, int tid);
	/* The task tid has gone, or a host with every task on it (tid: its pvmd's, TIDPVMD | the
	 * host part): the core calls it when the pvmd says so (a PvmTaskExit or PvmHostDelete
	 * notice the application gets, pvm_pstat's PvmNoTask), outside any route's progress. The
	 * route drops what it keeps for that peer; messages it already received from it are still
	 * delivered. 0, or a negative PVM error (the route keeps its state). */
	int (*peer_failed)(struct route *r, int tid);
	/* Sends what the route had to defer while a route was being read (the core calls it
	 * outside any route's progress, like peer_failed): 0, or a negative PVM error. */
	int (*flush)(struct route *r);
	/* pvm_exit, before TM_EXIT, and the end of a process that did not call it: what this
	 * route sent is out (bounded in time). */
	void (*quiesce)(struct route *r);
	void (*close)(struct route *r);
};

struct route {
	const struct route_ops *ops;
	/* Set by the core after its poll(): bit i when the i-th descriptor pollfds() gave was
	 * ready; cleared after the next progress(). */
	unsigned ready;
};

/* What the process keeps for one kind of optional route across the routes of that kind
 * (pvm_exit and a new pvm_mytid close one and open another): route_set.c owns one for each kind
 * and gives it to the kind's opener, which keeps it in its route. */
struct route_keep {
	void *lingering;   /* closed routes whose memory messages still hold (the kind's list) */
	unsigned said;     /* once-per-process log lines already written (the kind's bits) */
};

#endif
