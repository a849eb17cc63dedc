/* fp_peers.h — the AN2 route's peers, found by tid (fp_peers.c). */
#ifndef AN2PVM_FP_PEERS_H
#define AN2PVM_FP_PEERS_H

#include "fp_state.h"

struct peer *fp_peer_find(struct fp_route *r, int tid);
struct peer *fp_peer_get(struct fp_route *r, int tid);   /* creates; NULL when out of memory */

#endif
