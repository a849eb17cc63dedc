/* fp_handover_rx.h — the peer's side of a failed VC, from the daemon route (fp_handover_rx.c). */
#ifndef AN2PVM_FP_HANDOVER_RX_H
#define AN2PVM_FP_HANDOVER_RX_H

#include "fp_state.h"

struct msg;

void fp_handover_pdu(struct fp_route *r, struct msg *m);     /* FP_TAG_PDU (consumed) */
void fp_handover_end_msg(struct fp_route *r, int src, int value);   /* FP_TAG_END [value] */
int fp_handover_gone_notice(struct fp_route *r, struct msg *m);   /* FP_TAG_GONE: 1 */
/* p's stream has ended: at its END (end: the number after its last PDU) or exit (NULL) */
void fp_handover_end(struct fp_route *r, struct peer *p, const uint32_t *end);

#endif
