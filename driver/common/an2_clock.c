/* an2_clock.c — CLOCK_MONOTONIC in nanoseconds, and deadlines turned into poll timeouts. */
#include "an2_clock.h"

#include <time.h>

uint64_t an2_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int an2_ms_left(uint64_t deadline_ns)
{
    if (deadline_ns == UINT64_MAX)
        return -1;
    uint64_t now = an2_now_ns();
    return now >= deadline_ns ? 0 : (int)((deadline_ns - now + 999999) / 1000000);
}
