/* aal5_cell.h — ATM cell headers (UNI format) and their HEC (ITU-T I.432 CRC-8). */
#ifndef AAL5_CELL_H
#define AAL5_CELL_H

#include <stdbool.h>
#include <stdint.h>

#define AAL5_CELL_BYTES    53u
#define AAL5_HEADER_BYTES  5u
#define AAL5_CELL_PAYLOAD  48u
#define AAL5_MAX_VPI       255u    /* UNI header: 8-bit VPI after the 4-bit GFC */
#define AAL5_PTI_EOP       0x1u    /* PTI 0b001: user data, SDU type 1 = last cell of a PDU */

struct aal5_cell_header {
    uint8_t  gfc;   /* 4 bits */
    uint16_t vpi;   /* 8 bits */
    uint16_t vci;   /* 16 bits */
    uint8_t  pti;   /* 3 bits */
    uint8_t  clp;   /* 1 bit */
};

extern const uint8_t aal5_crc8_tables[4][256];

/* CRC-8 x^8+x^2+x+1 over the first four header bytes, XOR 0x55 (the coset of I.432): the
 * CRC is linear, so it is the XOR of each byte's CRC shifted by the bytes after it. */
static inline uint8_t aal5_hec(const uint8_t header4[4])
{
    return (uint8_t)(aal5_crc8_tables[3][header4[0]] ^ aal5_crc8_tables[2][header4[1]] ^
                     aal5_crc8_tables[1][header4[2]] ^ aal5_crc8_tables[0][header4[3]] ^ 0x55);
}
/* Plain CRC-8 (poly 0x07, init 0, no XOR) for the check value: 0xF4 for "123456789". */
uint8_t aal5_crc8(const void *data, unsigned len);
void aal5_cell_header_encode(uint8_t out[AAL5_HEADER_BYTES], const struct aal5_cell_header *h);
/* 0, or -EBADMSG when the HEC does not match (the cell must be discarded). */
int aal5_cell_header_decode(const uint8_t in[AAL5_HEADER_BYTES], struct aal5_cell_header *h);

/* Rewrites the VPI/VCI of a header whose HEC is known good (GFC, PTI, CLP kept) and
 * recomputes its HEC: what a switch does to every cell it forwards. */
static inline void aal5_cell_header_set_vc(uint8_t hdr[AAL5_HEADER_BYTES], uint16_t vpi,
                                           uint16_t vci)
{
    hdr[0] = (uint8_t)((hdr[0] & 0xf0) | (vpi >> 4 & 0xf));
    hdr[1] = (uint8_t)((vpi & 0xf) << 4 | (vci >> 12 & 0xf));
    hdr[2] = (uint8_t)(vci >> 4);
    hdr[3] = (uint8_t)((vci & 0xf) << 4 | (hdr[3] & 0x0f));
    hdr[4] = aal5_hec(hdr);
}

static inline bool aal5_pti_is_eop(uint8_t pti)
{
    return (pti & 0x4u) == 0 && (pti & AAL5_PTI_EOP) != 0; /* user-data cell, SDU type 1 */
}

#endif
