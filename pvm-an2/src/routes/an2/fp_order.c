/* fp_order.c — the AN2 route's per-sender order across a route switch. */
/* Each direction of a pair counts, from its REQ on (which marks the switch in the daemon
 * stream), the messages it sent by each route. An AN2 message carries how many daemon-route
 * messages preceded it; a daemon-route message that follows AN2 ones is announced by a NOTE
 * (daemon route, just before it) carrying how many AN2 messages preceded it. The receiver holds
 * each message until its predecessors on the other route have been delivered. A pvmd's
 * PvmTaskExit notice about a peer whose VC is still open waits likewise until that peer's AN2
 * stream has ended (PEER_GONE comes after its last cell), so that it never overtakes the peer's
 * last messages. */
#include "fp_order.h"

#include "clock.h"
#include "errors.h"
#include "fp_peers.h"
#include "fp_state.h"
#include "msg.h"
#include "rxqueue.h"

#include <stdlib.h>

#define EXIT_NOTICE_MAX_US 10000000LL   /* a held notice goes once the stream stood this long */

int fp_order_delivered(struct fp_route *r)
{
	int n = r->delivered;
	r->delivered = 0;
	return n;
}

static void hold(struct fp_route *r, struct held **head, struct held **tail, struct msg *m,
                 uint32_t need)
{
	struct held *h = malloc(sizeof *h);
	if (!h) {   /* cannot keep it: deliver now rather than lose it */
		lpvm_log("AN2 fast path: out of memory holding a message from t%x: delivered early",
		         (unsigned)m->src);
		rxq_enqueue(m);
		r->delivered++;
		return;
	}
	*h = (struct held){ NULL, m, need };
	if (*tail)
		(*tail)->next = h;
	else
		*head = h;
	*tail = h;
}

static struct msg *pop(struct held **head, struct held **tail)
{
	struct held *h = *head;
	*head = h->next;
	if (!*head)
		*tail = NULL;
	struct msg *m = h->m;
	free(h);
	return m;
}

static void release_exit_notices(struct fp_route *r, struct peer *p)
{
	while (p->xh_head) {
		rxq_enqueue(pop(&p->xh_head, &p->xh_tail));
		r->delivered++;
	}
	r->exit_notices_held--;
}

/* The peer said (NOTE) it had sent `need` messages over AN2, but its VC failed before they
 * all came: those are lost (e.g. its an2d died with them queued). Logged, and the next
 * receive from it fails, so that no message is missing without an error. */
static void count_lost(struct fp_route *r, struct peer *p, uint32_t need)
{
	if (need <= p->an2_deliv)
		return;
	lpvm_log("AN2 fast path: %u message(s) that t%x sent over AN2 never arrived (its VC "
	         "failed): the next receive from it fails", (unsigned)(need - p->an2_deliv),
	         (unsigned)p->tid);
	p->an2_deliv = need;
	if (!p->error_pending) {
		p->error_pending = 1;
		r->errors_pending++;
	}
}

void fp_order_release(struct fp_route *r, struct peer *p, int force)
{
	for (;;) {
		if (p->hd_head && (force || p->hd_head->need <= p->an2_deliv)) {
			/* force: the pair failed, the AN2 messages it waits for will never come */
			count_lost(r, p, p->hd_head->need);
			rxq_enqueue(pop(&p->hd_head, &p->hd_tail));
			p->dmn_deliv++;
			r->delivered++;
		} else if (p->ha_head && p->req_seen && p->ha_head->need <= p->dmn_deliv) {
			rxq_enqueue(pop(&p->ha_head, &p->ha_tail));
			p->an2_deliv++;
			r->delivered++;
		} else {
			break;
		}
	}
	if (p->state == PEER_DEAD && p->xh_head)
		release_exit_notices(r, p);   /* the stream has ended: the notices go after it */
}

void fp_order_exit_notices_check(struct fp_route *r)
{
	long long now = lpvm_now_us();
	for (int i = 0; i < 64 && r->exit_notices_held; i++)
		for (struct peer *p = r->peers[i]; p; p = p->next)
			if (p->xh_head && now - p->exit_wait_us > EXIT_NOTICE_MAX_US) {
				lpvm_log("AN2 fast path: no PDU from t%x for 10 s since the pvmd said it "
				         "exited, but its VC %s is open: its exit notice goes now",
				         (unsigned)p->tid, p->addr);
				release_exit_notices(r, p);
			}
}

void fp_order_an2_arrival(struct fp_route *r, struct peer *p, struct msg *m,
                          const struct pdu_hdr *hdr)
{
	if (!p->ha_head && p->req_seen && hdr->dmn_before <= p->dmn_deliv) {
		rxq_enqueue(m);   /* the steady state: nothing to wait for */
		p->an2_deliv++;
		r->delivered++;
		if (p->hd_head)
			fp_order_release(r, p, 0);
		return;
	}
	hold(r, &p->ha_head, &p->ha_tail, m, hdr->dmn_before);
	fp_order_release(r, p, 0);
}

/* A peer's NOTE: its next daemon-route message follows its AN2 message #need. */
void fp_order_note(struct fp_route *r, int src, int need)
{
	struct peer *p = r->ep ? fp_peer_find(r, src) : NULL;
	if (p && p->req_seen) {   /* (also after a failure: it tells what was lost) */
		p->note_pending = 1;
		p->note_need = (uint32_t)need;
	}
}

void fp_order_hold_exit_notice(struct fp_route *r, struct peer *exited, struct msg *m)
{
	int first = !exited->xh_head;
	hold(r, &exited->xh_head, &exited->xh_tail, m, 0);   /* delivers it if it cannot */
	if (first && exited->xh_head) {
		exited->exit_wait_us = lpvm_now_us();
		r->exit_notices_held++;
	}
}

void fp_order_daemon_arrival(struct fp_route *r, struct peer *p, struct msg *m)
{
	uint32_t need = p->note_pending ? p->note_need : 0;
	p->note_pending = 0;
	int ended = p->state == PEER_DEAD && !p->await_end;   /* (else its END is to come) */
	if (ended) {
		count_lost(r, p, need);
		need = 0;
	}
	hold(r, &p->hd_head, &p->hd_tail, m, need);
	fp_order_release(r, p, ended);
}
