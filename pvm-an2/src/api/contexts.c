/* Message contexts (TM_CONTEXT) and the wait-id accessors. */
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"

int pvm_getcontext(void)
{
	int cc = lpvm_attach();
	return cc ? lpvm_error("pvm_getcontext", cc) : lpvm.ctx;
}

int pvm_setcontext(int ctx)
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

int pvm_newcontext(void)
{
	return context_call("pvm_newcontext", 0);
}

int pvm_freecontext(int ctx)
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
