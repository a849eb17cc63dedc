/* aal5_crc32.h — CRC-32 with the AAL5 (CRC-32/BZIP2) parameters: fast where the CPU allows. */
#ifndef AAL5_CRC32_H
#define AAL5_CRC32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Generator 0x04C11DB7, MSB first, register preset to all ones, result complemented:
 * aal5_crc32("123456789") == 0xFC891918. The *_update functions work on the raw register,
 * so a CRC can be carried across any split of the data:
 *     reg = AAL5_CRC32_INIT; reg = aal5_crc32_update(reg, a, n); ...; crc = ~reg; */
#define AAL5_CRC32_INIT 0xFFFFFFFFu
/* The register after a whole CPCS-PDU whose last four bytes are its own (big-endian) CRC. */
#define AAL5_CRC32_RESIDUE 0xC704DD7Bu

uint32_t aal5_crc32_update(uint32_t reg, const void *data, size_t len);
uint32_t aal5_crc32(const void *data, size_t len);
/* memcpy(dst, src, len) fused with the CRC of the bytes copied (read from src). */
uint32_t aal5_crc32_copy(uint32_t reg, void *dst, const void *src, size_t len);

/* The engines behind aal5_crc32_update, chosen at run time, exposed for tests and
 * benchmarks: slice-by-8 tables; PCLMULQDQ folding; AVX-512 VPCLMULQDQ folding. Each works
 * (by falling back) on any x86-64 CPU; the *_available functions say which are fast. */
uint32_t aal5_crc32_update_table(uint32_t reg, const void *data, size_t len);
uint32_t aal5_crc32_update_clmul(uint32_t reg, const void *data, size_t len);
uint32_t aal5_crc32_update_vpclmul(uint32_t reg, const void *data, size_t len);
uint32_t aal5_crc32_copy_vpclmul(uint32_t reg, void *dst, const void *src, size_t len);
bool aal5_crc32_clmul_available(void);
bool aal5_crc32_vpclmul_available(void);
/* "vpclmul", "clmul" or "table": the engine aal5_crc32_update uses (the fastest the CPU
 * has, unless the environment's AN2_CRC_ENGINE asks for "table" or "clmul"). */
const char *aal5_crc32_engine(void);

#endif
