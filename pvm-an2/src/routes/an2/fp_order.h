/* fp_order.h — the AN2 route's per-sender order across a route switch (fp_order.c). */
#ifndef AN2PVM_FP_ORDER_H
#define AN2PVM_FP_ORDER_H

#include "fp_state.h"

struct msg;

/* A complete message arrived over AN2 from p (hdr: its first PDU's header). */
void fp_order_an2_arrival(struct fp_route *r, struct peer *p, struct msg *m,
                          const struct pdu_hdr *hdr);
/* A daemon-route message from p after its REQ: held until what precedes it has come. */
void fp_order_daemon_arrival(struct fp_route *r, struct peer *p, struct msg *m);
void fp_order_note(struct fp_route *r, int src, int need);   /* a peer's NOTE [need] */
/* A PvmTaskExit notice about exited, whose VC is open: held until its AN2 stream has ended. */
void fp_order_hold_exit_notice(struct fp_route *r, struct peer *exited, struct msg *m);
/* Delivers everything that may go now; force: everything (the pair failed). */
void fp_order_release(struct fp_route *r, struct peer *p, int force);
/* Exit notices held while the peer's stream stood still for 10 s go (logged). */
void fp_order_exit_notices_check(struct fp_route *r);
int fp_order_delivered(struct fp_route *r);   /* messages put on the queue since the last call */

#endif
