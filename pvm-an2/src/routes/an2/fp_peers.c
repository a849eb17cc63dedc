/* fp_peers.c — the AN2 route's peers, found by tid. */
/* One peer per task the route exchanges messages with (forgotten once its task has gone:
 * fp_peer_gone.c). */
#include "fp_peers.h"

#include "fp_state.h"

#include <stdlib.h>

struct peer *fp_peer_find(struct fp_route *r, int tid)
{
	for (struct peer *p = r->peers[(unsigned)tid % 64]; p; p = p->next)
		if (p->tid == tid)
			return p;
	return NULL;
}

struct peer *fp_peer_get(struct fp_route *r, int tid)
{
	struct peer *p = fp_peer_find(r, tid);
	if (p)
		return p;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->tid = tid;
	p->vc = -1;
	p->next = r->peers[(unsigned)tid % 64];
	r->peers[(unsigned)tid % 64] = p;
	return p;
}
