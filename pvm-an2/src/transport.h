/* The internal interface every message route implements (pvmd socket now, AN2 later). */
#ifndef AN2PVM_TRANSPORT_H
#define AN2PVM_TRANSPORT_H

#include <poll.h>

struct msg;

struct transport {
	const char *name;
	/* Sends m to m->dst with m's tag/ctx/wid/enc. May block until written, but must keep
	 * draining its own incoming data meanwhile (no deadlock with a peer sending to us).
	 * Returns 0 or a negative PVM error. Does not take ownership of m. */
	int (*send)(struct transport *t, struct msg *m);
	/* Moves whatever has arrived, without blocking, into the receive queue (rxq_deliver).
	 * Returns the number of complete messages delivered or a negative PVM error. */
	int (*progress)(struct transport *t);
	/* Fills up to max pollfds that become readable when progress() has work; returns count.
	 * A transport without descriptors returns 0 and must then report poll_ms_max. */
	int (*pollfds)(struct transport *t, struct pollfd *fds, int max);
	/* Longest the core may sleep in poll() before calling progress() again (-1: forever). */
	int poll_ms_max;
	/* Set by the core after its poll(): bit i when the i-th descriptor pollfds() gave was
	 * ready; cleared after the next progress(). */
	unsigned ready;
	void (*close)(struct transport *t);
	void *impl;
};

#endif
