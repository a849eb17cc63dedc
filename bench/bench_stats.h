/* Median and spread of repeated measurements. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

struct bench_summary {
    double median, min, max;
};

/* Summarises values[0..count-1] (count >= 1); reorders the array. */
struct bench_summary bench_summarise(double *values, size_t count);

#endif
