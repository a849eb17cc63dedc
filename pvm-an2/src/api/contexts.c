/* Message contexts (TM_CONTEXT) and the wait-id accessors. */
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "trace.h"

static int getcontext_untraced(void)
{
	int cc = lpvm_attach();
	return cc ? lpvm_error("pvm_getcontext", cc) : lpvm.ctx;
}

static int setcontext_untraced(int ctx)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_setcontext", cc);
	int old = lpvm.ctx;
	lpvm.ctx = ctx;
	lpvm_state_changed();
	return old;
}

/* TM_CONTEXT { cid } -> { new cid or status }: 0 asks for a new context. */
static int context_call(const char *fn, int cid)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error(fn, cc);
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	if (!req)
		return lpvm_error(fn, PvmNoMem);
	cc = lpvm_pack_int(req, cid);
	if (!cc)
		cc = lpvm_daemon_call(req, TM_CONTEXT, &rep);
	msg_free(req);
	int v = 0;
	if (!cc && lpvm_unpack_int(rep, &v))
		cc = PvmSysErr;
	msg_free(rep);
	if (!cc)
		cc = v;
	return cc < 0 ? lpvm_error(fn, cc) : cc;
}

static int newcontext_untraced(void)
{
	return context_call("pvm_newcontext", 0);
}

static int freecontext_untraced(int ctx)
{
	return context_call("pvm_freecontext", ctx);
}

int pvm_getmwid(int mid);
int pvm_getmwid(int mid)
{
	struct msg *m = mid > 0 ? msg_lookup(mid) : NULL;
	if (mid <= 0)
		return lpvm_error("pvm_getmwid", PvmBadParam);
	if (!m)
		return lpvm_error("pvm_getmwid", PvmNoSuchBuf);
	return m->wid;
}

int pvm_setmwid(int mid, int wid);
int pvm_setmwid(int mid, int wid)
{
	struct msg *m = mid > 0 ? msg_lookup(mid) : NULL;
	if (mid <= 0)
		return lpvm_error("pvm_setmwid", PvmBadParam);
	if (!m)
		return lpvm_error("pvm_setmwid", PvmNoSuchBuf);
	m->wid = wid;
	return 0;
}

int pvm_getcontext(void)
{
	if (trc_armed())
		return trc_call_none(TEV_GETCONTEXT, TEV_DID_CXC, getcontext_untraced);
	return getcontext_untraced();
}

int pvm_newcontext(void)
{
	if (trc_armed())
		return trc_call_none(TEV_NEWCONTEXT, TEV_DID_CXN, newcontext_untraced);
	return newcontext_untraced();
}

int pvm_setcontext(int ctx)
{
	if (trc_armed())
		return trc_call_int(TEV_SETCONTEXT, TEV_DID_CXS, ctx, TEV_DID_CC, setcontext_untraced);
	return setcontext_untraced(ctx);
}

int pvm_freecontext(int ctx)
{
	if (trc_armed())
		return trc_call_int(TEV_FREECONTEXT, TEV_DID_CXF, ctx, TEV_DID_CC, freecontext_untraced);
	return freecontext_untraced(ctx);
}
