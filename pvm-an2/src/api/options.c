/* pvm_getopt / pvm_setopt: every option of <pvm3.h>, values kept as stock keeps them. */

#include <stdio.h>
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "trace.h"

static int getopt_untraced(int what)
{
	switch (what) {
	case PvmRoute: return lpvm.route_opt;
	case PvmDebugMask: return lpvm.debug_mask;
	case PvmAutoErr: return lpvm.autoerr;
	case PvmOutputTid: return lpvm.out_tid;
	case PvmOutputContext: return lpvm.out_ctx;
	case PvmOutputCode: return lpvm.out_tag;
	case PvmTraceTid: return lpvm.trc_tid;
	case PvmTraceContext: return lpvm.trc_ctx;
	case PvmTraceCode: return lpvm.trc_tag;
	case PvmTraceBuffer: return lpvm.trc_buf;
	case PvmTraceOptions: return lpvm.trc_opt;
	case PvmFragSize: return lpvm.frag_size;
	case PvmResvTids: return lpvm.resv_tids;
	case PvmSelfOutputTid: return lpvm.self_out_tid;
	case PvmSelfOutputContext: return lpvm.self_out_ctx;
	case PvmSelfOutputCode: return lpvm.self_out_tag;
	case PvmSelfTraceTid: return lpvm.self_trc_tid;
	case PvmSelfTraceContext: return lpvm.self_trc_ctx;
	case PvmSelfTraceCode: return lpvm.self_trc_tag;
	case PvmSelfTraceBuffer: return lpvm.self_trc_buf;
	case PvmSelfTraceOptions: return lpvm.self_trc_opt;
	case PvmShowTids: return lpvm.show_tids;
	case PvmNoReset: return lpvm.no_reset;
	case PvmPollType: case PvmPollTime:
		return lpvm_error("pvm_getopt", PvmNotImpl);
	default:
		return lpvm_error("pvm_getopt", PvmBadParam);
	}
}

/* PvmNoReset: a task that survives a console reset says so with an entry (its tid) in the
 * PVMNORESETCLASS mailbox, as stock does; clearing the option removes the entry. */
static int no_reset_entry(int on)
{
	static int index = -1;
	if (on && index < 0) {
		int mid = pvm_mkbuf(PvmDataDefault);
		if (mid < 0)
			return mid;
		int me = lpvm.mytid;
		int cc = lpvm_pack_int(msg_lookup(mid), me);
		if (!cc)
			cc = pvm_putinfo(PVMNORESETCLASS, mid, PvmMboxMultiInstance);
		pvm_freebuf(mid);
		if (cc < 0)
			return cc;
		index = cc;
	} else if (!on && index >= 0) {
		int cc = pvm_delinfo(PVMNORESETCLASS, index, PvmMboxDefault);
		index = -1;
		if (cc < 0)
			return cc;
	}
	return 0;
}

static int set_int(int *slot, int val)
{
	int old = *slot;
	*slot = val;
	return old;
}

static int trace_option_ok(int val)
{
	return val == PvmTraceFull || val == PvmTraceTime || val == PvmTraceCount;
}

static int setopt_untraced(int what, int val)
{
	int cc;
	switch (what) {
	case PvmRoute:
		if (val != PvmDontRoute && val != PvmAllowDirect && val != PvmRouteDirect)
			break;
		return set_int(&lpvm.route_opt, val);
	case PvmDebugMask: return set_int(&lpvm.debug_mask, val);
	case PvmAutoErr:
		lpvm.leave = pvm_exit;   /* (errors.c leaves with it when val is 2) */
		return set_int(&lpvm.autoerr, val);
	case PvmOutputTid: return set_int(&lpvm.out_tid, val);
	case PvmOutputContext: return set_int(&lpvm.out_ctx, val);
	case PvmOutputCode: return set_int(&lpvm.out_tag, val);
	case PvmTraceTid: return set_int(&lpvm.trc_tid, val);
	case PvmTraceContext: return set_int(&lpvm.trc_ctx, val);
	case PvmTraceCode: return set_int(&lpvm.trc_tag, val);
	case PvmTraceBuffer: return set_int(&lpvm.trc_buf, val);
	case PvmTraceOptions:
		if (!trace_option_ok(val))
			break;
		return set_int(&lpvm.trc_opt, val);
	case PvmFragSize:
		if (val < 16 + MSGHDRLEN + 4 || val > 1048576)
			break;
		return set_int(&lpvm.frag_size, val);
	case PvmResvTids: return set_int(&lpvm.resv_tids, val);
	case PvmSelfOutputTid:
	case PvmSelfOutputCode:
	case PvmSelfTraceTid:
	case PvmSelfTraceCode: {
		static const int ts[] = { [PvmSelfOutputTid] = TS_OUTTID, [PvmSelfOutputCode] = TS_OUTTAG,
		                          [PvmSelfTraceTid] = TS_TRCTID, [PvmSelfTraceCode] = TS_TRCTAG };
		if ((cc = lpvm_tell_pvmd_opt(ts[what], val)) < 0)
			return lpvm_error("pvm_setopt", cc);
		int *slot = what == PvmSelfOutputTid ? &lpvm.self_out_tid
		          : what == PvmSelfOutputCode ? &lpvm.self_out_tag
		          : what == PvmSelfTraceTid ? &lpvm.self_trc_tid : &lpvm.self_trc_tag;
		int old = set_int(slot, val);
		lpvm.out_tid = lpvm.self_out_tid;
		lpvm.out_tag = lpvm.self_out_tag;
		lpvm.trc_tid = lpvm.self_trc_tid;
		lpvm.trc_tag = lpvm.self_trc_tag;
		trc_rearm();
		lpvm_state_changed();
		return old;
	}
	case PvmSelfOutputContext:
	case PvmSelfTraceContext:
		return lpvm_error("pvm_setopt", PvmNotImpl);
	case PvmSelfTraceBuffer:
		trc_flush();   /* what is buffered goes out under the old size */
		return set_int(&lpvm.self_trc_buf, val);
	case PvmSelfTraceOptions:
		if (!trace_option_ok(val))
			break;
		trc_flush();   /* the events or the summary so far go out under the old option */
		return set_int(&lpvm.self_trc_opt, val);
	case PvmShowTids: return set_int(&lpvm.show_tids, val);
	case PvmNoReset:
		if (lpvm.mytid < 0)
			break;
		if ((cc = no_reset_entry(val)) < 0)
			return lpvm_error("pvm_setopt", cc);
		return set_int(&lpvm.no_reset, val);
	case PvmPollType: case PvmPollTime:
		return lpvm_error("pvm_setopt", PvmNotImpl);
	default:
		break;
	}
	return lpvm_error("pvm_setopt", PvmBadParam);
}

int pvm_getopt(int what)
{
	if (trc_armed())
		return trc_call_int(TEV_GETOPT, TEV_DID_OPT, what, TEV_DID_OPV, getopt_untraced);
	return getopt_untraced(what);
}

static int traced_setopt(int what, int val)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_SETOPT, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_OPT, what);
		trc_int(TEV_DID_OPV, val);
	}
	int cc = setopt_untraced(what, val);
	TRC_EVENT(top, TEV_SETOPT, TEV_EVENT_EXIT)
		trc_int(TEV_DID_OPV, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_setopt(int what, int val)
{
	if (trc_armed())
		return traced_setopt(what, val);
	return setopt_untraced(what, val);
}
