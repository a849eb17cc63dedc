/* note_reentry_check.c — white-box check that the AN2 route's NOTE goes by the pvmd route alone. */
/* After AN2 messages to a peer, a message that takes the pvmd route is announced by a NOTE
 * (routes/an2/fp_order.c), sent from inside the AN2 route's own send. It must go the way the
 * route's other control messages go, straight to the pvmd route: the core's send looks at
 * the input every few sends, and doing that from inside a route's send re-enters the routes
 * (their progress, deferred sends, a program's message handlers). A stand-in pvmd route
 * records what it is asked to send and counts every other call; the AN2 route gets one
 * peer whose VC is open, and PvmDontRoute keeps the messages off AN2, so each send needs a
 * NOTE. Needs no pvmd and no an2d. */
#include <pvm3.h>
#include <stdio.h>

#include "codec.h"
#include "fp_peers.h"
#include "fp_send.h"
#include "fp_state.h"
#include "lib_state.h"
#include "msg.h"
#include "route.h"

#define ME 0x40001
#define PEER 0x40002
#define SENDS 40
#define AN2_SENT 3

static int failures;
#define CHECK(c, what) do { if (!(c)) { failures++; fprintf(stderr, "note_reentry_check: FAIL %s\n", what); } } while (0)

/* ---- the stand-in pvmd route ---- */
static int notes, bad_notes, reentries;

static int fake_send(struct route *r, struct msg *m)
{
	(void)r;
	int value = -1;
	msg_rewind(m);
	if (m->dst == PEER && m->tag == FP_TAG_NOTE && m->ctx == FP_CTX && m->src == ME
	    && !lpvm_unpack_int(m, &value) && value == AN2_SENT)
		notes++;
	else
		bad_notes++;
	return 0;
}

/* Every other operation: the core entered the routes while the AN2 route was sending. */
static int fake_progress(struct route *r) { (void)r; reentries++; return 0; }
static int fake_carries(struct route *r, int tid) { (void)r; (void)tid; reentries++; return 0; }
static int fake_others_due(struct route *r, int ready) { (void)r; (void)ready; reentries++; return 1; }
static int fake_filter(struct route *r, struct msg *m) { (void)r; (void)m; reentries++; return 0; }
static int fake_pollfds(struct route *r, struct pollfd *fds, int max) { (void)r; (void)fds; (void)max; reentries++; return 0; }
static int fake_poll_ms_max(struct route *r) { (void)r; reentries++; return 0; }
static int fake_idle(struct route *r, long long deadline_us, int *look) { (void)r; (void)deadline_us; (void)look; reentries++; return 0; }
static void fake_hook(struct route *r) { (void)r; reentries++; }
static int fake_recv_error(struct route *r, int tid) { (void)r; (void)tid; reentries++; return 0; }
static int fake_peer_failed(struct route *r, int tid) { (void)r; (void)tid; reentries++; return 0; }
static int fake_flush(struct route *r) { (void)r; reentries++; return 0; }

static const struct route_ops fake_ops = {
	.name = "fake pvmd", .send = fake_send, .carries = fake_carries, .progress = fake_progress,
	.others_due = fake_others_due, .filter = fake_filter, .pollfds = fake_pollfds,
	.poll_ms_max = fake_poll_ms_max, .idle = fake_idle, .woke = fake_hook, .busy = fake_hook,
	.wait_over = fake_hook, .recv_error = fake_recv_error, .peer_failed = fake_peer_failed,
	.flush = fake_flush, .quiesce = fake_hook, .close = fake_hook,
};
static struct route fake = { .ops = &fake_ops };

/* ---- the AN2 route, by hand: an endpoint it never touches on this path, one open peer ---- */
static struct fp_route an2;
static char endpoint_stand_in;

int main(void)
{
	lpvm.mytid = ME;
	lpvm.daemon = lpvm.routes[0] = &fake;
	lpvm.nroutes = 1;
	lpvm.route_opt = PvmDontRoute;
	an2.ep = (an2_ep *)(void *)&endpoint_stand_in;
	an2.active = 1;
	struct peer *p = fp_peer_get(&an2, PEER);
	CHECK(p != NULL, "no peer");
	if (!p)
		return 1;
	p->state = PEER_OPEN;
	p->req_sent = 1;
	p->an2_sent = AN2_SENT;

	for (int i = 0; i < SENDS; i++) {
		struct msg *m = msg_new(ENC_XDR);
		CHECK(m != NULL, "out of memory");
		if (!m)
			break;
		m->dst = PEER;
		m->tag = 1;
		m->ctx = PvmBaseContext;
		m->src = ME;
		CHECK(fp_route_send(&an2.route, m) == ROUTE_PASS, "the message did not pass to the pvmd route");
		msg_free(m);
	}
	CHECK(notes == SENDS, "not every message was announced by a NOTE to the pvmd route");
	CHECK(bad_notes == 0, "the pvmd route was asked to send something other than the NOTE");
	CHECK(reentries == 0, "the routes were re-entered while the AN2 route was sending");
	CHECK(p->dmn_sent == SENDS, "the daemon-route messages were not counted");

	lpvm.nroutes = 0;
	lpvm.daemon = lpvm.routes[0] = NULL;
	printf("note_reentry_check: %s (%d NOTEs, %d re-entries)\n", failures ? "FAILED" : "ok", notes,
	       reentries);
	return failures ? 1 : 0;
}
