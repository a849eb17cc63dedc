/* Sending a message by the routes (send.c). */
#ifndef LPVM_SEND_H
#define LPVM_SEND_H

struct msg;

/* m to dst with tag and ctx by the first route that takes it; every few sends, the input
 * is looked at (lpvm_pump), so a task that only sends still answers control requests.
 * 0 or a negative PVM error. Not for a route's own use: it may re-enter the routes. */
int lpvm_route_send(struct msg *m, int dst, int tag, int ctx);
/* Multicast of m to tids (sorted, deduplicated, without us) through the pvmd. */
int lpvm_mcast_ctx(struct msg *m, const int *tids, int count, int tag, int ctx);

#endif
