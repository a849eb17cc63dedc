/* fp_peer_gone.h — route_ops peer_failed: the AN2 route forgets peers gone (fp_peer_gone.c). */
#ifndef AN2PVM_FP_PEER_GONE_H
#define AN2PVM_FP_PEER_GONE_H

#include "route.h"

int fp_route_peer_failed(struct route *t, int tid);

#endif
