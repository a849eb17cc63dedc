/* aal5_reasm.h — AAL5 reassembly of one VC's PDU into the receiver's buffers, checking the
 * CPCS-PDU's CRC-32 and Length as the bytes stream in. */
#ifndef AAL5_REASM_H
#define AAL5_REASM_H

#include <stdbool.h>
#include <stdint.h>

#include "aal5_pdu.h"

/* The same numbers as OTTO_STATUS_OK / _CRC_ERROR / _LENGTH_ERROR. */
enum aal5_status { AAL5_OK = 0, AAL5_CRC_ERROR = 1, AAL5_LENGTH_ERROR = 2 };

struct aal5_dest {
    uint8_t *ptr;
    uint32_t len;
};

struct aal5_reasm {
    struct aal5_dest dest[AAL5_MAX_FRAGS];
    uint32_t ndest;
    uint32_t capacity;    /* sum of dest lengths */
    uint32_t di, doff;    /* where the next stream byte goes: dest[di].ptr[doff] */
    uint32_t bytes;       /* stream bytes received (saturates past the largest PDU) */
    uint32_t crc_reg;
    uint8_t  last8[AAL5_TRAILER]; /* the last eight stream bytes: the trailer at the end */
    bool     overflow;    /* more cells than the largest PDU has */
};

struct aal5_rx_result {
    enum aal5_status status;
    uint32_t length;      /* payload bytes (OK), else the bytes that reached the buffers */
    uint32_t ncells;
    uint8_t  uu, cpi;
};

/* Begins a PDU whose payload goes to dest[0..n) (n <= 8; may be 0 for a discard buffer). */
void aal5_reasm_start(struct aal5_reasm *r, const struct aal5_dest *dest, unsigned n);
/* Feeds stream bytes (cell payloads, in order). Bytes past the buffers' capacity are checked
 * but not stored. */
void aal5_reasm_bytes(struct aal5_reasm *r, const void *data, uint32_t len);
/* The payloads of n cells, AAL5_CELL_BYTES apart from cells on: as aal5_reasm_bytes of each,
 * gathered first into a buffer that stays in the L1 cache, so that the CRC runs over many
 * cells' bytes in one pass. */
void aal5_reasm_cells(struct aal5_reasm *r, const uint8_t *cells, uint32_t n);
/* The end-of-PDU cell has been fed: checks CRC and Length. */
void aal5_reasm_finish(const struct aal5_reasm *r, struct aal5_rx_result *out);

#endif
