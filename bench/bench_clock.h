/* Monotonic wall-clock time in nanoseconds for the benchmark programs. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
