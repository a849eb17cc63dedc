/* aal5_crc32_fold.h — carry-less-multiply folding helpers shared by the PCLMULQDQ and
 * VPCLMULQDQ CRC-32/BZIP2 engines (x86-64 only; include only where __x86_64__). */
#ifndef AAL5_CRC32_FOLD_H
#define AAL5_CRC32_FOLD_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "aal5_crc32.h"

/* Polynomial arithmetic mod P = 0x104C11DB7 with bit i of a register = coefficient of x^i;
 * data blocks are byte-reversed so the first byte of memory holds the highest powers.
 * A 128-bit block X = H*x^64 + L moved D bits further is congruent to
 * H*(x^(D+64) mod P) + L*(x^D mod P): a fold. Constants are x^N mod P. */
#define X2112 0xcbcf3bcbull
#define X2048 0x88fe2237ull
#define X1600 0xdc53dfccull
#define X1536 0xd2536d46ull
#define X1088 0x10bd4d7cull
#define X1024 0x567fddebull
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

CLMUL_TARGET static inline __m128i fold128(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x11), _mm_clmulepi64_si128(x, k, 0x00));
}

CLMUL_TARGET static inline __m128i fold_k(uint64_t hi, uint64_t lo)
{
    return _mm_set_epi64x((long long)hi, (long long)lo);
}

CLMUL_TARGET static inline __m128i bswap128(__m128i x)
{
    const __m128i rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(x, rev);
}

/* pshufb masks: loaded at an offset they shift a register by whole bytes (0x80: zero). */
static const uint8_t fold_shift_masks[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};
static const uint8_t fold_low_bytes[32] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* Folds the remaining bytes into x and reduces x to a register. The bytes before p (at
 * least 16) were folded already, so a last partial block is read as the 16 bytes ending at
 * the end of the data: x * x^(8n) + T = H * x^128 + (A + T), with A = x shifted up n bytes
 * and H the bytes shifted out. */
CLMUL_TARGET static inline uint32_t fold_finish(__m128i x, const uint8_t *p, size_t len)
{
    const __m128i k128 = fold_k(X192, X128);
    while (len >= 16) {
        x = _mm_xor_si128(fold128(x, k128), bswap128(_mm_loadu_si128((const __m128i *)p)));
        p += 16;
        len -= 16;
    }
    if (len) {
        __m128i last = bswap128(_mm_loadu_si128((const __m128i *)(p + len - 16)));
        __m128i tail = _mm_and_si128(
            last, _mm_loadu_si128((const __m128i *)(fold_low_bytes + 16 - len)));
        __m128i up = _mm_shuffle_epi8(
            x, _mm_loadu_si128((const __m128i *)(fold_shift_masks + 16 - len)));
        __m128i out = _mm_shuffle_epi8(
            x, _mm_loadu_si128((const __m128i *)(fold_shift_masks + 32 - len)));
        x = _mm_xor_si128(fold128(out, k128), _mm_xor_si128(up, tail));
    }
    /* register = X * x^32 mod P. X*x^32 = A*x^96 + B*x^32 -> T (< 96 bits). */
    const __m128i k96 = fold_k(0, X96);
    __m128i t = _mm_xor_si128(_mm_clmulepi64_si128(x, k96, 0x01),
                              _mm_slli_si128(_mm_move_epi64(x), 4));
    /* T = C*x^64 + E -> U = C*(x^64 mod P) + E (< 64 bits). */
    const __m128i k64 = fold_k(0, X64);
    __m128i u = _mm_xor_si128(_mm_clmulepi64_si128(t, k64, 0x01), _mm_move_epi64(t));
    /* Barrett: q = floor(floor(U / x^32) * mu / x^32); remainder = U + q*P. */
    const __m128i mu_poly = fold_k(POLY, BARRETT_MU);
    __m128i q = _mm_clmulepi64_si128(_mm_srli_epi64(u, 32), mu_poly, 0x00);
    q = _mm_srli_epi64(q, 32);
    __m128i r = _mm_xor_si128(u, _mm_clmulepi64_si128(q, mu_poly, 0x10));
    return (uint32_t)_mm_cvtsi128_si32(r);
}

#endif
