/* aal5_cell.c — ATM cell header encoding and decoding with the HEC. */
#include "aal5_cell.h"

#include <errno.h>

static uint8_t crc8_step(uint8_t crc, uint8_t byte)
{
    crc ^= byte;
    for (int i = 0; i < 8; i++)
        crc = (crc & 0x80) ? (uint8_t)((crc << 1) ^ 0x07) : (uint8_t)(crc << 1);
    return crc;
}

uint8_t aal5_crc8(const void *data, unsigned len)
{
    const uint8_t *p = data;
    uint8_t crc = 0;
    while (len--)
        crc = crc8_step(crc, *p++);
    return crc;
}

uint8_t aal5_hec(const uint8_t header4[4])
{
    return aal5_crc8(header4, 4) ^ 0x55;
}

void aal5_cell_header_encode(uint8_t out[AAL5_HEADER_BYTES], const struct aal5_cell_header *h)
{
    out[0] = (uint8_t)((h->gfc & 0xf) << 4 | (h->vpi >> 4 & 0xf));
    out[1] = (uint8_t)((h->vpi & 0xf) << 4 | (h->vci >> 12 & 0xf));
    out[2] = (uint8_t)(h->vci >> 4);
    out[3] = (uint8_t)((h->vci & 0xf) << 4 | (h->pti & 0x7) << 1 | (h->clp & 1));
    out[4] = aal5_hec(out);
}

int aal5_cell_header_decode(const uint8_t in[AAL5_HEADER_BYTES], struct aal5_cell_header *h)
{
    if (aal5_hec(in) != in[4])
        return -EBADMSG;
    h->gfc = in[0] >> 4;
    h->vpi = (uint16_t)((in[0] & 0xf) << 4 | in[1] >> 4);
    h->vci = (uint16_t)((in[1] & 0xf) << 12 | in[2] << 4 | in[3] >> 4);
    h->pti = (in[3] >> 1) & 0x7;
    h->clp = in[3] & 1;
    return 0;
}
