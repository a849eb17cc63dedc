/* fp_rx.h — the AN2 route's receive side: buffers, receive reports, reassembly (fp_rx.c). */
#ifndef AN2PVM_FP_RX_H
#define AN2PVM_FP_RX_H

#include "fp_state.h"

struct frag;

int fp_post_rx(struct fp_route *r, struct peer *p);   /* keeps p's VC's buffers posted */
/* A receive report on p's VC (p NULL: nobody's now). */
void fp_rx_report(struct fp_route *r, struct peer *p, const struct an2_report *rep);
void fp_hdr_to_host(struct pdu_hdr *h);
/* A DATA PDU taken in order joins its message (f: its data or NULL; taken): NULL or why not */
const char *fp_rx_assemble(struct fp_route *r, struct peer *p, const struct pdu_hdr *h,
                           struct frag *f);
struct frag *fp_rx_copy_frag(struct fp_route *r, const char *data, uint32_t n);   /* or NULL */

#endif
