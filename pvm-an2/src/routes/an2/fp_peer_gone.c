/* fp_peer_gone.c — the pvmd says a task or host has gone: the AN2 route forgets its peers. */
#include "fp_peer_gone.h"

#include "fp_handover_rx.h"
#include "fp_handover_tx.h"
#include "fp_pair_fail.h"
#include "fp_state.h"
#include "pvm_ids.h"

#include <stdlib.h>

/* Whether p is tid, or a task of the host tid names (tid: a pvmd's). */
static int peer_is(const struct peer *p, int tid)
{
	return TID_IS_PVMD(tid) ? TID_SAME_HOST(p->tid, tid) : p->tid == tid;
}

/* The pvmd says the task tid, or every task of a host, has gone. A pair whose VC is open keeps
 * it until its PEER_GONE report, which an2d sends after the last cell that task sent: closing
 * it now could lose what is still on its way to us (and would wait on an an2d that no longer
 * answers); the failure path runs then. Any other pair fails now as a peer that vanished does
 * (quietly: a VC being opened is cancelled, messages held for order are delivered), and the
 * peer is forgotten unless something of it is still to come out (a receive error, messages
 * held): a new task that gets the same tid starts afresh. */
int fp_route_peer_failed(struct route *t, int tid)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep)
		return 0;
	for (int i = 0; i < 64; i++)
		for (struct peer **pp = &r->peers[i]; *pp;) {
			struct peer *p = *pp;
			if (!peer_is(p, tid) || (p->state == PEER_OPEN && !r->gone)) {
				pp = &p->next;
				continue;
			}
			fp_peer_fail(r, p, NULL);
			fp_handover_end(r, p, NULL);   /* (if it had a VC: its stream ends here, */
			fp_handover_discard(r, p);     /* and ours to it has nobody to go to) */
			if (p->error_pending || p->hd_head || p->ha_head || p->xh_head) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			free(p);
		}
	return 0;
}
