/* Evicting message buffers from the CPU caches, for GAMMA's "cold cache" measurements. */
#ifndef BENCH_CACHE_H
#define BENCH_CACHE_H

#include <stddef.h>

/* Writes back and evicts every cache line of data[0..len-1] from all cache levels. */
void bench_cache_flush(const void *data, size_t len);

#endif
