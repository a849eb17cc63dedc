/* fp_rel_send.c — a VC's sending side: its PDUs numbered, kept until acknowledged, resent. */
/* The window (REL_WINDOW PDUs, REL_WINDOW_BYTES), the header fields of a new DATA PDU, the
 * control PDUs (ACK, NAK, PROBE), the peer's cumulative acknowledgement, and the resend of
 * the PDUs a NAK names (selective repeat, or go-back-N after a probe). */
#include "fp_reliable.h"

#include "clock.h"
#include "errors.h"
#include "fp_state.h"
#include "fp_tx_desc.h"

#include <arpa/inet.h>

#include <errno.h>
#include <string.h>

int fp_rel_window_full(const struct peer *p)
{
	return p->rel.tx_next - p->rel.tx_una >= REL_WINDOW ||
	       p->rel.unacked_bytes >= REL_WINDOW_BYTES;
}

void fp_rel_stamp(struct fp_route *r, struct peer *p, struct pdu_hdr *net_hdr)
{
	(void)r;
	net_hdr->seq = htonl(p->rel.tx_next);
	net_hdr->ack = htonl(p->rel.rx_next);   /* piggybacked: nothing owed any more */
	p->rel.ack_owed = p->rel.ack_owed_bytes = 0;
	p->rel.ack_now = 0;
}

void fp_rel_sent(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
                 void *const *blocks, unsigned nblocks)
{
	struct rel_state *s = &p->rel;
	if (!s->ring || p->state != PEER_OPEN || n > AN2_MAX_FRAGS || nblocks > AN2_MAX_FRAGS)
		return;
	if (!fp_rel_unacked(s)) {
		r->rel_unacked_peers++;
		s->rto_at_us = 0;   /* armed at the next look (no clock read per message) */
	}
	struct rel_pdu *e = &s->ring[s->tx_next % REL_WINDOW];
	memcpy(e->frags, fr, n * sizeof *fr);
	e->nfrags = n;
	e->bytes = 0;
	for (unsigned i = 0; i < n; i++)
		e->bytes += fr[i].length;
	s->unacked_bytes += e->bytes;
	for (unsigned i = 0; i < nblocks; i++) {
		e->blocks[i] = blocks[i];
		bufpool_tx_ref(r->pool, blocks[i]);
	}
	e->nblocks = nblocks;
	e->marked = 0;
	s->tx_next++;
	s->sent++;
}

/* An ACK, NAK or PROBE PDU (a header only, in an area block given back at its report). 0, or
 * -1 when it cannot go now (no transmit room or area block; the pair may have failed). */
int fp_rel_send_ctl(struct fp_route *r, struct peer *p, enum pdu_kind kind)
{
	if (p->state != PEER_OPEN || r->tx_free < 0 || an2_tx_space(r->ep) == 0)
		return -1;
	struct pdu_hdr *h = bufpool_alloc_area(r->pool, PDU_HDR_LEN);
	if (!h)
		return -1;
	*h = (struct pdu_hdr){ .magic = FP_PDU_MAGIC, .kind = (uint8_t)kind,
	                       .seq = htonl(p->rel.tx_next), .ack = htonl(p->rel.rx_next),
	                       .an2_index = htonl((uint32_t)p->rel.damaged) };
	struct an2_frag fr = { bufpool_offset(r->pool, h), PDU_HDR_LEN };
	void *blk = h;
	int cc = fp_tx_post(r, p, &fr, 1, &blk, 1);
	bufpool_free(r->pool, h);   /* given back at its TX report */
	if (cc)
		return -1;
	p->rel.ack_owed = p->rel.ack_owed_bytes = 0;
	p->rel.ack_now = 0;
	if (kind == PDU_NAK)
		p->rel.naks_out++;
	else if (kind == PDU_ACK)
		p->rel.acks_out++;
	return 0;
}

/* Resends the marked PDUs, oldest first, while there is transmit room. */
void fp_rel_pump(struct fp_route *r, struct peer *p)
{
	struct rel_state *s = &p->rel;
	uint32_t seq = s->mark_from - s->tx_una < s->tx_next - s->tx_una ? s->mark_from : s->tx_una;
	for (; seq != s->tx_next && s->marked && p->state == PEER_OPEN; seq++) {
		struct rel_pdu *e = &s->ring[seq % REL_WINDOW];
		if (!e->marked)
			continue;
		int cc = fp_tx_post(r, p, e->frags, e->nfrags, e->blocks, e->nblocks);
		if (cc == -EAGAIN) {
			s->mark_from = seq;
			r->resend_pending = 1;   /* the next progress goes on */
			return;
		}
		if (cc)
			return;   /* the pair has failed */
		e->marked = 0;
		s->marked--;
		s->resent++;
		fp_rel_show(p);
	}
	s->mark_from = seq;
}

/* Resends PDU `from` (whole: and every one after it), unless it is already to be resent, or
 * its last resend has not had time to arrive, the peer has received no damaged PDU since
 * (damaged: its count, from the NAK) and no probe asked. */
void fp_rel_resend(struct fp_route *r, struct peer *p, uint32_t from, int whole,
                   uint32_t damaged, const char *why)
{
	struct rel_state *s = &p->rel;
	if (s->ring[from % REL_WINDOW].marked)
		return;
	long long now = lpvm_now_us();
	if (!s->probing && from == s->back_to && s->back_at_us && damaged == s->back_damaged &&
	    (s->tx_queued > 0 || now - s->back_at_us < s->rto_us))
		return;   /* a NAK repeated while the resend is on its way: the timer covers a loss */
	s->probing = 0;
	s->back_to = from;
	s->back_at_us = now;
	s->back_damaged = damaged;
	s->recoveries++;
	fp_rel_show(p);
	for (uint32_t seq = from; seq != s->tx_next && (seq == from || whole); seq++) {
		struct rel_pdu *e = &s->ring[seq % REL_WINDOW];
		if (!e->marked) {
			e->marked = 1;
			s->marked++;
		}
	}
	if (s->mark_from - s->tx_una > from - s->tx_una)
		s->mark_from = from;
	r->resend_pending = 1;
	s->tx_unlogged++;
	if (!s->tx_logged_us || now - s->tx_logged_us >= REL_LOG_US) {
		lpvm_log("AN2 fast path: %s on VC %s to t%x: resending PDU %u%s (%u recoveries "
		         "since the last line; %llu PDUs resent, %llu NAKs, %llu timeouts so far)",
		         why, p->addr, (unsigned)p->tid, (unsigned)from, whole ? " on" : "",
		         s->tx_unlogged,
		         (unsigned long long)s->resent, (unsigned long long)s->naks_in,
		         (unsigned long long)s->timeouts);
		s->tx_logged_us = now;
		s->tx_unlogged = 0;
	}
	fp_rel_pump(r, p);
}

/* A cumulative acknowledgement from the peer: every PDU before `ack` arrived. A value
 * behind the window is stale (from a resent PDU of the peer's) and ignored; one beyond what
 * we sent is bogus, counted and ignored. 1 if it lies in the window. */
int fp_rel_take_ack(struct fp_route *r, struct peer *p, uint32_t ack)
{
	struct rel_state *s = &p->rel;
	uint32_t advance = ack - s->tx_una, in_flight = s->tx_next - s->tx_una;
	if (advance > in_flight) {
		if (ack - s->tx_next < 0x80000000u)
			s->bogus++;
		return 0;
	}
	if (advance == 0)
		return 1;
	fp_rel_release_upto(r, s, ack);   /* (marked ones among them are not resent) */
	s->rto_us = REL_RTO_MIN_US;
	s->rto_at_us = 0;   /* armed again at the next look */
	s->probing = 0;
	if (!fp_rel_unacked(s))
		r->rel_unacked_peers--;
	return 1;
}
