/* Task-control (TC_*) messages: refuse direct routes, record siblings, change tracing; and
 * the notices of tasks and hosts gone, passed on to the routes (notices.c). */
#include "control.h"

#include <pvm3.h>
#include <pvmproto.h>
#include <stdlib.h>

#include "codec.h"
#include "errors.h"
#include "lib_state.h"
#include "mhf.h"
#include "msg.h"
#include "notices.h"
#include "route_set.h"
#include "trace.h"
#include "trace_control.h"

/* Replies produced while a route is delivering; sent by control_flush() afterwards so a
 * route is never re-entered. */
#define MAX_PENDING 64
static struct msg *pending[MAX_PENDING];
static int npending;
/* Task-control messages read while the task joins (before the pvmd's TM_CONN2 reply gave our
 * tid): handled once it has joined (control_joined), as stock reads them only then, its
 * handlers installed and its tracing set. */
static struct msg *early[MAX_PENDING];
static int nearly;

/* TC_CONREQ: a peer (stock library with PvmRouteDirect) asks for a direct socket. We only
 * have the daemon route here, so we answer TC_CONACK with ack = 1 (denied); the peer then
 * keeps sending through the pvmds. */
static void refuse_direct_route(struct msg *req)
{
	if (npending == MAX_PENDING) {
		lpvm_log("too many pending control replies; direct route request of t%x ignored",
		         (unsigned)req->src);
		return;
	}
	struct msg *r = msg_new(ENC_XDR);
	if (!r)
		return;
	if (lpvm_pack_int(r, TDPROTOCOL) || lpvm_pack_int(r, 1) || lpvm_pack_str(r, "")) {
		msg_free(r);
		return;
	}
	if (lpvm.debug_mask)
		lpvm_log("refused a direct route to t%x: we open no TCP direct routes",
		         (unsigned)req->src);
	r->dst = req->src;
	r->tag = TC_CONACK;
	r->ctx = SYSCTX_TC;
	pending[npending++] = r;
}

static void record_siblings(struct msg *m)
{
	int n;
	if (lpvm_unpack_int(m, &n) || n < 0 || n > 1 << 20) {
		lpvm_log("malformed TC_SIBLINGS from t%x ignored", (unsigned)m->src);
		return;
	}
	if (lpvm_trc.system_handler_traced)   /* as stock's handler's pvm_upkint calls */
		trc_handler_upkint(&lpvm.nsibs, 1, 0);
	int *tids = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!tids || lpvm_unpack(m, PVM_INT, tids, n, 1)) {
		free(tids);
		lpvm_log("malformed TC_SIBLINGS from t%x ignored", (unsigned)m->src);
		return;
	}
	if (lpvm_trc.system_handler_traced && n > 0)
		trc_handler_upkint(tids, n, 0);
	free(lpvm.sib_tids);
	lpvm.sib_tids = tids;
	lpvm.nsibs = n;
}

static int handle(struct msg *m)
{
	if (lpvm.mytid == -1 && m->ctx == SYSCTX_TC && nearly < MAX_PENDING) {
		early[nearly++] = m;
		return 1;
	}
	if (m->gone_tid)   /* the application gets the notice: the routes hear of it too */
		lpvm_notice_delivered(m->gone_tid);
	if (mhf_claim(m))
		return 1;   /* a message handler's (pvm_addmhf, pvm_catchout) */
	if (m->ctx != SYSCTX_TC)
		return 0;
	switch (m->tag) {
	case TC_CONREQ:
		refuse_direct_route(m);
		break;
	case TC_SIBLINGS:
		record_siblings(m);
		break;
	case TC_CONACK:     /* we never ask for direct routes */
	case TC_TASKEXIT:   /* only meaningful with direct routes */
	case TC_SETTRACE: case TC_SETTMASK: case TC_SETTRCBUF: case TC_SETTRCOPT:
		trc_control(m);
		break;
	case TC_NOOP:
	case TC_OUTPUT: case TC_OUTPUTX:   /* pvm_catchout's handlers take these when on */
		break;
	default:
		lpvm_log("unknown control message %d from t%x ignored", m->tag, (unsigned)m->src);
		break;
	}
	msg_free(m);
	return 1;
}

int control_handle(struct msg *m)
{
	if (!trc_armed())   /* every message comes here: untraced, nothing to hold or clear */
		return handle(m);
	trc_hold(1);   /* a handler's trace events wait for control_flush: a route is being read */
	int taken = handle(m);
	trc_hold(0);
	lpvm_trc.system_handler_traced = 0;
	return taken;
}

int control_flush(void)
{
	int cc = 0;
	while (npending > 0 && !cc) {
		struct msg *r = pending[0];
		for (int i = 1; i < npending; i++)
			pending[i - 1] = pending[i];
		npending--;
		if (lpvm.daemon)
			cc = lpvm_daemon_send(r);
		msg_free(r);
	}
	trc_send_held();   /* trace events of the handlers that ran while a route was read */
	trc_control_flush();   /* a new tracer: the pvmd hears of it too */
	lpvm_notices_flush();   /* tasks and hosts gone: every route drops what it keeps of them */
	lpvm_routes_flush();
	mhf_run_pending();   /* no route is being read here: program handlers may call PVM */
	return cc;
}

void control_joined(void)
{
	for (int i = 0; i < nearly; i++)
		control_handle(early[i]);
	nearly = 0;
	control_flush();
}

void control_reset(void)
{
	while (nearly > 0)
		msg_free(early[--nearly]);
	while (npending > 0)
		msg_free(pending[--npending]);
	lpvm_notices_clear();
}
