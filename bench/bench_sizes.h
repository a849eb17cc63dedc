/* NetPIPE-style message sizes: powers of two with optional perturbations around each. */
#ifndef BENCH_SIZES_H
#define BENCH_SIZES_H

#include <stddef.h>

enum { BENCH_SIZES_MAX = 256 };

/* Fills sizes[] in increasing order without duplicates with every power of two p in
 * [min, max] and, when perturbation > 0, p - perturbation and p + perturbation (kept inside
 * [min, max]). min and max themselves are always included. Returns the count. */
size_t bench_sizes_build(size_t min, size_t max, size_t perturbation, size_t sizes[BENCH_SIZES_MAX]);

/* Parses a comma-separated list of byte counts ("8,65536,4194304"); sorts it. Returns the
 * count, or 0 on a malformed list or a size of 0. */
size_t bench_sizes_parse(const char *list, size_t sizes[BENCH_SIZES_MAX]);

#endif
