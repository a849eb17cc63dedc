/* fp_daemon_msg.c — the AN2 route's own messages through the pvmd route. */
/* Sent by the pvmd route itself (lpvm_daemon_send): no other route is re-entered and no input
 * is pumped, so that they may go from inside a route's send or progress. */
#include "fp_daemon_msg.h"

#include <pvm3.h>

#include "codec.h"
#include "fp_state.h"
#include "lib_state.h"
#include "msg.h"
#include "route_set.h"

int fp_daemon_send(struct msg *m, int dst, int tag, int ctx)
{
	if (!m)
		return PvmNoMem;
	m->dst = dst;
	m->tag = tag;
	m->ctx = ctx;
	m->src = lpvm.mytid;
	return lpvm_daemon_send(m);
}

int fp_send_ctl(int tid, int tag, int value)
{
	struct msg *m = msg_new(ENC_XDR);
	int cc = m ? lpvm_pack_int(m, value) : PvmNoMem;
	if (!cc)
		cc = fp_daemon_send(m, tid, tag, FP_CTX);
	msg_free(m);
	return cc;
}
