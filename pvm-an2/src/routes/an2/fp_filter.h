/* fp_filter.h — route_ops filter: what the AN2 route takes of what arrived (fp_filter.c). */
#ifndef AN2PVM_FP_FILTER_H
#define AN2PVM_FP_FILTER_H

#include "route.h"

struct msg;

int fp_route_filter(struct route *t, struct msg *m);

#endif
