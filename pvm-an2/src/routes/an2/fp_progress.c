/* fp_progress.c — the AN2 route's progress: the report ring read, each report to its part. */
/* Transmit reports give blocks back (fp_tx_desc.c), receive reports bring PDUs (fp_rx.c), a VC
 * report ends a pair; then resends and timers, held exit notices, VCs opened meanwhile, and the
 * loss of an2d. The report ring is read without a system call. */
#include "fp_progress.h"

#include "errors.h"
#include "fp_negotiate.h"
#include "fp_order.h"
#include "fp_pair_fail.h"
#include "fp_reliable.h"
#include "fp_rx.h"
#include "fp_state.h"
#include "fp_tx_desc.h"

#include <errno.h>

static void report(struct fp_route *r, const struct an2_report *rep)
{
	if (rep->kind == AN2_REPORT_TX) {
		fp_tx_complete(r, rep->cookie);
		return;
	}
	struct peer *p = rep->vc < r->max_vcs ? r->vc_peer[rep->vc] : NULL;
	if (rep->kind == AN2_REPORT_VC) {
		/* an2d reports the peer's end gone after every cell it sent has arrived. In the
		 * middle of a message, the peer lives and hands the rest over by the daemon route
		 * (its VC failed) or it died (the message is lost: fp_handover_rx.c). Between messages
		 * (it left, or was killed while idle) the pair falls back quietly, and PvmTaskExit
		 * tells the application as with stock PVM. */
		int died = p && (p->partial || p->rel.rx_gap);
		if (p && rep->status == AN2_STATUS_PEER_GONE)
			fp_peer_fail(r, p, died ? "the peer's end vanished" : NULL);
		return;
	}
	fp_rx_report(r, p, rep);
}

/* an2d vanished: every pair goes back to the daemon route with an error. */
static void route_gone(struct fp_route *r, const char *why)
{
	if (r->gone)
		return;
	lpvm_log("AN2 fast path: an2d gone (%s): every peer back to the daemon route", why);
	r->gone = 1;
	for (int i = 0; i < 64; i++)
		for (struct peer *p = r->peers[i]; p; p = p->next)
			if (p->state == PEER_OPEN || p->state == PEER_PENDING)
				fp_peer_fail(r, p, "an2d vanished");
	r->active = 0;
}

int fp_route_progress(struct route *t)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep || r->gone)
		return 0;
	int errors_before = r->errors_pending;
	struct an2_report reps[32];
	int n, total = 0;
	while ((n = an2_poll(r->ep, reps, 32)) > 0) {
		r->report_batch++;
		for (int i = 0; i < n; i++)
			report(r, &reps[i]);
		total += n;
		if (total >= 256)
			break;
	}
	if (r->resend_pending || (r->rel_unacked_peers && total == 0))
		fp_rel_service(r, 0);   /* resends waiting for room; the retransmission timers when
		                         * nothing came (while reports come, things move) */
	if (r->exit_notices_held)
		fp_order_exit_notices_check(r);
	/* (ready & 2: the core's poll() found an2d's socket, fp_route_pollfds' fds[1], ready) */
	if (r->pending_opens || r->check_ctl || (r->route.ready & 2)) {
		r->check_ctl = 0;
		int cc = fp_poll_vc_answers(r);
		if (cc == -ECONNRESET || cc == -EPIPE || cc == -EPROTO)
			route_gone(r, an2_strerror(cc));
	}
	/* a message lost meanwhile counts as an event: the receive that waits for it must look
	 * (lpvm_routes_recv_error) rather than sleep on for a message that will never come */
	return fp_order_delivered(r) + (r->errors_pending > errors_before);
}

int fp_route_pollfds(struct route *t, struct pollfd *fds, int max)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep || r->gone || max < 2)
		return 0;
	fds[0] = (struct pollfd){ .fd = an2_irq_fd(r->ep), .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = an2_ctl_fd(r->ep), .events = POLLIN };
	return 2;
}
