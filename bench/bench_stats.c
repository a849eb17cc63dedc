/* Median and spread of repeated measurements. */
#include "bench_stats.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct bench_summary bench_summarise(double *values, size_t count)
{
    qsort(values, count, sizeof values[0], compare_doubles);
    double median = count % 2 ? values[count / 2]
                              : (values[count / 2 - 1] + values[count / 2]) / 2;
    return (struct bench_summary){ .median = median, .min = values[0], .max = values[count - 1] };
}
