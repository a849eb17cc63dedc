/* Request and reply: with the pvmd, or with the resource manager while one runs (requests.h). */
#include "requests.h"

#include <pvm3.h>
#include <pvmproto.h>
#include <stdio.h>

#include "codec.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"
#include "rxqueue.h"
#include "send.h"

int lpvm_request(struct msg *req, int dst, int tag, int ctx, struct msg **reply)
{
	*reply = NULL;
	req->wid = lpvm.next_wid++;
	int cc = lpvm_route_send(req, dst, tag, ctx);
	while (cc >= 0) {
		struct msg *r = rxq_take_system(dst == TIDPVMD, tag, ctx, req->wid);
		if (r) {
			msg_rewind(r);
			*reply = r;
			return 0;
		}
		cc = lpvm_pump(NULL);
	}
	return cc;
}

int lpvm_daemon_call(struct msg *req, int tag, struct msg **reply)
{
	*reply = NULL;
	if (lpvm.dead || !lpvm.daemon)
		return PvmSysErr;
	int rm_tag = rm_request_tag(tag);
	if (rm_tag)
		return rm_call(req, rm_tag, reply);   /* a resource manager schedules it */
	return lpvm_request(req, TIDPVMD, tag, SYSCTX_TM, reply);
}

int lpvm_daemon_ask(struct msg *req, int tag, struct msg **reply)
{
	int cc = lpvm_daemon_call(req, tag, reply);
	msg_free(req);
	return cc;
}

int lpvm_daemon_ask_int(struct msg *req, int tag, int *value)
{
	struct msg *rep;
	int cc = lpvm_daemon_ask(req, tag, &rep);
	if (!cc && lpvm_unpack_int(rep, value))
		cc = PvmSysErr;
	msg_free(rep);
	return cc;
}

/* While a resource manager runs (the pvmd named it when we joined), stock sends it the
 * requests it schedules, with SM_* tags in the base context, instead of the pvmd. */
int rm_request_tag(int tm_tag)
{
	if (!lpvm.sched_tid || lpvm.sched_tid == lpvm.mytid)
		return 0;
	switch (tm_tag) {
	case TM_SPAWN: return SM_SPAWN;
	case TM_CONFIG: return SM_CONFIG;
	case TM_ADDHOST: return SM_ADDHOST;
	case TM_DELHOST: return SM_DELHOST;
	case TM_TASK: return SM_TASK;
	case TM_NOTIFY: return SM_NOTIFY;
	default: return 0;
	}
}

int rm_call(struct msg *req, int sm_tag, struct msg **reply)
{
	return lpvm_request(req, lpvm.sched_tid, sm_tag, PvmBaseContext, reply);
}

int lpvm_tell_pvmd_opt(int what, int val)
{
	int cc = lpvm_attach();
	if (cc)
		return cc;
	struct msg *m = msg_new(ENC_XDR);
	if (!m)
		return PvmNoMem;
	char buf[16];
	snprintf(buf, sizeof buf, "%x", (unsigned)val);
	cc = lpvm_pack_int(m, what);
	if (!cc)
		cc = lpvm_pack_str(m, buf);
	struct msg *rep = NULL;
	if (!cc)
		cc = lpvm_daemon_call(m, TM_SETOPT, &rep);
	msg_free(m);
	msg_free(rep);
	return cc;
}
