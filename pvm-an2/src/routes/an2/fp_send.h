/* fp_send.h — the AN2 route's send (fp_send.c): route_ops send and carries. */
#ifndef AN2PVM_FP_SEND_H
#define AN2PVM_FP_SEND_H

#include "route.h"

struct msg;

int fp_route_send(struct route *t, struct msg *m);
int fp_route_carries(struct route *t, int tid);

#endif
