/* fp_rel_timer.c — a VC's retransmission timer, and the servicing the wait loops do. */
/* The timer is looked at by the wait loops (progress, when it found no report) and never arms
 * a thread; it is armed at the first look after progress, so that the clean path reads no
 * clock per message. When it expires a PROBE goes; a peer that acknowledges nothing for
 * REL_GIVE_UP_US fails the pair. Leaving, the VCs that needed recovery are waited for. */
#include "fp_reliable.h"

#include "clock.h"
#include "fp_pair_fail.h"
#include "fp_state.h"

#define REL_CHECK_US 5000LL          /* the timers are looked at this often (at most) */
#define REL_GIVE_UP_US 15000000LL    /* the peer takes our cells but acknowledges nothing: the
                                      * pair fails after this long */

/* The retransmission timer of p, expired or not. */
static void timer(struct fp_route *r, struct peer *p, long long now)
{
	struct rel_state *s = &p->rel;
	if (!fp_rel_unacked(s))
		return;
	if (!s->rto_at_us) {   /* progress (or the first PDU) since the last look: arm */
		s->rto_at_us = now + s->rto_us;
		s->ack_progress_us = now;
		return;
	}
	if (now < s->rto_at_us)
		return;
	if (s->tx_queued > 0 || s->marked) {
		/* our PDUs have not all left (the peer's buffers are full and flow control holds
		 * them, or resends wait for room): nothing is known lost, and a slow peer is not
		 * a silent one */
		s->ack_progress_us = now;
		s->rto_at_us = now + s->rto_us;
		return;
	}
	if (now - s->ack_progress_us >= REL_GIVE_UP_US) {
		fp_peer_fail(r, p, "no acknowledgement for 15 s");
		return;
	}
	if (fp_rel_send_ctl(r, p, PDU_PROBE) != 0) {
		s->rto_at_us = now + REL_CHECK_US;   /* no room now: soon again */
		return;
	}
	s->timeouts++;
	s->probing = 1;   /* the NAK it brings is obeyed even if it repeats an earlier one */
	s->rto_us = s->rto_us * 2 < REL_RTO_MAX_US ? s->rto_us * 2 : REL_RTO_MAX_US;
	s->rto_at_us = now + s->rto_us;
}

void fp_rel_service(struct fp_route *r, int flush_acks)
{
	if (!r->ep || r->gone)
		return;
	long long now = 0;
	int timers = 0;
	if (r->rel_unacked_peers > 0) {
		now = lpvm_now_us();
		if (now >= r->rel_check_at_us) {
			timers = 1;
			r->rel_check_at_us = now + REL_CHECK_US;
		}
	}
	if (!timers && !r->resend_pending && !(flush_acks && r->acks_owed))
		return;
	int resends = 0, owed = 0;
	for (uint32_t vc = 0; vc < r->max_vcs; vc++) {
		struct peer *p = r->vc_peer[vc];
		if (!p || p->state != PEER_OPEN || !p->rel.ring)
			continue;
		if (timers)
			timer(r, p, now);
		if (p->state == PEER_OPEN && p->rel.marked)
			fp_rel_pump(r, p);
		if (p->state != PEER_OPEN)
			continue;
		resends |= p->rel.marked != 0;
		if (flush_acks && (p->rel.ack_owed || p->rel.ack_now))
			fp_rel_send_ctl(r, p, PDU_ACK);
		owed |= p->state == PEER_OPEN && (p->rel.ack_owed || p->rel.ack_now);
	}
	r->resend_pending = resends;
	r->acks_owed = owed;
}

int fp_rel_leaving(struct fp_route *r, int final)
{
	int waiting = 0;
	for (uint32_t vc = 0; r->ep && !r->gone && vc < r->max_vcs; vc++) {
		struct peer *p = r->vc_peer[vc];
		if (!p || p->state != PEER_OPEN || !p->rel.ring)
			continue;
		int troubled = p->rel.resent || p->rel.naks_in || p->rel.naks_out;
		if (troubled && fp_rel_unacked(&p->rel))
			waiting += (int)(p->rel.tx_next - p->rel.tx_una);
		/* every peer hears what we took (nothing of its is handed over to a task that has
		 * gone) and how many we sent (a tail that never arrives is then reported there, not
		 * lost silently) */
		if (final)
			fp_rel_send_ctl(r, p, PDU_ACK);
	}
	return waiting;
}

int fp_rel_poll_ms(struct fp_route *r)
{
	if (!r->ep || r->gone || (!r->rel_unacked_peers && !r->resend_pending))
		return -1;
	long long now = lpvm_now_us(), soonest = now + REL_RTO_MAX_US;
	if (r->resend_pending)
		soonest = now;
	for (uint32_t vc = 0; vc < r->max_vcs; vc++) {
		const struct peer *p = r->vc_peer[vc];
		if (p && p->state == PEER_OPEN && fp_rel_unacked(&p->rel) && p->rel.rto_at_us < soonest)
			soonest = p->rel.rto_at_us;   /* (0, not armed yet: soon) */
	}
	long long ms = (soonest - now + 999) / 1000;
	return ms < 1 ? 1 : ms > 1000 ? 1000 : (int)ms;
}
