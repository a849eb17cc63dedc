/* fp_handover_tx.h — our side of a failed VC, sent by the daemon route (fp_handover_tx.c). */
#ifndef AN2PVM_FP_HANDOVER_TX_H
#define AN2PVM_FP_HANDOVER_TX_H

#include "fp_state.h"

/* The VC failed: copies the PDUs of whole messages the peer has not acknowledged; they go,
 * then END, then our request for the pvmd's notice of its exit (FP_TAG_GONE), at the next
 * flush (all peers', or only's before a message to it), where no route is being read. */
void fp_handover_capture(struct fp_route *r, struct peer *p);
void fp_handover_flush(struct fp_route *r, struct peer *only);
/* what was not sent yet is dropped: we are closing, or the peer has gone */
void fp_handover_discard(struct fp_route *r, struct peer *p);

#endif
