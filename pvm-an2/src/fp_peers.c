/* fp_peers.c — the AN2 route's peers, found by tid, and the clock it measures waits with. */
/* One peer per task the route exchanges messages with. */
#include "fp_route.h"

#include <stdlib.h>
#include <time.h>

long long fp_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

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
