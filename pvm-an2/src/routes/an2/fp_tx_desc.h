/* fp_tx_desc.h — the AN2 route's transmit descriptors in flight (fp_tx_desc.c). */
#ifndef AN2PVM_FP_TX_DESC_H
#define AN2PVM_FP_TX_DESC_H

#include "fp_state.h"

int fp_tx_init(struct fp_route *r, uint32_t slots);   /* 0, or -1 out of memory */
/* Posts one PDU without waiting (and counts it on its VC): 0, -EAGAIN (no transmit room now),
 * or another negative errno (the pair has failed). The blocks are referenced until its report. */
int fp_tx_post(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
               void *const *blocks, unsigned nblocks);
void fp_tx_complete(struct fp_route *r, uint64_t cookie);   /* a TX report: blocks come back */
/* Closing: what is still queued is an2d's to send, its blocks no longer ours to wait for. */
void fp_tx_hand_over(struct fp_route *r);

#endif
