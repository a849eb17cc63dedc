/* an2_clock.h — the one clock every AN2 program times with: CLOCK_MONOTONIC in nanoseconds. */
#ifndef AN2_CLOCK_H
#define AN2_CLOCK_H

#include <stdint.h>

/* Now, in nanoseconds of CLOCK_MONOTONIC. */
uint64_t an2_now_ns(void);
/* Milliseconds left until deadline_ns (rounded up, 0 once past); -1 if deadline_ns is
 * UINT64_MAX (no deadline: wait forever). */
int an2_ms_left(uint64_t deadline_ns);

#endif
