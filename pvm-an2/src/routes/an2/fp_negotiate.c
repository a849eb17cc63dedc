/* fp_negotiate.c — the AN2 route's VC set-up with a peer. */
/* The registry look-up, REQ/NAK through the daemon route (reserved context FP_CTX), the
 * driver's VC rendezvous, and a peer's REQ and NAK. */
#include "fp_negotiate.h"

#include "clock.h"
#include "errors.h"
#include "fp_daemon_msg.h"
#include "fp_order.h"
#include "fp_pair_fail.h"
#include "fp_peers.h"
#include "fp_reliable.h"
#include "fp_rx.h"
#include "fp_state.h"
#include "lib_state.h"
#include "pvm_ids.h"
#include "route_set.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define RETRY_LOOKUP_US 20000    /* a task not (yet) registered is looked up again after this; */
#define RETRY_REMOTE_US 2000000  /* on another host this, doubling after each miss up to 64 s:
                                  * a look-up over the fabric waits for every host's silence
                                  * (0.3 s), and a task that registers while one is under way
                                  * answers it, so a miss mostly means a task off AN2 */
#define REMOTE_MISSES_MAX 6      /* (2 s << 5) */
#define SETUP_WAIT_US 5000       /* the first message waits this long for the VC, then goes
                                  * by the daemon route (a peer busy elsewhere answers late) */
#define ANSWERS_POLL_US 200      /* then each send looks at most this often whether the VC
                                  * has opened (a sender that only sends makes no progress
                                  * call that would) */

static void start_vc(struct fp_route *r, struct peer *p)
{
	if (p->vc >= 0 || p->vc_started || p->state == PEER_DEAD)
		return;
	int rc = an2_vc_open_start(r->ep, p->ep_id);
	if (rc != 0) {
		p->state = PEER_PENDING;
		fp_peer_fail(r, p, an2_strerror(rc));
		return;
	}
	p->vc_started = 1;
	p->state = PEER_PENDING;
	r->pending_opens++;
}

struct peer *fp_negotiate_for_send(struct fp_route *r, int tid)
{
	if (!r->active || tid == lpvm.mytid)
		return NULL;
	struct peer *p = fp_peer_get(r, tid);
	if (!p)
		return NULL;
	if (p->req_sent) {
		if (p->state == PEER_PENDING && r->pending_opens &&
		    lpvm_now_us() - r->answers_polled_us >= ANSWERS_POLL_US) {
			r->answers_polled_us = lpvm_now_us();
			if (fp_poll_vc_answers(r) < 0)
				r->check_ctl = 1;   /* (the next progress finds out what failed) */
		}
		return p;
	}
	if (p->state == PEER_DEAD)
		return NULL;
	if (!p->ep_id) {
		bool remote = !TID_SAME_HOST(tid, lpvm.mytid);
		if (remote && !(an2_endpoint_id(r->ep) >> 16)) {
			/* our an2d is on no fabric (an endpoint id carries its host's address) */
			if (!r->said_remote) {
				r->said_remote = 1;
				lpvm_log("AN2 fast path: this host's an2d is not attached to an AN2 "
				         "switch (an2d --switch): tasks on other hosts are reached "
				         "through the pvmds");
			}
			p->state = PEER_NO_AN2;
			p->retry_at_ms = LLONG_MAX;
			return NULL;
		}
		if (p->state == PEER_NO_AN2 && lpvm_now_us() < p->retry_at_ms)
			return NULL;
		uint32_t id = 0;
		int rc = an2_lookup_name(r->ep, (uint32_t)tid, &id);
		if (rc != 0) {
			/* not a fast-path task (or not registered yet): never sent anything of ours */
			p->state = PEER_NO_AN2;
			long long wait = RETRY_LOOKUP_US;
			if (remote) {
				if (p->remote_misses < REMOTE_MISSES_MAX)
					p->remote_misses++;
				wait = (long long)RETRY_REMOTE_US << (p->remote_misses - 1);
			}
			p->retry_at_ms = lpvm_now_us() + wait;
			return NULL;
		}
		p->ep_id = id;
		p->state = PEER_UNKNOWN;
	}
	/* our stream to tid switches here: the REQ marks the point in the daemon route */
	if (fp_send_ctl(tid, FP_TAG_REQ, (int)an2_endpoint_id(r->ep)) < 0)
		return NULL;
	p->req_sent = 1;
	p->an2_sent = p->dmn_sent = 0;
	start_vc(r, p);
	long long end = lpvm_now_us() + SETUP_WAIT_US;
	while (p->state == PEER_PENDING && lpvm_now_us() < end && r->active) {
		if (fp_poll_vc_answers(r) < 0 || lpvm_daemon_progress() < 0)
			break;   /* (the daemon route brings a NAK) */
		sched_yield();
	}
	return p;
}

static struct peer *peer_by_endpoint(struct fp_route *r, uint32_t id)
{
	for (int i = 0; i < 64; i++)
		for (struct peer *p = r->peers[i]; p; p = p->next)
			if (p->ep_id == id)
				return p;
	return NULL;
}

void fp_vc_opened(struct fp_route *r, struct peer *p, const struct an2_vc_info *vi)
{
	p->vc = vi->vc;
	snprintf(p->addr, sizeof p->addr, "%s", vi->addr);
	r->vc_peer[vi->vc] = p;
	if (p->state == PEER_DEAD || r->quiesced) {   /* too late: we are leaving */
		p->state = PEER_DEAD;
		r->vc_peer[vi->vc] = NULL;
		an2_vc_close(r->ep, vi->vc);
		p->vc = -1;
		return;
	}
	fp_rel_close(r, p);   /* (a former VC's state, if any) */
	p->state = PEER_OPEN;
	if (fp_rel_open(r, p) != 0)
		fp_peer_fail(r, p, "out of memory");
	else if (fp_post_rx(r, p) != 0)
		fp_peer_fail(r, p, "no receive buffers");
}

int fp_poll_vc_answers(struct fp_route *r)
{
	for (;;) {
		struct an2_vc_info vi = { 0 };
		int rc = an2_vc_open_complete(r->ep, &vi);
		if (rc == 0)
			return 0;
		struct peer *p = vi.peer_id ? peer_by_endpoint(r, vi.peer_id) : NULL;
		if (!p) {
			if (rc == 1)
				an2_vc_close(r->ep, vi.vc);   /* nobody wants it any more */
			else if (!vi.peer_id)
				return rc;                       /* the control socket itself failed */
			continue;
		}
		if (p->vc_started) {
			p->vc_started = 0;
			r->pending_opens--;
		}
		if (rc == 1)
			fp_vc_opened(r, p, &vi);
		else   /* -ESRCH: it left before agreeing, nothing lost: quietly */
			fp_peer_fail(r, p, rc == -ESRCH ? NULL : an2_strerror(rc));
	}
}

/* A peer's REQ through the daemon route: its AN2 stream to us starts here, and it asks for a
 * VC to its endpoint (value); answered by our side of the VC, or NAK. */
void fp_negotiate_req(struct fp_route *r, int src, int value)
{
	struct peer *p = r->ep ? fp_peer_get(r, src) : NULL;
	if (!p || !r->active) {
		fp_send_ctl(src, FP_TAG_NAK, 0);
		return;
	}
	if (p->ep_id && p->ep_id != (uint32_t)value && p->state == PEER_DEAD) {
		/* a new task with an old tid: start afresh */
		fp_order_release(r, p, 1);
		p->state = PEER_UNKNOWN;
		p->req_sent = 0;
	}
	fp_order_release(r, p, 1);
	p->req_seen = 1;
	p->an2_deliv = p->dmn_deliv = 0;
	p->note_pending = 0;
	p->ep_id = (uint32_t)value;
	if (p->state == PEER_DEAD) {
		/* its VC came, carried messages and ended before this REQ (a task that sent
		 * and left at once): what it sent is delivered now, then no new pair */
		fp_order_release(r, p, 1);
		fp_send_ctl(src, FP_TAG_NAK, 0);
		return;
	}
	start_vc(r, p);
	if (p->state == PEER_DEAD)
		fp_send_ctl(src, FP_TAG_NAK, 0);
	fp_order_release(r, p, 0);   /* AN2 messages that came before the REQ */
}

/* A peer's NAK: it cannot use AN2 with us, the pair takes the daemon route. */
void fp_negotiate_nak(struct fp_route *r, int src)
{
	struct peer *p = r->ep ? fp_peer_find(r, src) : NULL;
	if (p && p->state != PEER_DEAD && p->state != PEER_OPEN) {
		lpvm_log("AN2 fast path: t%x declined a VC: daemon route", (unsigned)src);
		fp_peer_fail(r, p, NULL);
	}
}
