/* fp_pair_fail.h — a pair stops using AN2 (fp_pair_fail.c). */
#ifndef AN2PVM_FP_PAIR_FAIL_H
#define AN2PVM_FP_PAIR_FAIL_H

#include "fp_state.h"

/* The pair stops using AN2 (a failure, or the peer gone): logs why (if given), hands what the
 * peer has not acknowledged over to the daemon route, closes the VC. */
void fp_peer_fail(struct fp_route *r, struct peer *p, const char *why);

#endif
