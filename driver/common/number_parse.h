/* number_parse.h — the numbers of the programs' command lines, each contract named: a
 * quantity (decimal, 0x hex or 0 octal, with an optional K, M or G suffix for 2^10, 2^20,
 * 2^30), or a decimal in a range. None accepts a sign, an empty text or trailing junk. */
#ifndef NUMBER_PARSE_H
#define NUMBER_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* A quantity ("64K", "0x100", "3"); false if it is not one or does not fit 64 bits. */
bool parse_quantity_u64(const char *text, uint64_t *out);
/* A quantity that fits 32 bits. */
bool parse_quantity_u32(const char *text, uint32_t *out);
/* A plain decimal from lo to hi. */
bool parse_decimal_u32(const char *text, uint32_t lo, uint32_t hi, uint32_t *out);

#endif
