/* aal5_crc32_clmul.c — CRC-32/BZIP2 by carry-less multiply folding (PCLMULQDQ), x86-64 only. */
#include <stdatomic.h>
#include "aal5_crc32.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "aal5_crc32_fold.h"

CLMUL_TARGET static inline __m128i load_block(const uint8_t *p)
{
    return bswap128(_mm_loadu_si128((const __m128i *)p));
}

CLMUL_TARGET static uint32_t crc_clmul(uint32_t reg, const uint8_t *p, size_t len)
{
    if (len < 64) { /* one block, then one at a time: a cell's 48 bytes in a few folds */
        __m128i x = _mm_xor_si128(load_block(p), _mm_set_epi32((int)reg, 0, 0, 0));
        return fold_finish(x, p + 16, len - 16);
    }

    __m128i x0 = load_block(p), x1 = load_block(p + 16);
    __m128i x2 = load_block(p + 32), x3 = load_block(p + 48);
    /* The register preset is the same as XOR-ing it into the first 32 message bits. */
    x0 = _mm_xor_si128(x0, _mm_set_epi32((int)reg, 0, 0, 0));
    p += 64;
    len -= 64;

    const __m128i k512 = fold_k(X576, X512);
    while (len >= 64) {
        x0 = _mm_xor_si128(fold128(x0, k512), load_block(p));
        x1 = _mm_xor_si128(fold128(x1, k512), load_block(p + 16));
        x2 = _mm_xor_si128(fold128(x2, k512), load_block(p + 32));
        x3 = _mm_xor_si128(fold128(x3, k512), load_block(p + 48));
        p += 64;
        len -= 64;
    }
    __m128i x = _mm_xor_si128(_mm_xor_si128(fold128(x0, fold_k(X448, X384)),
                                            fold128(x1, fold_k(X320, X256))),
                              _mm_xor_si128(fold128(x2, fold_k(X192, X128)), x3));
    return fold_finish(x, p, len);
}

bool aal5_crc32_clmul_available(void)
{
    /* relaxed: every thread computes the same answer; a race only repeats the question */
    static _Atomic int cached = -1;
    int ok = atomic_load_explicit(&cached, memory_order_relaxed);
    if (ok < 0) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1") &&
             __builtin_cpu_supports("ssse3");
        atomic_store_explicit(&cached, ok, memory_order_relaxed);
    }
    return ok;
}

uint32_t aal5_crc32_update_clmul(uint32_t reg, const void *data, size_t len)
{
    if (len < 16 || !aal5_crc32_clmul_available())
        return aal5_crc32_update_table(reg, data, len);
    return crc_clmul(reg, data, len);
}

#else

uint32_t aal5_crc32_update_clmul(uint32_t reg, const void *data, size_t len)
{
    return aal5_crc32_update_table(reg, data, len);
}

bool aal5_crc32_clmul_available(void)
{
    return false;
}

#endif
