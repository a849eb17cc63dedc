/* Evicting message buffers from the CPU caches, for GAMMA's "cold cache" measurements. */
#include "bench_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

void bench_cache_flush(const void *data, size_t len)
{
    const char *start = (const char *)((uintptr_t)data & ~(uintptr_t)63);
    const char *end = (const char *)data + len;
    for (const char *line = start; line < end; line += 64)
        _mm_clflush(line);
    _mm_mfence();   /* the flushes complete before the timed communication starts */
}
#else
/* Without a flush instruction: overwrite a buffer larger than any last-level cache. */
void bench_cache_flush(const void *data, size_t len)
{
    enum { EVICTION_BYTES = 64u << 20 };
    static char *eviction;
    (void)data;
    (void)len;
    if (!eviction && !(eviction = malloc(EVICTION_BYTES)))
        return;
    memset(eviction, (unsigned char)len, EVICTION_BYTES);
}
#endif
