/* fp_handover_tx.c — our side of a failed VC: its stream finished over the daemon route. */
/* When a pair's VC fails (an2d gone, a link cut, a peer silent for 15 s, a protocol error),
 * each side sends the other, by the daemon route and in order, every PDU of a whole message
 * that the other has not acknowledged (FP_TAG_PDU), then END with the number after the last;
 * while we wait for the peer's own END, we ask the pvmd for the notice of its exit
 * (FP_TAG_GONE), which ends that wait should it die (fp_handover_rx.c). The VC fails while a
 * route is being read: its PDUs are copied then, and sent from the next flush (where no route
 * is being read), or before the next message to that peer. */
#include "fp_handover_tx.h"

#include <pvm3.h>

#include "codec.h"
#include "errors.h"
#include "fp_daemon_msg.h"
#include "fp_state.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"

#include <stdlib.h>
#include <string.h>

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
