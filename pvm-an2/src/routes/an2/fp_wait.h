/* fp_wait.h — how a task waits while the AN2 route is in use (fp_wait.c): route_ops' waiting. */
#ifndef AN2PVM_FP_WAIT_H
#define AN2PVM_FP_WAIT_H

#include "route.h"

int fp_wait_others_due(struct route *t, int ready);
int fp_wait_poll_ms_max(struct route *t);
int fp_wait_idle(struct route *t, long long deadline_us, int *look);
void fp_wait_woke(struct route *t);
void fp_wait_busy(struct route *t);
void fp_wait_over(struct route *t);

#endif
