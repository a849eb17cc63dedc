/* fp_negotiate.h — the AN2 route's VC set-up with a peer (fp_negotiate.c). */
#ifndef AN2PVM_FP_NEGOTIATE_H
#define AN2PVM_FP_NEGOTIATE_H

#include "fp_state.h"

/* The peer, with a VC open or being opened, when a message to tid may use AN2; NULL for
 * the daemon route. Starts negotiation on the first message to a fast-path task. */
struct peer *fp_negotiate_for_send(struct fp_route *r, int tid);
void fp_negotiate_req(struct fp_route *r, int src, int value);   /* a peer's REQ [endpoint] */
void fp_negotiate_nak(struct fp_route *r, int src);              /* a peer's NAK */
/* VCs the driver opened (or refused) since the last look: 0, or the control socket's error */
int fp_poll_vc_answers(struct fp_route *r);
void fp_vc_opened(struct fp_route *r, struct peer *p, const struct an2_vc_info *vi);

#endif
