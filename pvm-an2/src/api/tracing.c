/* The tracing calls: pvm_reg_tracer (TM_TRACER, and the tracer's mailbox entry that tasks
 * started from a shell read), pvm_gettmask and pvm_settmask for the task and its children,
 * and the reading of that mailbox entry when a task joins. The events themselves: core's
 * trace.c. */
#include <pvm3.h>
#include <pvmproto.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "trace.h"

static char *tmask_of(int who)
{
	return who == PvmTaskSelf ? lpvm_trc.mask : who == PvmTaskChild ? lpvm_trc.child_mask : NULL;
}

int pvm_gettmask(int who, Pvmtmask tmask)
{
	char *m = tmask_of(who);
	if (!m || !tmask)
		return lpvm_error("pvm_gettmask", PvmBadParam);
	memcpy(tmask, m, TEV_MASK_LENGTH);
	return PvmOk;
}

int pvm_settmask(int who, Pvmtmask tmask)
{
	char *m = tmask_of(who);
	if (!m || !trc_mask_valid(tmask))
		return lpvm_error("pvm_settmask", PvmBadParam);
	memcpy(m, tmask, TEV_MASK_LENGTH);
	lpvm_state_changed();
	return PvmOk;
}

/* The tracer's mailbox entry { tid, trace ctx, tag, output ctx, tag, mask, buffer, options }:
 * a task joins with the tracer's tid from the pvmd and takes the rest from here. */
static void read_tracer_entry(void)
{
	struct msg *saved = lpvm.rbuf;
	lpvm.rbuf = NULL;
	int mid = pvm_recvinfo(PVMTRACERCLASS, 0, PvmMboxDefault);
	struct msg *m = mid > 0 ? msg_lookup(mid) : NULL;
	int v[5], tbuf, topt;
	char *mask = NULL;
	if (m && !lpvm_unpack(m, PVM_INT, v, 5, 1) && !lpvm_unpack_str_alloc(m, &mask) &&
	    !lpvm_unpack_int(m, &tbuf) && !lpvm_unpack_int(m, &topt) &&
	    v[0] == lpvm.self_trc_tid && v[1] == lpvm.self_trc_ctx && v[2] == lpvm.self_trc_tag) {
		if (trc_mask_valid(mask)) {
			memcpy(lpvm_trc.mask, mask, TEV_MASK_LENGTH);
			memcpy(lpvm_trc.child_mask, mask, TEV_MASK_LENGTH);
		}
		lpvm.self_trc_buf = lpvm.trc_buf = tbuf;
		lpvm.self_trc_opt = lpvm.trc_opt = topt;
	}
	free(mask);
	if (m)
		msg_free(m);
	lpvm.rbuf = saved;
}

__attribute__((constructor)) static void install_tracer_entry_reader(void)
{
	lpvm_trc.read_tracer_entry = read_tracer_entry;
}

/* Our entry in the tracer class while we are the tracer; -1 none. */
static int entry_index = -1;
static int registered;

static int put_entry(int tctx, int ttag, int octx, int otag, const char *tmask, int tbuf,
                     int topt)
{
	int mid = pvm_mkbuf(PvmDataDefault);
	if (mid < 0)
		return mid;
	struct msg *m = msg_lookup(mid);
	int v[5] = { lpvm.mytid, tctx, ttag, octx, otag };
	int cc = lpvm_pack(m, PVM_INT, v, 5, 1);
	if (!cc)
		cc = lpvm_pack_str(m, tmask);
	if (!cc)
		cc = lpvm_pack_int(m, tbuf);
	if (!cc)
		cc = lpvm_pack_int(m, topt);
	if (!cc)
		cc = pvm_putinfo(PVMTRACERCLASS, mid, PvmMboxDefault);
	pvm_freebuf(mid);
	return cc;
}

/* Every call toggles, as stock: the first registers us as the virtual machine's tracer
 * (TM_TRACER { 1, trace ctx, tag, output ctx, tag, mask, buffer, options } -> { status }),
 * the next gives the role up (TM_TRACER { 0 }). */
static int reg_tracer_untraced(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf,
                               int topt)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_reg_tracer", cc);
	int on = !registered;
	if (!tmask)
		tmask = "";   /* (stock passes what it is given on to the pvmd and the mailbox) */
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	cc = req ? lpvm_pack_int(req, on) : PvmNoMem;
	if (on) {
		int v[4] = { tctx, ttag, octx, otag };
		if (!cc)
			cc = lpvm_pack(req, PVM_INT, v, 4, 1);
		if (!cc)
			cc = lpvm_pack_str(req, tmask);
		if (!cc)
			cc = lpvm_pack_int(req, tbuf);
		if (!cc)
			cc = lpvm_pack_int(req, topt);
	}
	if (!cc)
		cc = lpvm_daemon_call(req, TM_TRACER, &rep);
	msg_free(req);
	int status = 0;
	if (!cc && lpvm_unpack_int(rep, &status))
		cc = PvmSysErr;
	msg_free(rep);
	if (!cc)
		cc = status;
	if (cc == 0) {
		registered = on;
		if (on) {
			entry_index = put_entry(tctx, ttag, octx, otag, tmask, tbuf, topt);
		} else if (entry_index >= 0) {
			if (pvm_delinfo(PVMTRACERCLASS, entry_index, PvmMboxDefault) >= 0)
				entry_index = -1;
		}
	}
	return cc < 0 ? lpvm_error("pvm_reg_tracer", cc) : cc;
}

int pvm_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt)
{
	if (!trc_armed())
		return reg_tracer_untraced(tctx, ttag, octx, otag, tmask, tbuf, topt);
	int top = trc_claim();   /* as stock: the settings in, the answer out */
	TRC_EVENT(top, TEV_REG_TRACER, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_TRC, tctx);
		trc_int(TEV_DID_TRT, ttag);
		trc_int(TEV_DID_TRX, octx);
		trc_int(TEV_DID_TRO, otag);
		trc_str(TEV_DID_TRM, tmask);
		trc_int(TEV_DID_TRB, tbuf);
		trc_int(TEV_DID_TRL, topt);
	}
	int cc = reg_tracer_untraced(tctx, ttag, octx, otag, tmask, tbuf, topt);
	TRC_EVENT(top, TEV_REG_TRACER, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}
