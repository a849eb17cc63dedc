/* aal5_reasm.c — AAL5 reassembly with CRC-32 and Length checks. */
#include "aal5_reasm.h"

#include <string.h>

#include "aal5_crc32.h"

#define MAX_STREAM (AAL5_MAX_CELLS * AAL5_CELL_PAYLOAD)

void aal5_reasm_start(struct aal5_reasm *r, const struct aal5_dest *dest, unsigned n)
{
    r->ndest = 0;
    r->capacity = 0;
    for (unsigned i = 0; i < n && i < AAL5_MAX_FRAGS; i++) {
        if (!dest[i].len)
            continue;
        r->dest[r->ndest++] = dest[i];
        r->capacity += dest[i].len;
    }
    r->di = r->doff = 0;
    r->bytes = 0;
    r->crc_reg = AAL5_CRC32_INIT;
    memset(r->last8, 0, sizeof r->last8);
    r->overflow = false;
}

static void keep_last8(struct aal5_reasm *r, const uint8_t *p, uint32_t len)
{
    if (len >= AAL5_TRAILER) {
        memcpy(r->last8, p + len - AAL5_TRAILER, AAL5_TRAILER);
    } else {
        memmove(r->last8, r->last8 + len, AAL5_TRAILER - len);
        memcpy(r->last8 + AAL5_TRAILER - len, p, len);
    }
}

void aal5_reasm_bytes(struct aal5_reasm *r, const void *data, uint32_t len)
{
    const uint8_t *p = data;
    if (r->overflow)
        return;
    if (len > MAX_STREAM - r->bytes) {
        r->overflow = true; /* no PDU is this long: the end-of-PDU cell was lost */
        return;
    }
    r->bytes += len;
    keep_last8(r, p, len);
    while (len && r->di < r->ndest) {
        struct aal5_dest *d = &r->dest[r->di];
        uint32_t n = d->len - r->doff < len ? d->len - r->doff : len;
        r->crc_reg = aal5_crc32_copy(r->crc_reg, d->ptr + r->doff, p, n);
        p += n;
        len -= n;
        r->doff += n;
        if (r->doff == d->len) {
            r->di++;
            r->doff = 0;
        }
    }
    if (len)
        r->crc_reg = aal5_crc32_update(r->crc_reg, p, len);
}

void aal5_reasm_cells(struct aal5_reasm *r, const uint8_t *cells, uint32_t n)
{
    enum { CHUNK_CELLS = 64 }; /* 3 KiB */
    uint8_t buf[CHUNK_CELLS * AAL5_CELL_PAYLOAD];
    while (n) {
        uint32_t k = n < CHUNK_CELLS ? n : CHUNK_CELLS;
        if (r->overflow || k * AAL5_CELL_PAYLOAD > MAX_STREAM - r->bytes)
            k = 1; /* where the stream ends too long: cell by cell, as aal5_reasm_bytes counts */
        for (uint32_t i = 0; i < k; i++)
            memcpy(buf + (size_t)i * AAL5_CELL_PAYLOAD,
                   cells + (size_t)i * AAL5_CELL_BYTES + AAL5_HEADER_BYTES, AAL5_CELL_PAYLOAD);
        aal5_reasm_bytes(r, buf, k * AAL5_CELL_PAYLOAD);
        cells += (size_t)k * AAL5_CELL_BYTES;
        n -= k;
    }
}

void aal5_reasm_finish(const struct aal5_reasm *r, struct aal5_rx_result *out)
{
    uint32_t stored = r->bytes < r->capacity ? r->bytes : r->capacity;
    out->ncells = r->bytes / AAL5_CELL_PAYLOAD;
    out->uu = r->last8[0];
    out->cpi = r->last8[1];
    out->length = stored;
    if (r->overflow || r->bytes < AAL5_CELL_PAYLOAD || r->bytes % AAL5_CELL_PAYLOAD) {
        out->status = AAL5_LENGTH_ERROR;
        return;
    }
    if (r->crc_reg != AAL5_CRC32_RESIDUE) {
        out->status = AAL5_CRC_ERROR;
        return;
    }
    uint32_t length = (uint32_t)r->last8[2] << 8 | r->last8[3];
    if (aal5_cells_for(length) != out->ncells || length > r->capacity) {
        out->status = AAL5_LENGTH_ERROR; /* inconsistent with the cells, or does not fit */
        return;
    }
    out->status = AAL5_OK;
    out->length = length;
}
