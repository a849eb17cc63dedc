/* The one place that names the routes: their openers, for the core's route set and join. */
#ifndef LPVM_ROUTE_PROVIDERS_H
#define LPVM_ROUTE_PROVIDERS_H

struct route;
struct route_keep;

/* The pvmd route (routes/pvmd): the stream socket to the local pvmd at sockaddr_text (a
 * path, or "hexaddr:hexport"); NULL with *err set when it cannot connect. */
struct route *daemon_route_open(const char *sockaddr_text, int *err);

/* Routes beside the pvmd route, tried in this order before it: each opener returns its
 * route, or NULL when it cannot open one (it says why, once, in the log). */
struct route *fp_route_open(struct route_keep *keep);   /* the AN2 route (routes/an2) */

#define LPVM_OPTIONAL_ROUTE_OPENERS { fp_route_open }

#endif
