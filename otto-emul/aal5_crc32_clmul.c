/* aal5_crc32_clmul.c — CRC-32/BZIP2 by carry-less multiply folding (PCLMULQDQ), x86-64 only. */
#include "aal5_crc32.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Polynomial arithmetic mod P = 0x104C11DB7 with bit i of a register = coefficient of x^i;
 * data blocks are byte-reversed so the first byte of memory holds the highest powers.
 * A 128-bit block X = H*x^64 + L moved D bits further is congruent to
 * H*(x^(D+64) mod P) + L*(x^D mod P): a fold. Constants are x^N mod P. */
#define X576 0x8833794cull
#define X512 0xe6228b11ull
#define X448 0x64bf7a9bull
#define X384 0x8c3828a8ull
#define X320 0x569700e5ull
#define X256 0x75be46b7ull
#define X192 0xc5b9cd4cull
#define X128 0xe8a45605ull
#define X96  0xf200aa66ull
#define X64  0x490d678dull
#define BARRETT_MU 0x104d101dfull /* floor(x^64 / P) */
#define POLY 0x104c11db7ull

#define CLMUL_TARGET __attribute__((target("pclmul,ssse3,sse4.1")))

CLMUL_TARGET static inline __m128i fold(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x11), _mm_clmulepi64_si128(x, k, 0x00));
}

CLMUL_TARGET static inline __m128i load_block(const uint8_t *p, __m128i bswap)
{
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap);
}

CLMUL_TARGET uint32_t aal5_crc32_update_clmul(uint32_t reg, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (len < 64)
        return aal5_crc32_update_table(reg, p, len);

    const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m128i x0 = load_block(p, bswap), x1 = load_block(p + 16, bswap);
    __m128i x2 = load_block(p + 32, bswap), x3 = load_block(p + 48, bswap);
    /* The register preset is the same as XOR-ing it into the first 32 message bits. */
    x0 = _mm_xor_si128(x0, _mm_set_epi32((int)reg, 0, 0, 0));
    p += 64;
    len -= 64;

    const __m128i k512 = _mm_set_epi64x((long long)X576, (long long)X512);
    while (len >= 64) {
        x0 = _mm_xor_si128(fold(x0, k512), load_block(p, bswap));
        x1 = _mm_xor_si128(fold(x1, k512), load_block(p + 16, bswap));
        x2 = _mm_xor_si128(fold(x2, k512), load_block(p + 32, bswap));
        x3 = _mm_xor_si128(fold(x3, k512), load_block(p + 48, bswap));
        p += 64;
        len -= 64;
    }
    const __m128i k384 = _mm_set_epi64x((long long)X448, (long long)X384);
    const __m128i k256 = _mm_set_epi64x((long long)X320, (long long)X256);
    const __m128i k128 = _mm_set_epi64x((long long)X192, (long long)X128);
    __m128i x = _mm_xor_si128(_mm_xor_si128(fold(x0, k384), fold(x1, k256)),
                              _mm_xor_si128(fold(x2, k128), x3));
    while (len >= 16) {
        x = _mm_xor_si128(fold(x, k128), load_block(p, bswap));
        p += 16;
        len -= 16;
    }

    /* register = X * x^32 mod P. X*x^32 = A*x^96 + B*x^32 -> T (< 96 bits). */
    const __m128i k96 = _mm_set_epi64x(0, (long long)X96);
    __m128i t = _mm_xor_si128(_mm_clmulepi64_si128(x, k96, 0x01),
                              _mm_slli_si128(_mm_move_epi64(x), 4));
    /* T = C*x^64 + E -> U = C*(x^64 mod P) + E (< 64 bits). */
    const __m128i k64 = _mm_set_epi64x(0, (long long)X64);
    __m128i u = _mm_xor_si128(_mm_clmulepi64_si128(t, k64, 0x01), _mm_move_epi64(t));
    /* Barrett: q = floor(floor(U / x^32) * mu / x^32); remainder = U + q*P. */
    const __m128i mu_poly = _mm_set_epi64x((long long)POLY, (long long)BARRETT_MU);
    __m128i q = _mm_clmulepi64_si128(_mm_srli_epi64(u, 32), mu_poly, 0x00);
    q = _mm_srli_epi64(q, 32);
    __m128i r = _mm_xor_si128(u, _mm_clmulepi64_si128(q, mu_poly, 0x10));
    reg = (uint32_t)_mm_cvtsi128_si32(r);

    return aal5_crc32_update_table(reg, p, len);
}

bool aal5_crc32_clmul_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1") &&
           __builtin_cpu_supports("ssse3");
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
