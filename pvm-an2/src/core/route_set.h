/* The routes a task has and the calls the core makes across all of them (route_set.c). */
#ifndef LPVM_ROUTE_SET_H
#define LPVM_ROUTE_SET_H

struct msg;

/* After the pvmd route (routes[0]), every optional route that opens. 0 or PvmOutOfRes. */
int lpvm_routes_open(void);
void lpvm_routes_close(void);
/* The first route, from the last opened to the pvmd route, that takes m. */
int lpvm_routes_send(struct msg *m);
/* Whether a route carries messages to tid itself (route_ops.carries). */
int lpvm_routes_carry(int tid);
/* A message arriving by any route: 1 if a route took it (route_ops.filter). */
int lpvm_routes_filter(struct msg *m);
/* A receive from tid that must fail (route_ops.recv_error): the error, or 0. */
int lpvm_routes_recv_error(int tid);
/* A task (or every task of a host: tid is its pvmd's) has gone (route_ops.peer_failed). */
void lpvm_routes_peer_failed(int tid);
void lpvm_routes_flush(void);   /* what routes deferred while one was being read */
void lpvm_routes_quiesce(void);

/* The pvmd route alone, for the core and for routes that talk through it: m (with its dst,
 * tag, ctx and src set) is written, and input is only read as far as writing needs; no
 * other route is entered and no input is pumped. 0 or a negative PVM error. */
int lpvm_daemon_send(struct msg *m);
/* What has arrived from the pvmd moves into the receive queue (route_ops.progress). */
int lpvm_daemon_progress(void);

#endif
