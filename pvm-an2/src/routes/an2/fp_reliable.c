/* fp_reliable.c — nothing lost on an open VC: sequence numbers, acks, selective repeat. */
/* Each direction of a VC numbers its DATA PDUs from 0. The receiver takes them in order: a
 * duplicate is dropped (and acknowledged), a later one is kept (its receive block) until those
 * before it have come, and a gap or a damaged PDU (CRC or length error) is answered by a NAK
 * naming the first PDU missing. Acknowledgements are cumulative, ride on the reverse DATA PDUs,
 * and otherwise go as an ACK PDU every ACK_EVERY PDUs taken, or when the receiver is about to
 * wait. The sender keeps every PDU's blocks referenced until acknowledged (REL_WINDOW PDUs and
 * REL_WINDOW_BYTES at most per VC) and resends the NAKed one alone (selective repeat). When its
 * retransmission timer expires it sends a PROBE, one cell, which the receiver answers with an
 * ACK (nothing missing: an ACK was lost) or a NAK (a lost tail, or a lost NAK), and a NAK that
 * answers a probe resends everything from the PDU it names on (go-back-N: a tail is lost whole):
 * a receiver that is only slow to post buffers gets no flood of resends behind the PDUs it has
 * not taken yet. The timer is looked at by the wait loops (progress, when it found no report)
 * and never arms a thread; it is armed at the first look after progress, so that the clean
 * path reads no clock per message. Every header field from the peer is checked
 * against what we sent or expect: nothing it sends can move us out of the window. */
#include "fp_route.h"

#include <arpa/inet.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ACK_EVERY 64u                /* PDUs taken before an ACK goes without reverse data, */
#define ACK_EVERY_BYTES (1u << 20)   /* or bytes (each a quarter of the sender's window) */
#define REL_CHECK_US 5000LL          /* the timers are looked at this often (at most) */
#define REL_RTO_MIN_US 50000LL       /* retransmission timeout after progress (three parties
                                      * share two cores: less fires spuriously); doubles */
#define REL_RTO_MAX_US 1000000LL     /* up to this */
#define REL_GIVE_UP_US 15000000LL    /* the peer takes our cells but acknowledges nothing: the
                                      * pair fails after this long */
#define NAK_REPEAT_US 10000LL        /* one NAK per missing PDU this often at most */
#define REL_LOG_US 1000000LL         /* one recovery log line per VC direction this often */

/* an2stat's copy of the counters it shows (relaxed: one writer, the numbers order nothing). */
void fp_rel_show(struct peer *p)
{
	struct an2_vc_host_stats *v = p->rel.shown;
	if (!v)
		return;
	__atomic_store_n(&v->resent, p->rel.resent, __ATOMIC_RELAXED);
	__atomic_store_n(&v->dups_dropped, p->rel.dups, __ATOMIC_RELAXED);
	__atomic_store_n(&v->recoveries, p->rel.recoveries, __ATOMIC_RELAXED);
}

int fp_rel_open(struct fp_route *r, struct peer *p)
{
	p->rel = (struct rel_state){ .rto_us = REL_RTO_MIN_US };
	p->rel.shown = r->ep && p->vc >= 0 ? an2_vc_host_stats(r->ep, (uint16_t)p->vc) : NULL;
	fp_rel_show(p);   /* (zero: the VC index may have served another peer) */
	p->rel.ring = calloc(REL_WINDOW, sizeof *p->rel.ring);
	p->rel.kept = calloc(REL_WINDOW, sizeof *p->rel.kept);
	if (p->rel.ring && p->rel.kept)
		return 0;
	free(p->rel.ring);
	free(p->rel.kept);
	p->rel.ring = NULL;
	p->rel.kept = NULL;
	return -1;
}

static int unacked(const struct rel_state *s)
{
	return s->tx_una != s->tx_next;
}

/* Lets the PDUs before `upto` go (their blocks come back once their descriptors' reports
 * have come too). upto - tx_una <= REL_WINDOW (checked by every caller). */
static void release_upto(struct fp_route *r, struct rel_state *s, uint32_t upto)
{
	for (unsigned i = 0; i < REL_WINDOW && s->tx_una != upto; i++) {
		struct rel_pdu *e = &s->ring[s->tx_una % REL_WINDOW];
		for (unsigned b = 0; b < e->nblocks; b++)
			bufpool_tx_unref(r->pool, e->blocks[b]);
		e->nblocks = e->nfrags = 0;
		if (e->marked) {
			e->marked = 0;
			s->marked--;
		}
		s->unacked_bytes -= e->bytes;
		s->tx_una++;
	}
}

void fp_rel_close(struct fp_route *r, struct peer *p)
{
	struct rel_state *s = &p->rel;
	if (!s->ring)
		return;
	if (unacked(s))
		r->rel_unacked_peers--;
	release_upto(r, s, s->tx_next);
	free(s->ring);
	s->ring = NULL;
	for (unsigned i = 0; s->nkept && i < REL_WINDOW; i++)
		if (s->kept[i].block) {
			bufpool_free(r->pool, s->kept[i].block);
			s->kept[i].block = NULL;
			s->nkept--;
		}
	free(s->kept);
	s->kept = NULL;
	/* (timeouts alone: a probe that found nothing missing, the peer merely slow, as on a
	 * busy machine; duplicates alone: the peer's timer fired early, and it says so itself) */
	if (s->resent || s->naks_in || s->bogus || s->damaged || s->out_of_order || s->naks_out)
		lpvm_log("AN2 fast path: VC %s with t%x: sent %llu PDUs, resent %llu (%llu NAKs, %llu "
		         "timeouts, %llu bad acks); took %llu, %llu damaged, %llu out of order, %llu "
		         "duplicates dropped, %llu NAKs sent",
		         p->addr, (unsigned)p->tid, (unsigned long long)s->sent,
		         (unsigned long long)s->resent, (unsigned long long)s->naks_in,
		         (unsigned long long)s->timeouts, (unsigned long long)s->bogus,
		         (unsigned long long)s->taken, (unsigned long long)s->damaged,
		         (unsigned long long)s->out_of_order, (unsigned long long)s->dups,
		         (unsigned long long)s->naks_out);
}

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
	if (!unacked(s)) {
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
static int send_ctl(struct fp_route *r, struct peer *p, enum pdu_kind kind)
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
static void pump(struct fp_route *r, struct peer *p)
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
static void resend(struct fp_route *r, struct peer *p, uint32_t from, int whole,
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
	pump(r, p);
}

/* A cumulative acknowledgement from the peer: every PDU before `ack` arrived. A value
 * behind the window is stale (from a resent PDU of the peer's) and ignored; one beyond what
 * we sent is bogus, counted and ignored. 1 if it lies in the window. */
static int take_ack(struct fp_route *r, struct peer *p, uint32_t ack)
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
	release_upto(r, s, ack);   /* (marked ones among them are not resent) */
	s->rto_us = REL_RTO_MIN_US;
	s->rto_at_us = 0;   /* armed again at the next look */
	s->probing = 0;
	if (!unacked(s))
		r->rel_unacked_peers--;
	return 1;
}

/* Something from the peer did not arrive right: NAK the first PDU missing (rate-limited;
 * the peer's timer covers a NAK that is lost) and log (rate-limited). */
static void rx_trouble(struct fp_route *r, struct peer *p, const char *what)
{
	struct rel_state *s = &p->rel;
	s->rx_gap = 1;
	long long now = lpvm_now_us();
	if (!s->nak_at_us || s->nak_for != s->rx_next || s->nak_damaged != (uint32_t)s->damaged ||
	    now - s->nak_at_us >= NAK_REPEAT_US) {   /* (a damaged PDU may be its resend) */
		if (send_ctl(r, p, PDU_NAK) == 0) {
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
		send_ctl(r, p, PDU_ACK);
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
	int in_window = take_ack(r, p, h->ack);
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
			send_ctl(r, p, PDU_ACK);   /* everything came: our ACK was lost */
		else if (missing <= REL_WINDOW)
			rx_trouble(r, p, "a probe after a lost tail");
		return 0;
	}
	if (h->kind == PDU_NAK) {
		s->naks_in++;
		if (in_window && h->ack != s->tx_next)   /* (after a probe: a lost tail, whole) */
			resend(r, p, h->ack, s->probing, h->an2_index,
			       s->probing ? "NAK after a probe" : "NAK");
		else if (in_window)
			send_ctl(r, p, PDU_ACK);   /* it has everything: say so (clears its doubt) */
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
			if (send_ctl(r, p, PDU_ACK) != 0) {
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

/* The retransmission timer of p, expired or not. */
static void timer(struct fp_route *r, struct peer *p, long long now)
{
	struct rel_state *s = &p->rel;
	if (!unacked(s))
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
	if (send_ctl(r, p, PDU_PROBE) != 0) {
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
			pump(r, p);
		if (p->state != PEER_OPEN)
			continue;
		resends |= p->rel.marked != 0;
		if (flush_acks && (p->rel.ack_owed || p->rel.ack_now))
			send_ctl(r, p, PDU_ACK);
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
		if (troubled && unacked(&p->rel))
			waiting += (int)(p->rel.tx_next - p->rel.tx_una);
		/* every peer hears what we took (nothing of its is handed over to a task that has
		 * gone) and how many we sent (a tail that never arrives is then reported there, not
		 * lost silently) */
		if (final)
			send_ctl(r, p, PDU_ACK);
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
		if (p && p->state == PEER_OPEN && unacked(&p->rel) && p->rel.rto_at_us < soonest)
			soonest = p->rel.rto_at_us;   /* (0, not armed yet: soon) */
	}
	long long ms = (soonest - now + 999) / 1000;
	return ms < 1 ? 1 : ms > 1000 ? 1000 : (int)ms;
}
