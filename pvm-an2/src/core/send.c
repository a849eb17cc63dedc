/* Sending a message by the routes, and multicast through the pvmd (send.h). */
#include "send.h"

#include <pvm3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "codec.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"
#include "route_set.h"
#include "rxqueue.h"

int lpvm_route_send(struct msg *m, int dst, int tag, int ctx)
{
	if (!lpvm.nroutes || lpvm.dead)
		return PvmSysErr;
	m->dst = dst;
	m->tag = tag;
	m->ctx = ctx;
	m->src = lpvm.mytid;
	int cc = lpvm_routes_send(m);   /* task to task by the fast path if it can */
	if (cc < 0)
		return cc;
	/* A task that only sends must still answer control requests (a stock peer blocks on
	 * its TC_CONREQ until answered): look at the input every few sends, not every send. */
	if (++lpvm.sends_since_pump >= 8) {
		struct timeval zero = { 0, 0 };
		cc = lpvm_pump(&zero);
	}
	return cc < 0 ? cc : 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int lpvm_mcast_ctx(struct msg *m, const int *tids, int count, int tag, int ctx)
{
	int *dst = malloc(sizeof(int) * (size_t)(count ? count : 1));
	if (!dst)
		return PvmNoMem;
	memcpy(dst, tids, sizeof(int) * (size_t)count);
	qsort(dst, (size_t)count, sizeof(int), cmp_int);
	int n = 0;
	int cc = 0;
	for (int i = 0; i < count && cc >= 0; i++) {   /* sorted, without duplicates and us */
		if ((i > 0 && dst[i - 1] == dst[i]) || dst[i] == lpvm.mytid)
			continue;
		/* (a system context goes by the daemon route: no route asked, no VC set up, e.g.
		 * for the start-up message pvm_spawn sends to children not yet known anywhere) */
		if (!lpvm_is_sysctx(ctx) && lpvm_routes_carry(dst[i]))
			cc = lpvm_route_send(m, dst[i], tag, ctx);   /* its own copy, by AN2 */
		else
			dst[n++] = dst[i];
	}
	if (n > 0 && cc >= 0) {
		/* announce the address list (TM_MCA, no reply), then send once to the group tid */
		struct msg *a = msg_new(ENC_XDR);
		if (!a)
			cc = PvmNoMem;
		if (!cc)
			cc = lpvm_pack_int(a, n);
		if (!cc)
			cc = lpvm_pack(a, PVM_INT, dst, n, 1);
		if (!cc)
			cc = lpvm_route_send(a, TIDPVMD, TM_MCA, SYSCTX_TM);
		msg_free(a);
		if (!cc)
			cc = lpvm_route_send(m, lpvm.mytid | TIDGID, tag, ctx);
	}
	free(dst);
	return cc;
}
