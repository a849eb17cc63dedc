/* fp_filter.c — what the AN2 route takes from the messages that arrived by any route. */
/* Its control messages from peers and the pvmd (FP_CTX), PvmTaskExit notices held until the
 * peer's AN2 stream has ended, and daemon-route messages held for per-sender order. */
#include "fp_filter.h"

#include <pvm3.h>

#include "codec.h"
#include "errors.h"
#include "fp_handover_rx.h"
#include "fp_negotiate.h"
#include "fp_order.h"
#include "fp_peers.h"
#include "fp_state.h"
#include "msg.h"
#include "pvm_ids.h"

/* A control message from a task through the daemon route (consumed): REQ, NAK, NOTE, and a
 * failed VC's PDU and END. */
static void control_message(struct fp_route *r, struct msg *m)
{
	if (m->tag == FP_TAG_PDU) {
		fp_handover_pdu(r, m);
		return;
	}
	int value = 0;
	msg_rewind(m);
	int bad = lpvm_unpack_int(m, &value) != 0;
	int src = m->src, tag = m->tag;
	msg_free(m);
	if (bad) {
		lpvm_log("AN2 fast path: malformed control message %d from t%x dropped", tag,
		         (unsigned)src);
		return;
	}
	if (tag == FP_TAG_REQ)
		fp_negotiate_req(r, src, value);
	else if (tag == FP_TAG_NAK)
		fp_negotiate_nak(r, src);
	else if (tag == FP_TAG_END)
		fp_handover_end_msg(r, src, value);
	else if (tag == FP_TAG_NOTE)
		fp_order_note(r, src, value);
	else
		lpvm_log("AN2 fast path: unknown control message %d from t%x dropped", tag,
		         (unsigned)src);
}

int fp_route_filter(struct route *t, struct msg *m)
{
	struct fp_route *r = fp_of(t);
	if (m->ctx == FP_CTX && TID_IS_TASK(m->src)) {
		control_message(r, m);
		return 1;
	}
	if (m->ctx == FP_CTX && m->tag == FP_TAG_GONE)   /* the pvmd's notice we asked for */
		return fp_handover_gone_notice(r, m);
	if (!r->ep)
		return 0;
	/* a pvmd's PvmTaskExit notice (the core tells them from a cancel's answer) about a peer
	 * whose VC is open waits for the end of its AN2 stream */
	struct peer *exited = TID_IS_TASK(m->gone_tid) ? fp_peer_find(r, m->gone_tid) : NULL;
	if (exited && exited->state == PEER_OPEN) {
		fp_order_hold_exit_notice(r, exited, m);
		return 1;
	}
	if (!TID_IS_TASK(m->src) || lpvm_is_sysctx(m->ctx))
		return 0;
	struct peer *p = fp_peer_find(r, m->src);
	if (!p || !p->req_seen)
		return 0;   /* its messages before its REQ: daemon route only, in order */
	fp_order_daemon_arrival(r, p, m);
	return 1;
}
