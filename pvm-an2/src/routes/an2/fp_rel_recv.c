/* fp_rel_recv.c — a VC's receiving side: PDUs taken in order, gaps and damage asked for again. */
/* A duplicate is dropped (and acknowledged), a later PDU is kept (its receive block) until
 * those before it have come, a gap or a damaged PDU is answered by a NAK naming the first PDU
 * missing; an ACK goes every ACK_EVERY PDUs taken without reverse data. */
#include "fp_reliable.h"

#include "clock.h"
#include "errors.h"
#include "fp_state.h"

#define ACK_EVERY 64u                /* PDUs taken before an ACK goes without reverse data, */
#define ACK_EVERY_BYTES (1u << 20)   /* or bytes (each a quarter of the sender's window) */
#define NAK_REPEAT_US 10000LL        /* one NAK per missing PDU this often at most */

/* Something from the peer did not arrive right: NAK the first PDU missing (rate-limited;
 * the peer's timer covers a NAK that is lost) and log (rate-limited). */
static void rx_trouble(struct fp_route *r, struct peer *p, const char *what)
{
	struct rel_state *s = &p->rel;
	s->rx_gap = 1;
	long long now = lpvm_now_us();
	if (!s->nak_at_us || s->nak_for != s->rx_next || s->nak_damaged != (uint32_t)s->damaged ||
	    now - s->nak_at_us >= NAK_REPEAT_US) {   /* (a damaged PDU may be its resend) */
		if (fp_rel_send_ctl(r, p, PDU_NAK) == 0) {
			s->nak_for = s->rx_next;
			s->nak_at_us = now;
			s->nak_damaged = (uint32_t)s->damaged;
		}
	}
	s->rx_unlogged++;
	if (p->state == PEER_OPEN && (!s->rx_logged_us || now - s->rx_logged_us >= REL_LOG_US)) {
		lpvm_log("AN2 fast path: %s on VC %s from t%x: PDU %u asked for again (%u since the "
		         "last line; %llu damaged, %llu out of order, %llu duplicates dropped, %llu "
		         "NAKs sent so far)", what, p->addr, (unsigned)p->tid, (unsigned)s->rx_next,
		         s->rx_unlogged, (unsigned long long)s->damaged,
		         (unsigned long long)s->out_of_order, (unsigned long long)s->dups,
		         (unsigned long long)s->naks_out);
		s->rx_logged_us = now;
		s->rx_unlogged = 0;
	}
}

void fp_rel_damaged(struct fp_route *r, struct peer *p, const char *what)
{
	if (!p->rel.ring || p->state != PEER_OPEN)
		return;
	p->rel.damaged++;
	rx_trouble(r, p, what);
}

/* The next PDU in order is taken (len bytes). */
static void take(struct fp_route *r, struct peer *p, uint32_t len)
{
	struct rel_state *s = &p->rel;
	s->rx_next++;
	s->taken++;
	s->rx_gap = s->nkept > 0;
	s->dup_acked = 0;
	s->ack_owed_bytes += len;
	if (++s->ack_owed >= ACK_EVERY || s->ack_owed_bytes >= ACK_EVERY_BYTES)
		fp_rel_send_ctl(r, p, PDU_ACK);
	if (s->ack_owed)
		r->acks_owed = 1;
}

void *fp_rel_next_kept(struct fp_route *r, struct peer *p, uint32_t *len)
{
	struct rel_state *s = &p->rel;
	if (!s->kept || !s->nkept || p->state != PEER_OPEN)
		return NULL;
	struct rel_kept *k = &s->kept[s->rx_next % REL_WINDOW];
	if (!k->block || k->seq != s->rx_next) {
		rx_trouble(r, p, "a missing PDU");   /* the next gap: ask at once */
		return NULL;
	}
	void *b = k->block;
	*len = k->len;
	k->block = NULL;
	s->nkept--;
	take(r, p, *len);   /* (taken even if that failed the pair: the caller delivers it) */
	return b;
}

int fp_rel_arrived(struct fp_route *r, struct peer *p, const struct pdu_hdr *h, uint32_t len,
                   void *b)
{
	struct rel_state *s = &p->rel;
	if (!s->ring || p->state != PEER_OPEN)
		return 0;
	int in_window = fp_rel_take_ack(r, p, h->ack);
	if (h->kind != PDU_DATA) {
		/* its word on how many PDUs it sent: nothing missing, or something (a lost tail) */
		uint32_t missing = h->seq - s->rx_next;
		if (missing == 0)
			s->rx_gap = 0;
		else if (missing <= REL_WINDOW)
			s->rx_gap = 1;
	}
	if (h->kind == PDU_PROBE) {
		uint32_t missing = h->seq - s->rx_next;
		if (missing == 0)
			fp_rel_send_ctl(r, p, PDU_ACK);   /* everything came: our ACK was lost */
		else if (missing <= REL_WINDOW)
			rx_trouble(r, p, "a probe after a lost tail");
		return 0;
	}
	if (h->kind == PDU_NAK) {
		s->naks_in++;
		if (in_window && h->ack != s->tx_next)   /* (after a probe: a lost tail, whole) */
			fp_rel_resend(r, p, h->ack, s->probing, h->an2_index,
			       s->probing ? "NAK after a probe" : "NAK");
		else if (in_window)
			fp_rel_send_ctl(r, p, PDU_ACK);   /* it has everything: say so (clears its doubt) */
		return 0;
	}
	if (h->kind != PDU_DATA)
		return 0;
	uint32_t ahead = h->seq - s->rx_next;
	if (ahead == 0) {
		take(r, p, len);
		return 1;   /* (even if acknowledging failed the pair: it is ours now) */
	}
	if (ahead >= 0x80000000u) {   /* behind: we have it already (resent, or a stale ack) */
		s->dups++;
		fp_rel_show(p);
		if (!s->dup_acked) {   /* tell the peer once where we are */
			s->dup_acked = 1;
			if (fp_rel_send_ctl(r, p, PDU_ACK) != 0) {
				s->ack_now = 1;
				r->acks_owed = 1;
			}
		}
		return 0;
	}
	struct rel_kept *k = &s->kept[h->seq % REL_WINDOW];
	if (ahead < REL_WINDOW && k->block && k->seq == h->seq) {
		s->dups++;   /* kept already (a resend crossed our NAK) */
		fp_rel_show(p);
		return 0;
	}
	s->out_of_order++;
	rx_trouble(r, p, "a missing PDU");
	/* kept for later, unless beyond any window the peer may have, or the buffer area runs
	 * low (then dropped: asked for again once the gap is filled) */
	if (ahead >= REL_WINDOW || k->block || p->state != PEER_OPEN ||
	    bufpool_free_bytes(r->pool) < POOL_RESERVE)
		return 0;
	*k = (struct rel_kept){ b, h->seq, len };
	s->nkept++;
	return 2;
}
