/* aal5_crc32_vpclmul.c — CRC-32/BZIP2 folding four 128-bit lanes at a time (AVX-512
 * VPCLMULQDQ), optionally storing the bytes it reads: the receive path's copy and CRC fused. */
#include <stdatomic.h>
#include "aal5_crc32.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "aal5_crc32_fold.h"

#define VPCLMUL_TARGET \
    __attribute__((target("avx512f,avx512bw,avx512vl,vpclmulqdq,pclmul,ssse3,sse4.1")))

VPCLMUL_TARGET static inline __m512i fold512(__m512i x, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x11),
                            _mm512_clmulepi64_epi128(x, k, 0x00));
}

VPCLMUL_TARGET static inline __m512i bswap_lanes(__m512i x)
{
    const __m512i rev = _mm512_broadcast_i32x4(
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return _mm512_shuffle_epi8(x, rev);
}

/* The CRC register after data[0..len); when dst is not NULL the bytes are also stored there. */
VPCLMUL_TARGET static uint32_t crc_vpclmul(uint32_t reg, uint8_t *dst, const uint8_t *p,
                                           size_t len)
{
    if (len < 256) {
        if (dst)
            memcpy(dst, p, len);
        return aal5_crc32_update_clmul(reg, p, len);
    }
    __m512i r0 = _mm512_loadu_si512(p), r1 = _mm512_loadu_si512(p + 64);
    __m512i r2 = _mm512_loadu_si512(p + 128), r3 = _mm512_loadu_si512(p + 192);
    if (dst) {
        _mm512_storeu_si512(dst, r0);
        _mm512_storeu_si512(dst + 64, r1);
        _mm512_storeu_si512(dst + 128, r2);
        _mm512_storeu_si512(dst + 192, r3);
        dst += 256;
    }
    __m512i z0 = bswap_lanes(r0), z1 = bswap_lanes(r1), z2 = bswap_lanes(r2), z3 = bswap_lanes(r3);
    /* The register preset goes into the first 32 message bits (lane 0 of z0). */
    z0 = _mm512_xor_si512(z0, _mm512_zextsi128_si512(_mm_set_epi32((int)reg, 0, 0, 0)));
    p += 256;
    len -= 256;

    const __m512i k2048 = _mm512_broadcast_i32x4(fold_k(X2112, X2048));
    while (len >= 256) {
        r0 = _mm512_loadu_si512(p);
        r1 = _mm512_loadu_si512(p + 64);
        r2 = _mm512_loadu_si512(p + 128);
        r3 = _mm512_loadu_si512(p + 192);
        if (dst) {
            _mm512_storeu_si512(dst, r0);
            _mm512_storeu_si512(dst + 64, r1);
            _mm512_storeu_si512(dst + 128, r2);
            _mm512_storeu_si512(dst + 192, r3);
            dst += 256;
        }
        z0 = _mm512_xor_si512(fold512(z0, k2048), bswap_lanes(r0));
        z1 = _mm512_xor_si512(fold512(z1, k2048), bswap_lanes(r1));
        z2 = _mm512_xor_si512(fold512(z2, k2048), bswap_lanes(r2));
        z3 = _mm512_xor_si512(fold512(z3, k2048), bswap_lanes(r3));
        p += 256;
        len -= 256;
    }
    /* Four registers (64 bytes apart) into one, then its four lanes (16 bytes apart). */
    __m512i z = _mm512_xor_si512(
        _mm512_xor_si512(fold512(z0, _mm512_broadcast_i32x4(fold_k(X1600, X1536))),
                         fold512(z1, _mm512_broadcast_i32x4(fold_k(X1088, X1024)))),
        _mm512_xor_si512(fold512(z2, _mm512_broadcast_i32x4(fold_k(X576, X512))), z3));
    __m128i x = _mm_xor_si128(
        _mm_xor_si128(fold128(_mm512_extracti32x4_epi32(z, 0), fold_k(X448, X384)),
                      fold128(_mm512_extracti32x4_epi32(z, 1), fold_k(X320, X256))),
        _mm_xor_si128(fold128(_mm512_extracti32x4_epi32(z, 2), fold_k(X192, X128)),
                      _mm512_extracti32x4_epi32(z, 3)));
    if (dst)
        memcpy(dst, p, len);
    return fold_finish(x, p, len);
}

bool aal5_crc32_vpclmul_available(void)
{
    /* relaxed: every thread computes the same answer; a race only repeats the question */
    static _Atomic int cached = -1;
    int ok = atomic_load_explicit(&cached, memory_order_relaxed);
    if (ok < 0) {
        __builtin_cpu_init();
        ok = aal5_crc32_clmul_available() && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("vpclmulqdq");
        atomic_store_explicit(&cached, ok, memory_order_relaxed);
    }
    return ok;
}

uint32_t aal5_crc32_update_vpclmul(uint32_t reg, const void *data, size_t len)
{
    if (!aal5_crc32_vpclmul_available())
        return aal5_crc32_update_clmul(reg, data, len);
    return crc_vpclmul(reg, NULL, data, len);
}

uint32_t aal5_crc32_copy_vpclmul(uint32_t reg, void *dst, const void *src, size_t len)
{
    if (!aal5_crc32_vpclmul_available()) {
        memcpy(dst, src, len);
        return aal5_crc32_update_clmul(reg, src, len);
    }
    return crc_vpclmul(reg, dst, src, len);
}

#else

uint32_t aal5_crc32_update_vpclmul(uint32_t reg, const void *data, size_t len)
{
    return aal5_crc32_update_table(reg, data, len);
}

uint32_t aal5_crc32_copy_vpclmul(uint32_t reg, void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
    return aal5_crc32_update_table(reg, src, len);
}

bool aal5_crc32_vpclmul_available(void)
{
    return false;
}

#endif
