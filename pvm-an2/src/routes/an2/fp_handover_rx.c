/* fp_handover_rx.c — the peer's side of a failed VC: its stream taken from the daemon route. */
/* The receiver takes the PDUs a peer hands over (fp_handover_tx.c) as if from the VC
 * (duplicates dropped by sequence number), drops a message cut short (its sender resends it
 * whole by the daemon route, after the END), and daemon-route messages that must follow AN2
 * ones wait for the END. A peer that dies meanwhile sends no END: the pvmd's notice, asked for
 * when the VC failed (FP_TAG_GONE), ends the wait, and a message of its that was cut short is
 * then reported lost, as a receive error. */
#include "fp_handover_rx.h"

#include <pvm3.h>

#include "codec.h"
#include "errors.h"
#include "fp_order.h"
#include "fp_pair_fail.h"
#include "fp_peers.h"
#include "fp_rx.h"
#include "fp_state.h"
#include "msg.h"
#include "pvm_ids.h"

#include <stdlib.h>
#include <string.h>

#define HANDED_MAX (PDU_HDR_LEN + PDU_MAX_DATA)

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
