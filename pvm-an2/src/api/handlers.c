/* pvm_addmhf / pvm_delmhf: a program's message handlers (the table is the core's, mhf.c),
 * and how a handler whose invocation is traced runs. */
#include <pvm3.h>

#include "errors.h"
#include "mhf.h"
#include "trace.h"

static int addmhf_untraced(int src, int tag, int ctx, int (*f)(int))
{
	if (!f)
		return lpvm_error("pvm_addmhf", PvmBadParam);
	int cc = mhf_add_program(src, tag, ctx, f);
	return cc < 0 ? lpvm_error("pvm_addmhf", cc) : cc;
}

static int delmhf_untraced(int mhid)
{
	int cc = mhf_delete(mhid);
	if (cc == PvmNotFound)
		return lpvm_error(mhid >= mhf_ids() ? "(mhid >= ndhandles) pvm_delmhf" : "pvm_delmhf", cc);
	return cc < 0 ? lpvm_error("pvm_delmhf", cc) : cc;
}

int pvm_addmhf(int src, int tag, int ctx, int (*f)(int))
{
	if (!trc_armed())
		return addmhf_untraced(src, tag, ctx, f);
	int top = trc_claim();   /* as stock: what it matches in, the handler's id out */
	TRC_EVENT(top, TEV_ADDMHF, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_RST, src);
		trc_int(TEV_DID_RMC, tag);
		trc_int(TEV_DID_RCX, ctx);
	}
	int mhid = addmhf_untraced(src, tag, ctx, f);
	TRC_EVENT(top, TEV_ADDMHF, TEV_EVENT_EXIT)
		trc_int(TEV_DID_MHI, mhid);
	if (top)
		trc_release();
	return mhid;
}

int pvm_delmhf(int mhid)
{
	if (trc_armed())
		return trc_call_int(TEV_DELMHF, TEV_DID_MHI, mhid, TEV_DID_CC, delmhf_untraced);
	return delmhf_untraced(mhid);
}

/* As stock runs a handler: no send buffer, the message as receive buffer, its context; then
 * the caller's context and buffers back, the handler's buffers freed. */
static void run_traced_handler(int (*f)(int), int mid, int ctx)
{
	int sbuf = pvm_setsbuf(0);
	int rbuf = pvm_setrbuf(mid);
	int saved_ctx = pvm_setcontext(ctx);
	f(mid);
	pvm_setcontext(saved_ctx);
	pvm_freebuf(pvm_setsbuf(sbuf));
	pvm_freebuf(pvm_setrbuf(rbuf));
}

__attribute__((constructor)) static void install_traced_handler_runner(void)
{
	lpvm_trc.run_traced_handler = run_traced_handler;
}
