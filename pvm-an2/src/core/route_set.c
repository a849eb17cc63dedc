/* The set of routes a task has: the pvmd route (join.c opens it), then the optional ones
 * (route_providers.h names their openers), and the calls the core makes across all of them. */
#include "route_set.h"

#include <pvm3.h>
#include <stdlib.h>

#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "route.h"
#include "route_providers.h"

/* Optional routes, in the order they are opened; a message tries the last opened first. */
static struct route *(*const openers[])(struct route_keep *) = LPVM_OPTIONAL_ROUTE_OPENERS;
#define NOPENERS (sizeof openers / sizeof openers[0])

/* The route layer's own per-process state, beside the routes open now (lpvm.routes): what a
 * kind of route keeps across its routes (route.h), and whether the exit hook is set. One
 * context here is the simplest home for it: a route cannot hold what must outlive it. */
static struct {
	struct route_keep keep[NOPENERS];
	int exit_hooked;
} layer;

/* A task that returns from main without pvm_exit: what it sent must still arrive. */
static void at_exit(void)
{
	lpvm_routes_quiesce();
}

int lpvm_routes_open(void)
{
	if (!layer.exit_hooked) {
		layer.exit_hooked = 1;
		atexit(at_exit);
	}
	for (unsigned i = 0; i < NOPENERS; i++) {
		struct route *r = openers[i](&layer.keep[i]);
		if (!r)
			continue;
		if (lpvm.nroutes == MAX_ROUTES) {
			r->ops->close(r);
			return PvmOutOfRes;
		}
		lpvm.routes[lpvm.nroutes++] = r;
	}
	return 0;
}

void lpvm_routes_close(void)
{
	for (int i = lpvm.nroutes - 1; i >= 0; i--)
		lpvm.routes[i]->ops->close(lpvm.routes[i]);
	lpvm.nroutes = 0;
	lpvm.daemon = NULL;
}

int lpvm_routes_send(struct msg *m)
{
	int cc = ROUTE_PASS;
	for (int i = lpvm.nroutes - 1; i >= 0 && cc == ROUTE_PASS; i--)
		cc = lpvm.routes[i]->ops->send(lpvm.routes[i], m);
	return cc == ROUTE_PASS ? PvmSysErr : cc;
}

int lpvm_routes_carry(int tid)
{
	for (int i = 0; i < lpvm.nroutes; i++)
		if (lpvm.routes[i]->ops->carries(lpvm.routes[i], tid))
			return 1;
	return 0;
}

int lpvm_routes_filter(struct msg *m)
{
	for (int i = 0; i < lpvm.nroutes; i++)
		if (lpvm.routes[i]->ops->filter(lpvm.routes[i], m))
			return 1;
	return 0;
}

int lpvm_routes_recv_error(int tid)
{
	for (int i = 0; i < lpvm.nroutes; i++) {
		int cc = lpvm.routes[i]->ops->recv_error(lpvm.routes[i], tid);
		if (cc)
			return cc;
	}
	return 0;
}

void lpvm_routes_peer_failed(int tid)
{
	for (int i = 0; i < lpvm.nroutes; i++) {
		int cc = lpvm.routes[i]->ops->peer_failed(lpvm.routes[i], tid);
		if (cc < 0)   /* the route keeps what it knew: nothing more for the core to do */
			lpvm_log("route %s: forgetting t%x failed (error %d)", lpvm.routes[i]->ops->name,
			         (unsigned)tid, cc);
	}
}

void lpvm_routes_flush(void)
{
	for (int i = 0; i < lpvm.nroutes; i++) {
		int cc = lpvm.routes[i]->ops->flush(lpvm.routes[i]);
		if (cc < 0)
			lpvm_log("route %s: sending what it deferred failed (error %d)",
			         lpvm.routes[i]->ops->name, cc);
	}
}

void lpvm_routes_quiesce(void)
{
	for (int i = lpvm.nroutes - 1; i >= 0; i--)
		lpvm.routes[i]->ops->quiesce(lpvm.routes[i]);
}

int lpvm_daemon_send(struct msg *m)
{
	if (!lpvm.daemon)
		return PvmSysErr;
	return lpvm.daemon->ops->send(lpvm.daemon, m);
}

int lpvm_daemon_progress(void)
{
	if (!lpvm.daemon)
		return PvmSysErr;
	return lpvm.daemon->ops->progress(lpvm.daemon);
}
