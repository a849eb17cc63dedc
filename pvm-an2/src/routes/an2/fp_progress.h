/* fp_progress.h — the AN2 route's progress (fp_progress.c): route_ops progress and pollfds. */
#ifndef AN2PVM_FP_PROGRESS_H
#define AN2PVM_FP_PROGRESS_H

#include "route.h"

int fp_route_progress(struct route *t);
int fp_route_pollfds(struct route *t, struct pollfd *fds, int max);

#endif
