/* fp_pair_fail.c — a pair stops using AN2: its VC closes, its stream goes on by the pvmd route. */
/* Called on any failure (an2d gone, a link cut, a silent or misbehaving peer, a refused VC)
 * and when the peer has gone: what the peer has not acknowledged is handed over
 * (fp_handover_tx.c), and messages held for order are released (fp_order.c). */
#include "fp_pair_fail.h"

#include "errors.h"
#include "fp_handover_tx.h"
#include "fp_order.h"
#include "fp_reliable.h"
#include "fp_state.h"

void fp_peer_fail(struct fp_route *r, struct peer *p, const char *why)
{
	if (p->state == PEER_DEAD)
		return;
	if (p->partial && !why)
		why = "the peer's end vanished in mid-message";
	if (why)
		lpvm_log("AN2 fast path: %s on VC %s to t%x: back to the daemon route", why,
		         p->vc >= 0 ? p->addr : "(not open)", (unsigned)p->tid);
	p->state = PEER_DEAD;
	if (p->vc_started) {
		p->vc_started = 0;
		r->pending_opens--;
		if (!r->gone)
			an2_vc_open_cancel(r->ep, p->ep_id);
	}
	if (p->rel.ring) {   /* a VC was open: each side hands its stream over, ends with END */
		p->await_end = 1;
		fp_handover_capture(r, p);
	}
	fp_rel_close(r, p);
	if (p->vc >= 0) {
		r->vc_peer[p->vc] = NULL;
		if (!r->gone)
			an2_vc_close(r->ep, (uint16_t)p->vc);   /* posted buffers come back ABORTED */
		p->vc = -1;
	}
	fp_order_release(r, p, !p->await_end);
}
