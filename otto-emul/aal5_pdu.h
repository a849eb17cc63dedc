/* aal5_pdu.h — AAL5 CPCS-PDU framing on the sending side: payload fragments + pad + trailer,
 * cut into 48-byte cell payloads on demand, with the CRC accumulated cell by cell. */
#ifndef AAL5_PDU_H
#define AAL5_PDU_H

#include <stddef.h>
#include <stdint.h>

#include "aal5_cell.h"

#define AAL5_MAX_PAYLOAD  65535u
#define AAL5_TRAILER      8u
#define AAL5_MAX_FRAGS    8u
#define AAL5_MAX_CELLS    ((AAL5_MAX_PAYLOAD + AAL5_TRAILER + AAL5_CELL_PAYLOAD - 1) / AAL5_CELL_PAYLOAD)

struct aal5_span {
    const uint8_t *ptr;
    uint32_t len;
};

/* One PDU being sent. The bytes of the CPCS-PDU ("the stream") are the fragments, then
 * tail[0 .. pad + 8): zero pad, UU, CPI, Length, CRC. */
struct aal5_tx_pdu {
    struct aal5_span frag[AAL5_MAX_FRAGS];
    uint32_t nfrags;
    uint32_t length;     /* payload bytes */
    uint32_t pad;        /* 0..47 */
    uint32_t ncells;
    uint32_t crc_reg;    /* CRC register over stream bytes [0, crc_cells * 48) */
    uint32_t crc_cells;
    uint8_t  tail[AAL5_CELL_PAYLOAD + AAL5_TRAILER];
};

static inline uint32_t aal5_cells_for(uint32_t payload)
{
    return (payload + AAL5_TRAILER + AAL5_CELL_PAYLOAD - 1) / AAL5_CELL_PAYLOAD;
}

/* 0, or -EMSGSIZE when the fragments hold more than 65,535 bytes, -EINVAL for nfrags > 8. */
int aal5_tx_pdu_init(struct aal5_tx_pdu *pdu, const struct aal5_span *frags, unsigned nfrags,
                     uint8_t uu, uint8_t cpi);
/* Runs the CRC over every cell before `end_cell` not yet covered (cells go out in order);
 * once it covers the last cell the trailer's CRC field is written. */
void aal5_tx_pdu_crc_through(struct aal5_tx_pdu *pdu, uint32_t end_cell);
/* The contiguous pieces of stream bytes [off, off + len): up to max spans; returns count. */
unsigned aal5_tx_pdu_spans(const struct aal5_tx_pdu *pdu, uint32_t off, uint32_t len,
                           struct aal5_span *out, unsigned max);
/* Writes cell `index` (header for vpi.vci, EOP on the last, and payload) into out; the CRC
 * must already cover it (aal5_tx_pdu_crc_through). */
void aal5_tx_pdu_cell(const struct aal5_tx_pdu *pdu, uint32_t index, uint16_t vpi, uint16_t vci,
                      uint8_t out[AAL5_CELL_BYTES]);
/* Cells first .. first+n-1 of the PDU, AAL5_CELL_BYTES apart from out on: as n calls of
 * aal5_tx_pdu_cell, with the header's HEC computed once for the cells that share it. */
void aal5_tx_pdu_cells(const struct aal5_tx_pdu *pdu, uint32_t first, uint32_t n, uint16_t vpi,
                       uint16_t vci, uint8_t *out);

/* Segments a flat payload into cells (53 bytes each) in cells_out (room for cap cells).
 * Returns the number of cells, -EMSGSIZE (> 65,535 bytes) or -ENOSPC. */
int aal5_segment(const void *payload, size_t len, uint8_t uu, uint8_t cpi, uint16_t vpi,
                 uint16_t vci, uint8_t *cells_out, size_t cap);

#endif
