/* fp_tx.h — the AN2 route's transmit side: a message as PDUs (fp_tx.c). */
#ifndef AN2PVM_FP_TX_H
#define AN2PVM_FP_TX_H

#include "fp_state.h"

struct msg;

/* 0, 1 = use the daemon route, < 0 */
int fp_send_msg(struct fp_route *r, struct peer *p, struct msg *m);

#endif
