/* aal5_pdu.c — AAL5 CPCS-PDU framing and segmentation on the sending side. */
#include "aal5_pdu.h"

#include <errno.h>
#include <string.h>

#include "aal5_crc32.h"

int aal5_tx_pdu_init(struct aal5_tx_pdu *pdu, const struct aal5_span *frags, unsigned nfrags,
                     uint8_t uu, uint8_t cpi)
{
    if (nfrags > AAL5_MAX_FRAGS)
        return -EINVAL;
    uint64_t total = 0;
    pdu->nfrags = 0;
    for (unsigned i = 0; i < nfrags; i++) {
        total += frags[i].len;
        if (frags[i].len)
            pdu->frag[pdu->nfrags++] = frags[i];
    }
    if (total > AAL5_MAX_PAYLOAD)
        return -EMSGSIZE;
    pdu->length = (uint32_t)total;
    pdu->ncells = aal5_cells_for(pdu->length);
    pdu->pad = pdu->ncells * AAL5_CELL_PAYLOAD - AAL5_TRAILER - pdu->length;
    memset(pdu->tail, 0, sizeof pdu->tail);
    uint8_t *trailer = pdu->tail + pdu->pad;
    trailer[0] = uu;
    trailer[1] = cpi;
    trailer[2] = (uint8_t)(pdu->length >> 8);
    trailer[3] = (uint8_t)pdu->length;
    pdu->crc_reg = AAL5_CRC32_INIT;
    pdu->crc_cells = 0;
    return 0;
}

unsigned aal5_tx_pdu_spans(const struct aal5_tx_pdu *pdu, uint32_t off, uint32_t len,
                           struct aal5_span *out, unsigned max)
{
    unsigned n = 0;
    uint32_t base = 0;
    for (unsigned i = 0; i < pdu->nfrags && len && n < max; i++) {
        uint32_t flen = pdu->frag[i].len;
        if (off < base + flen) {
            uint32_t in = off - base;
            uint32_t take = flen - in < len ? flen - in : len;
            out[n++] = (struct aal5_span){ pdu->frag[i].ptr + in, take };
            off += take;
            len -= take;
        }
        base += flen;
    }
    if (len && n < max) {
        uint32_t in = off - base; /* off >= base: every fragment is behind us */
        out[n++] = (struct aal5_span){ pdu->tail + in, len };
    }
    return n;
}

void aal5_tx_pdu_crc_through(struct aal5_tx_pdu *pdu, uint32_t end_cell)
{
    if (end_cell <= pdu->crc_cells)
        return;
    bool last = end_cell >= pdu->ncells;
    uint32_t from = pdu->crc_cells * AAL5_CELL_PAYLOAD;
    /* The CRC field itself is not covered: it is what is being computed. */
    uint32_t to = last ? pdu->ncells * AAL5_CELL_PAYLOAD - 4 : end_cell * AAL5_CELL_PAYLOAD;
    struct aal5_span spans[AAL5_MAX_FRAGS + 1];
    unsigned n = aal5_tx_pdu_spans(pdu, from, to - from, spans, AAL5_MAX_FRAGS + 1);
    uint32_t reg = pdu->crc_reg;
    for (unsigned i = 0; i < n; i++)
        reg = aal5_crc32_update(reg, spans[i].ptr, spans[i].len);
    pdu->crc_reg = reg;
    pdu->crc_cells = last ? pdu->ncells : end_cell;
    if (last) {
        uint32_t crc = ~reg;
        uint8_t *field = pdu->tail + pdu->pad + 4;
        field[0] = (uint8_t)(crc >> 24);
        field[1] = (uint8_t)(crc >> 16);
        field[2] = (uint8_t)(crc >> 8);
        field[3] = (uint8_t)crc;
    }
}

void aal5_tx_pdu_cell(const struct aal5_tx_pdu *pdu, uint32_t index, uint16_t vpi, uint16_t vci,
                      uint8_t out[AAL5_CELL_BYTES])
{
    struct aal5_cell_header h = {
        .vpi = vpi, .vci = vci, .pti = index + 1 == pdu->ncells ? AAL5_PTI_EOP : 0,
    };
    aal5_cell_header_encode(out, &h);
    struct aal5_span spans[AAL5_MAX_FRAGS + 1];
    unsigned n = aal5_tx_pdu_spans(pdu, index * AAL5_CELL_PAYLOAD, AAL5_CELL_PAYLOAD, spans,
                                   AAL5_MAX_FRAGS + 1);
    uint8_t *p = out + AAL5_HEADER_BYTES;
    for (unsigned i = 0; i < n; i++) {
        memcpy(p, spans[i].ptr, spans[i].len);
        p += spans[i].len;
    }
}

void aal5_tx_pdu_cells(const struct aal5_tx_pdu *pdu, uint32_t first, uint32_t n, uint16_t vpi,
                       uint16_t vci, uint8_t *out)
{
    uint8_t hdr[AAL5_HEADER_BYTES], eop_hdr[AAL5_HEADER_BYTES];
    struct aal5_cell_header h = { .vpi = vpi, .vci = vci };
    aal5_cell_header_encode(hdr, &h);
    h.pti = AAL5_PTI_EOP;
    aal5_cell_header_encode(eop_hdr, &h);
    struct aal5_span spans[AAL5_MAX_FRAGS + 1];
    unsigned ns = aal5_tx_pdu_spans(pdu, first * AAL5_CELL_PAYLOAD, n * AAL5_CELL_PAYLOAD, spans,
                                    AAL5_MAX_FRAGS + 1);
    unsigned s = 0;
    uint32_t soff = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint8_t *cell = out + (size_t)k * AAL5_CELL_BYTES;
        memcpy(cell, first + k + 1 == pdu->ncells ? eop_hdr : hdr, AAL5_HEADER_BYTES);
        uint8_t *p = cell + AAL5_HEADER_BYTES;
        uint32_t need = AAL5_CELL_PAYLOAD;
        while (need && s < ns) { /* at most one step per span and one per cell */
            uint32_t take = spans[s].len - soff < need ? spans[s].len - soff : need;
            memcpy(p, spans[s].ptr + soff, take);
            p += take;
            need -= take;
            soff += take;
            if (soff == spans[s].len) {
                s++;
                soff = 0;
            }
        }
    }
}

int aal5_segment(const void *payload, size_t len, uint8_t uu, uint8_t cpi, uint16_t vpi,
                 uint16_t vci, uint8_t *cells_out, size_t cap)
{
    if (len > AAL5_MAX_PAYLOAD)
        return -EMSGSIZE;
    struct aal5_tx_pdu pdu;
    struct aal5_span span = { payload, (uint32_t)len };
    int rc = aal5_tx_pdu_init(&pdu, &span, 1, uu, cpi);
    if (rc)
        return rc;
    if (pdu.ncells > cap)
        return -ENOSPC;
    aal5_tx_pdu_crc_through(&pdu, pdu.ncells);
    for (uint32_t i = 0; i < pdu.ncells; i++)
        aal5_tx_pdu_cell(&pdu, i, vpi, vci, cells_out + (size_t)i * AAL5_CELL_BYTES);
    return (int)pdu.ncells;
}
