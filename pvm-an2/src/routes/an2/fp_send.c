/* fp_send.c — the AN2 route's send: over the VC when open, else announced for order. */
/* A message to a fast-path task goes over its VC once open (negotiated on the first message);
 * one that takes the daemon route after AN2 messages is preceded by a NOTE there (fp_order.c). */
#include "fp_send.h"

#include <pvm3.h>

#include "fp_daemon_msg.h"
#include "fp_handover_tx.h"
#include "fp_negotiate.h"
#include "fp_peers.h"
#include "fp_state.h"
#include "fp_tx.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"

/* 0: sent over AN2; ROUTE_PASS: the pvmd route takes it (after a NOTE when order needs one). */
int fp_route_send(struct route *t, struct msg *m)
{
	struct fp_route *r = fp_of(t);
	int dst = m->dst;
	if (!r->ep || !TID_IS_TASK(dst) || lpvm_is_sysctx(m->ctx))
		return ROUTE_PASS;
	if (r->handovers_due)   /* failed VCs' streams go before anything newer */
		fp_handover_flush(r, NULL);
	struct peer *p;
	if (lpvm.route_opt == PvmDontRoute) {   /* as stock: request no route; but a pair that
	                                          * has one still announces this message */
		p = fp_peer_find(r, dst);
		if (p && p->state != PEER_OPEN && p->state != PEER_PENDING)
			p = NULL;
	} else if (!r->active) {   /* an2d gone: no new pair, but one that sent by AN2 announces */
		p = fp_peer_find(r, dst);
		if (p && !p->req_sent)
			p = NULL;
	} else {
		p = fp_negotiate_for_send(r, dst);
	}
	if (!p)
		return ROUTE_PASS;
	if (p->state == PEER_OPEN && r->active && lpvm.route_opt != PvmDontRoute) {
		int cc = fp_send_msg(r, p, m);
		if (cc <= 0)
			return cc;
		fp_handover_flush(r, p);   /* its VC failed meanwhile: that stream goes first */
	}
	/* the daemon route; after AN2 messages, announce how many went before this one */
	if (p->an2_sent) {   /* (by the pvmd route itself: we are inside a route's send) */
		int cc = fp_send_ctl(dst, FP_TAG_NOTE, (int)p->an2_sent);
		if (cc < 0)
			return cc;
	}
	p->dmn_sent++;
	return ROUTE_PASS;
}

int fp_route_carries(struct route *t, int tid)
{
	struct fp_route *r = fp_of(t);
	return r->ep && TID_IS_TASK(tid) && fp_negotiate_for_send(r, tid) != NULL;
}
