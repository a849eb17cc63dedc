/* aal5_crc32_table.c — portable slice-by-8 CRC-32/BZIP2 and the run-time engine choice. */
#include "aal5_crc32.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[8][256];
enum engine { ENGINE_TABLE, ENGINE_CLMUL, ENGINE_VPCLMUL };
static enum engine engine;
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t r = b << 24;
        for (int i = 0; i < 8; i++)
            r = (r & 0x80000000u) ? (r << 1) ^ 0x04C11DB7u : r << 1;
        crc_table[0][b] = r;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t b = 0; b < 256; b++) {
            uint32_t prev = crc_table[t - 1][b];
            crc_table[t][b] = (prev << 8) ^ crc_table[0][prev >> 24];
        }
    engine = aal5_crc32_vpclmul_available() ? ENGINE_VPCLMUL
           : aal5_crc32_clmul_available()   ? ENGINE_CLMUL
                                            : ENGINE_TABLE;
    /* AN2_CRC_ENGINE=table|clmul picks a slower engine (tests of the fallbacks). */
    const char *want = getenv("AN2_CRC_ENGINE");
    if (want && !strcmp(want, "table"))
        engine = ENGINE_TABLE;
    else if (want && !strcmp(want, "clmul") && engine == ENGINE_VPCLMUL)
        engine = ENGINE_CLMUL;
}

static inline uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint32_t aal5_crc32_update_table(uint32_t reg, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_init);
    const uint8_t *p = data;
    while (len >= 8) {
        uint32_t c = reg ^ load_be32(p);
        reg = crc_table[7][c >> 24] ^ crc_table[6][(c >> 16) & 0xff] ^
              crc_table[5][(c >> 8) & 0xff] ^ crc_table[4][c & 0xff] ^
              crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^ crc_table[0][p[7]];
        p += 8;
        len -= 8;
    }
    while (len--)
        reg = (reg << 8) ^ crc_table[0][(reg >> 24) ^ *p++];
    return reg;
}

uint32_t aal5_crc32_update(uint32_t reg, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_init);
    switch (engine) {
    case ENGINE_VPCLMUL:
        return aal5_crc32_update_vpclmul(reg, data, len);
    case ENGINE_CLMUL:
        return aal5_crc32_update_clmul(reg, data, len);
    default:
        return aal5_crc32_update_table(reg, data, len);
    }
}

const char *aal5_crc32_engine(void)
{
    pthread_once(&crc_once, crc_init);
    static const char *const names[] = { "table", "clmul", "vpclmul" };
    return names[engine];
}

uint32_t aal5_crc32(const void *data, size_t len)
{
    return ~aal5_crc32_update(AAL5_CRC32_INIT, data, len);
}

uint32_t aal5_crc32_copy(uint32_t reg, void *dst, const void *src, size_t len)
{
    pthread_once(&crc_once, crc_init);
    if (engine == ENGINE_VPCLMUL)
        return aal5_crc32_copy_vpclmul(reg, dst, src, len); /* one pass: load, store, fold */
    /* Chunks small enough that the CRC reads the source while it is still in L1. */
    enum { CHUNK = 4096 };
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        memcpy(d, s, n);
        reg = aal5_crc32_update(reg, s, n);
        d += n;
        s += n;
        len -= n;
    }
    return reg;
}
