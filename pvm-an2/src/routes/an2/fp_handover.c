/* fp_handover.c — a failed VC's stream finished over the daemon route, so that nothing is lost. */
/* When a pair's VC fails (an2d gone, a link cut, a peer silent for 15 s, a protocol error),
 * each side sends the other, by the daemon route and in order, every PDU of a whole message
 * that the other has not acknowledged (FP_TAG_PDU), then END with the number after the last.
 * The receiver takes them as if from the VC (duplicates dropped by sequence number), drops a
 * message cut short (its sender resends it whole by the daemon route, after the END), and
 * daemon-route messages that must follow AN2 ones wait for the END. A peer that dies meanwhile
 * sends no END: the pvmd's notice, asked for when the VC failed (FP_TAG_GONE), ends the wait,
 * and a message of its that was cut short is then reported lost, as a receive error. The VC
 * fails while a route is being read: its PDUs are copied then, and sent from the next flush
 * (where no route is being read), or before the next message to that peer. */
#include "fp_route.h"

#include <stdlib.h>
#include <string.h>

#define HANDED_MAX (PDU_HDR_LEN + PDU_MAX_DATA)

/* One PDU to hand over, as it went on the VC (header in network byte order first). */
struct handed {
	struct handed *next;
	uint32_t len;
	char pdu[];
};

void fp_handover_capture(struct fp_route *r, struct peer *p)
{
	const struct rel_state *s = &p->rel;
	const char *base = an2_buf_base(r->ep);
	/* whole messages only: one this side was still sending goes whole by the daemon route */
	uint32_t end = s->tx_una, copied = 0;
	for (uint32_t seq = s->tx_una; seq != s->tx_next; seq++) {
		const struct rel_pdu *e = &s->ring[seq % REL_WINDOW];
		struct pdu_hdr h;
		if (e->nfrags && e->frags[0].length >= PDU_HDR_LEN) {
			memcpy(&h, base + e->frags[0].offset, sizeof h);
			if (h.flags & PDU_EOM)
				end = seq + 1;
		}
	}
	struct handed **tail = &p->handed;
	for (uint32_t seq = s->tx_una; seq != end; seq++, copied++) {
		const struct rel_pdu *e = &s->ring[seq % REL_WINDOW];
		struct handed *h = malloc(sizeof *h + e->bytes);
		if (!h)
			break;   /* (the peer then finds them missing at the END, and says so) */
		h->next = NULL;
		h->len = 0;
		for (unsigned i = 0; i < e->nfrags; i++) {
			memcpy(h->pdu + h->len, base + e->frags[i].offset, e->frags[i].length);
			h->len += e->frags[i].length;
		}
		*tail = h;
		tail = &h->next;
	}
	if (copied != end - s->tx_una)
		lpvm_log("AN2 fast path: out of memory: %u PDUs to t%x that its VC may not have "
		         "delivered are lost", (unsigned)(end - s->tx_una - copied), (unsigned)p->tid);
	p->handed_end = end;
	p->handover_due = 1;
	r->handovers_due++;
}

/* The pvmd's PvmTaskExit notice about p, in our context (at once if it has gone already). */
static int watch(const struct peer *p)
{
	struct msg *m = msg_new(ENC_XDR);
	int cc = m ? lpvm_pack_int(m, PvmTaskExit) : PvmNoMem;
	if (!cc) cc = lpvm_pack_int(m, FP_CTX);
	if (!cc) cc = lpvm_pack_int(m, FP_TAG_GONE);
	if (!cc) cc = lpvm_pack_int(m, 1);
	if (!cc) cc = lpvm_pack_int(m, p->tid);
	if (!cc)
		cc = fp_daemon_send(m, TIDPVMD, TM_NOTIFY, SYSCTX_TM);
	msg_free(m);
	return cc;
}

static void hand_over(struct fp_route *r, struct peer *p)
{
	p->handover_due = 0;
	r->handovers_due--;
	int cc = 0;
	unsigned n = 0, lost = 0;
	while (p->handed) {
		struct handed *h = p->handed;
		p->handed = h->next;
		if (cc >= 0) {
			struct msg *m = msg_new(ENC_XDR);
			cc = m ? lpvm_pack_int(m, (int)h->len) : PvmNoMem;
			if (!cc)
				cc = lpvm_pack(m, PVM_BYTE, h->pdu, (int)h->len, 1);
			if (!cc)
				cc = fp_daemon_send(m, p->tid, FP_TAG_PDU, FP_CTX);
			msg_free(m);
		}
		if (cc >= 0)
			n++;
		else
			lost++;
		free(h);
	}
	if (cc >= 0)
		cc = fp_send_ctl(p->tid, FP_TAG_END, (int)p->handed_end);
	if (cc >= 0 && p->await_end)
		cc = watch(p);
	if (cc < 0)
		lpvm_log("AN2 fast path: the daemon route failed too (%d) handing VC %s's stream to "
		         "t%x over: %u PDUs lost", cc, p->addr, (unsigned)p->tid, lost);
	else if (n)
		lpvm_log("AN2 fast path: VC %s to t%x failed: the %u PDUs it had not acknowledged "
		         "went by the daemon route", p->addr, (unsigned)p->tid, n);
}

void fp_handover_flush(struct fp_route *r, struct peer *only)
{
	if (!r->handovers_due || lpvm.exiting)
		return;   /* (leaving: after TM_EXIT nothing more goes; the quiesce flushed) */
	if (only) {
		if (only->handover_due)
			hand_over(r, only);
		return;
	}
	for (int i = 0; i < 64 && r->handovers_due; i++)
		for (struct peer *p = r->peers[i]; p; p = p->next)
			if (p->handover_due)
				hand_over(r, p);
}

int fp_route_flush(struct route *t)
{
	fp_handover_flush(fp_of(t), NULL);
	return 0;
}

void fp_handover_discard(struct fp_route *r, struct peer *p)
{
	if (p->handover_due) {
		p->handover_due = 0;
		r->handovers_due--;
	}
	while (p->handed) {
		struct handed *h = p->handed;
		p->handed = h->next;
		free(h);
	}
}

/* The stream from p has ended: by its END (end: the number after its last PDU) or by its
 * death (end NULL). What is missing then is reported as a receive error. */
void fp_handover_end(struct fp_route *r, struct peer *p, const uint32_t *end)
{
	if (!p->await_end)
		return;
	p->await_end = 0;
	uint32_t missing = end ? *end - p->rel.rx_next : 0;
	int lost = p->handed_gap || (end && missing != 0 && missing < 0x80000000u) ||
	           (!end && (p->partial || p->rel.rx_gap));
	if (lost) {
		lpvm_log("AN2 fast path: t%x %s with a message to us on its way: the next receive "
		         "from it fails", (unsigned)p->tid,
		         end ? "handed its failed VC's stream over" : "exited");
		if (!p->error_pending) {
			p->error_pending = 1;
			r->errors_pending++;
		}
	}
	p->handed_gap = 0;
	msg_free(p->partial);   /* (with an END: cut short, and resent whole after it) */
	p->partial = NULL;
	fp_order_release(r, p, 1);
}

/* The peer's VC failed on its side first: ours goes too (and our stream to it is handed over). */
static struct peer *peer_for_handover(struct fp_route *r, int tid)
{
	struct peer *p = r->ep ? fp_peer_find(r, tid) : NULL;
	if (p && p->state == PEER_OPEN)
		fp_peer_fail(r, p, "the peer's end of the VC failed");
	if (p && p->await_end)
		return p;
	/* Leaving, we closed our VCs ourselves: a peer that saw its end go hands its stream over
	 * and ends it with END, which is no news to us (stock says nothing either) */
	if (r->quiesced)
		return NULL;
	lpvm_log("AN2 fast path: a handed-over PDU or END from t%x, which has no failed VC with "
	         "us: dropped", (unsigned)tid);
	return NULL;
}

void fp_handover_pdu(struct fp_route *r, struct msg *m)
{
	struct peer *p = peer_for_handover(r, m->src);
	int len = 0;
	char *pdu = NULL;
	msg_rewind(m);
	if (p && (lpvm_unpack_int(m, &len) != 0 || len < (int)PDU_HDR_LEN || len > (int)HANDED_MAX ||
	          !(pdu = malloc((size_t)len)) || lpvm_unpack(m, PVM_BYTE, pdu, len, 1) != 0)) {
		lpvm_log("AN2 fast path: a malformed handed-over PDU from t%x", (unsigned)m->src);
		p->handed_gap = 1;
	} else if (p) {
		struct pdu_hdr h;
		memcpy(&h, pdu, sizeof h);
		fp_hdr_to_host(&h);
		uint32_t ahead = h.seq - p->rel.rx_next, dl = (uint32_t)len - PDU_HDR_LEN;
		const char *why = NULL;
		if (h.magic != FP_PDU_MAGIC || h.kind != PDU_DATA)
			why = "a handed-over PDU with a bad header";
		else if (ahead != 0 && ahead < 0x80000000u)
			why = "a gap in the handed-over PDUs";
		if (!why && ahead == 0) {   /* (behind: a duplicate of one taken from the VC) */
			p->rel.rx_next++;
			p->rel.taken++;
			struct frag *f = dl ? fp_rx_copy_frag(r, pdu + PDU_HDR_LEN, dl) : NULL;
			why = dl && !f ? "out of memory" : fp_rx_assemble(r, p, &h, f);
		}
		if (why) {
			lpvm_log("AN2 fast path: %s from t%x", why, (unsigned)p->tid);
			p->handed_gap = 1;
		}
	}
	free(pdu);
	msg_free(m);
}

void fp_handover_end_msg(struct fp_route *r, int src, int value)
{
	struct peer *p = peer_for_handover(r, src);
	uint32_t end = (uint32_t)value;
	if (p)
		fp_handover_end(r, p, &end);
}

int fp_handover_gone_notice(struct fp_route *r, struct msg *m)
{
	int tid = 0;
	msg_rewind(m);
	if (lpvm_unpack_int(m, &tid) == 0 && TID_IS_TASK(tid)) {
		struct peer *p = r->ep ? fp_peer_find(r, tid) : NULL;
		if (p)
			fp_handover_end(r, p, NULL);
	}
	msg_free(m);
	return 1;
}
