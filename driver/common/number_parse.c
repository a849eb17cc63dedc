/* number_parse.c — command-line numbers: quantities with binary suffixes, ranged decimals. */
#include "number_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

bool parse_quantity_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text || *text == '-')
        return false;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (*end || (shift && v > (ULLONG_MAX >> shift)))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

bool parse_quantity_u32(const char *text, uint32_t *out)
{
    uint64_t v;
    if (!parse_quantity_u64(text, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool parse_decimal_u32(const char *text, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || *text == '-' || v < lo || v > hi)
        return false;
    *out = (uint32_t)v;
    return true;
}
