/* fp_route.c — the AN2 route's life and the operations table the core calls. */
/* Opening the endpoint and registering our tid, quiescing at exit, closing (an area still in
 * use by messages lingers until they are freed). The operations are the parts' own: sending
 * (fp_send.c), what arrived (fp_filter.c), progress (fp_progress.c), waiting (fp_wait.c), a
 * peer gone (fp_peer_gone.c); this file calls them, and they call nothing here. */
#include <pvm3.h>

#include "clock.h"
#include "errors.h"
#include "fp_filter.h"
#include "fp_handover_tx.h"
#include "fp_negotiate.h"
#include "fp_peer_gone.h"
#include "fp_progress.h"
#include "fp_reliable.h"
#include "fp_send.h"
#include "fp_state.h"
#include "fp_tx_desc.h"
#include "fp_wait.h"
#include "frag.h"
#include "lib_state.h"
#include "msg.h"
#include "route_providers.h"
#include "route_set.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define FP_AREA_SIZE (32u << 20)
#define TX_DRAIN_MS 3000             /* leaving: wait this long for our transmissions */
#define SAID_UNAVAILABLE 1u          /* route_keep.said: "unavailable" is logged once */

static int env_off(void)
{
	const char *v = getenv("PVM_AN2");
	return v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no"));
}

static void free_held(struct held **head)
{
	while (*head) {
		struct held *h = *head;
		*head = h->next;
		msg_free(h->m);
		free(h);
	}
}

/* Frees what the route holds besides itself (its endpoint closed first, if it has one). */
static void release(struct fp_route *r)
{
	if (r->ep)
		an2_close(r->ep);
	bufpool_destroy(r->pool);
	free(r->tx_recs);
	free(r->vc_peer);
}

/* Frees the closed routes whose pool blocks all came back. The list hangs off routes.c's
 * per-process keep (route.h): a closed route cannot hold it, and neither may a file static. */
static void release_lingering(struct route_keep *keep)
{
	struct fp_route *still = NULL, **tail = &still;
	for (struct fp_route *r = keep->lingering, *next; r; r = next) {
		next = r->next_lingering;
		if (bufpool_blocks_out(r->pool) != 0) {
			*tail = r;
			tail = &r->next_lingering;
		} else {
			release(r);
			free(r);
		}
	}
	*tail = NULL;
	keep->lingering = still;
}

/* Leaving: our transmissions done, within TX_DRAIN_MS, so that they reach a peer that reads
 * before pvmd tells it we have gone. Nothing is lost either way: an2d sends what a VC we close
 * still has queued (our endpoint lingers), and keeps a closed VC's route until the cells in
 * the switch have reached the peer. */
static void fp_quiesce(struct route *t)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep || r->quiesced)
		return;
	r->quiesced = 1;
	fp_handover_flush(r, NULL);   /* (failed VCs' streams go before TM_EXIT) */
	if (r->gone)
		return;
	long long end = lpvm_now_us() + TX_DRAIN_MS * 1000LL;
	if (r->pending_opens)
		fp_poll_vc_answers(r);   /* VCs the driver opened that we have not collected */
	while (r->tx_inflight > 0 && !r->gone) {
		if (lpvm_now_us() > end) {
			lpvm_log("AN2 fast path: %d PDUs not sent in %d ms (peers not receiving); "
			         "an2d sends them as the peers read", r->tx_inflight, TX_DRAIN_MS);
			return;
		}
		fp_route_progress(t);
		if (lpvm.daemon && fp_wait_others_due(t, 0))
			lpvm_daemon_progress();
		sched_yield();
	}
	/* a VC that needed recovery: its last PDUs acknowledged too (resent as needed), within the
	 * same time; then the peer hears how many we sent, so that it knows whether any is missing
	 * when our end goes (a VC without trouble is not waited for: a peer may not be reading) */
	while (fp_rel_leaving(r, 0) > 0 && !r->gone) {
		if (lpvm_now_us() > end) {
			lpvm_log("AN2 fast path: %d PDUs not acknowledged in %d ms: the peers may miss "
			         "them", fp_rel_leaving(r, 0), TX_DRAIN_MS);
			break;
		}
		fp_route_progress(t);
		fp_rel_service(r, 1);
		if (lpvm.daemon && fp_wait_others_due(t, 0))
			lpvm_daemon_progress();
		sched_yield();
	}
	fp_rel_leaving(r, 1);
}

static void fp_route_close(struct route *t)
{
	struct fp_route *r = fp_of(t);
	struct route_keep *keep = r->keep;
	if (!r->ep) {   /* the fast path was off: nothing was opened */
		free(r);
		return;
	}
	fp_quiesce(t);
	frag_set_allocator(r->old_alloc);
	for (int i = 0; i < 64; i++)
		while (r->peers[i]) {
			struct peer *p = r->peers[i];
			r->peers[i] = p->next;
			fp_rel_close(r, p);
			fp_handover_discard(r, p);
			free_held(&p->hd_head);
			free_held(&p->ha_head);
			free_held(&p->xh_head);
			msg_free(p->partial);
			free(p);
		}
	/* our VCs go now (peers see PEER_GONE after our last cells); the area stays mapped while
	 * messages still hold its blocks */
	for (uint32_t vc = 0; vc < r->max_vcs && !r->gone; vc++) {
		struct an2_vc_info vi;
		if (an2_vc_info(r->ep, (uint16_t)vc, &vi) == 0)
			an2_vc_close(r->ep, (uint16_t)vc);
	}
	/* what is still queued is an2d's to send now (the area stays mapped there): its blocks
	 * are no longer ours to wait for */
	fp_tx_hand_over(r);
	/* an endpoint kept open for messages we hold gives our tid up: it may be a new task's */
	if (!r->gone && bufpool_blocks_out(r->pool) != 0)
		an2_register_name(r->ep, 0);
	r->next_lingering = keep->lingering;
	keep->lingering = r;
	release_lingering(keep);
}

/* Sends the failed VCs' streams that had to wait while a route was being read. */
static int fp_route_flush(struct route *t)
{
	fp_handover_flush(fp_of(t), NULL);
	return 0;
}

/* A message from tid (-1: any) was lost: PvmSysErr, once (fp_order.c, fp_handover_rx.c). */
static int fp_route_recv_error(struct route *t, int tid)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep || !r->errors_pending)
		return 0;
	for (int i = 0; i < 64; i++)
		for (struct peer *p = r->peers[i]; p; p = p->next)
			if (p->error_pending && (tid == -1 || tid == p->tid)) {
				p->error_pending = 0;
				r->errors_pending--;
				return PvmSysErr;
			}
	return 0;
}

static const struct route_ops fp_ops = {
	.name = "an2",
	.send = fp_route_send,
	.carries = fp_route_carries,
	.progress = fp_route_progress,
	.others_due = fp_wait_others_due,
	.filter = fp_route_filter,
	.pollfds = fp_route_pollfds,
	.poll_ms_max = fp_wait_poll_ms_max,
	.idle = fp_wait_idle,
	.woke = fp_wait_woke,
	.busy = fp_wait_busy,
	.wait_over = fp_wait_over,
	.recv_error = fp_route_recv_error,
	.peer_failed = fp_route_peer_failed,
	.flush = fp_route_flush,
	.quiesce = fp_quiesce,
	.close = fp_route_close,
};

/* A route without an endpoint: the fast path is off or unavailable. It still answers a peer's
 * request for a VC (NAK), and passes every message to the pvmd route. */
static void set_off(struct fp_route *r, struct route_keep *keep)
{
	*r = (struct fp_route){ .route = { .ops = &fp_ops }, .keep = keep, .idle_since_us = -1 };
}

struct route *fp_route_open(struct route_keep *keep)
{
	release_lingering(keep);
	struct fp_route *r = calloc(1, sizeof *r);
	if (!r) {
		lpvm_log("AN2 fast path: out of memory: the pvmd route alone");
		return NULL;
	}
	set_off(r, keep);
	if (env_off())
		return &r->route;
	struct an2_open_params op = { .buf_size = FP_AREA_SIZE, .rx_slots = RX_POST_MAX };
	an2_ep *ep = NULL;
	int rc = an2_open(&op, &ep);
	if (rc == 0) {
		rc = an2_register_name(ep, (uint32_t)lpvm.mytid);
		if (rc != 0) {
			an2_close(ep);
			ep = NULL;
		}
	}
	if (ep) {
		r->ep = ep;
		r->max_vcs = an2_max_vcs(ep);
		r->rx_slots = an2_rx_slots(ep);
		r->vc_peer = calloc(r->max_vcs, sizeof *r->vc_peer);
		r->pool = bufpool_new(an2_buf_base(ep), an2_buf_size(ep));
	}
	if (!ep || !r->vc_peer || !r->pool || fp_tx_init(r, an2_tx_slots(ep) * 2) != 0) {
		if (!(keep->said & SAID_UNAVAILABLE)) {
			keep->said |= SAID_UNAVAILABLE;
			lpvm_log("AN2 fast path unavailable (%s%s%s): using the daemon route",
			         rc ? an2_strerror(rc) : "out of memory", rc ? ": " : "",
			         rc ? an2_error_detail() : "");
		}
		release(r);
		set_off(r, keep);
		return &r->route;
	}
	bufpool_set_reserve(r->pool, POOL_RESERVE);
	r->old_alloc = frag_set_allocator(bufpool_allocator(r->pool));
	if (lpvm.frag_size == 32768)   /* task.c's default, not one the user chose */
		lpvm.frag_size = (int)(PDU_MAX_DATA + 16 + MSGHDRLEN);   /* a fragment fills a PDU */
	r->active = 1;
	return &r->route;
}
