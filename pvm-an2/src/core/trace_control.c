/* The task-control messages that change tracing while a task runs (a tracer that starts,
 * the console's trace command): TC_SETTRACE { trace tid, ctx, tag, output tid, ctx, tag,
 * mask, buffer, options }, TC_SETTMASK { mask }, TC_SETTRCBUF { buffer }, TC_SETTRCOPT
 * { options }. As stock, a malformed value is logged and cleared, never applied. */
#include "trace_control.h"

#include <pvm3.h>
#include <pvmproto.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "trace.h"

/* what the pvmd must still be told (TM_SETOPT), once no route is being read */
static struct { int trace_tid, output_tid, tell_trace, tell_output; } pending;

static int nonneg_or_zero(int v, const char *what, int from)
{
	if (v >= 0)
		return v;
	lpvm_log("bogus trace %s %d from t%x: 0 instead", what, v, (unsigned)from);
	return 0;
}

static void set_trace(struct msg *m)
{
	int v[6], tbuf = 0, topt = 0;
	char *mask = NULL;
	if (lpvm_unpack(m, PVM_INT, v, 6, 1) || lpvm_unpack_str_alloc(m, &mask) ||
	    lpvm_unpack_int(m, &tbuf) || lpvm_unpack_int(m, &topt)) {
		lpvm_log("malformed TC_SETTRACE from t%x ignored", (unsigned)m->src);
		free(mask);
		return;
	}
	if (v[0]) {
		lpvm.self_trc_ctx = lpvm.trc_ctx = v[1];
		lpvm.self_trc_tag = lpvm.trc_tag = v[2];
		lpvm.self_trc_tid = lpvm.trc_tid = v[0];
		pending.trace_tid = v[0];
		pending.tell_trace = 1;
		if (trc_mask_valid(mask)) {
			memcpy(lpvm_trc.mask, mask, TEV_MASK_LENGTH);
		} else {
			trc_mask_clear(lpvm_trc.mask);
			lpvm_log("bogus trace mask from t%x: cleared", (unsigned)m->src);
		}
		memcpy(lpvm_trc.child_mask, lpvm_trc.mask, TEV_MASK_LENGTH);
		lpvm.self_trc_buf = nonneg_or_zero(tbuf, "buffering", m->src);
		lpvm.self_trc_opt = nonneg_or_zero(topt, "options", m->src);
	}
	free(mask);
	if (v[3]) {
		lpvm.self_out_ctx = lpvm.out_ctx = v[4];
		lpvm.self_out_tag = lpvm.out_tag = v[5];
		lpvm.self_out_tid = lpvm.out_tid = v[3];
		pending.output_tid = v[3];
		pending.tell_output = 1;
	}
	trc_rearm();
	lpvm_state_changed();
}

void trc_control(struct msg *m)
{
	int v;
	char *mask = NULL;
	switch (m->tag) {
	case TC_SETTRACE:
		set_trace(m);
		break;
	case TC_SETTMASK:
		if (lpvm_unpack_str_alloc(m, &mask) || !trc_mask_valid(mask))
			lpvm_log("bogus trace mask from t%x ignored", (unsigned)m->src);
		else
			memcpy(lpvm_trc.mask, mask, TEV_MASK_LENGTH);
		free(mask);
		break;
	case TC_SETTRCBUF:
		if (lpvm_unpack_int(m, &v))
			lpvm_log("malformed TC_SETTRCBUF from t%x ignored", (unsigned)m->src);
		else
			lpvm.self_trc_buf = nonneg_or_zero(v, "buffering", m->src);
		break;
	case TC_SETTRCOPT:
		if (lpvm_unpack_int(m, &v))
			lpvm_log("malformed TC_SETTRCOPT from t%x ignored", (unsigned)m->src);
		else
			lpvm.self_trc_opt = nonneg_or_zero(v, "options", m->src);
		break;
	default:
		break;
	}
}

void trc_control_flush(void)
{
	if (pending.tell_trace) {
		pending.tell_trace = 0;
		if (lpvm_tell_pvmd_opt(TS_TRCTID, pending.trace_tid) < 0)
			lpvm_log("could not tell the pvmd of tracer t%x", (unsigned)pending.trace_tid);
	}
	if (pending.tell_output) {
		pending.tell_output = 0;
		if (lpvm_tell_pvmd_opt(TS_OUTTID, pending.output_tid) < 0)
			lpvm_log("could not tell the pvmd of output to t%x", (unsigned)pending.output_tid);
	}
}
