/* otto_rx.c — the receive side: cells from the switch reassembled per VC straight into the
 * next posted receive descriptor's buffers, checked, and reported. */
#include <string.h>

#include "otto_internal.h"

static void report_rx(struct otto_portion *p, struct otto_vc *v, uint64_t cookie,
                      uint32_t length, uint8_t status, uint8_t uu, uint8_t cpi)
{
    struct otto_report r = { .cookie = cookie, .length = length, .vc = v->index,
                             .kind = OTTO_REPORT_RX, .status = status, .uu = uu, .cpi = cpi };
    otto_report_publish(p, &r);
}

/* Takes the VC's next posted descriptor (copied once, then validated) with a report slot.
 * False when none is posted or no slot is free: the VC stalls and its credit stops. */
static bool take_rx_desc(struct otto_vc *v, struct otto_rx_desc *d)
{
    struct otto_portion *p = v->portion;
    struct otto_ring_index *idx = &p->rx_index[v->index];
    uint32_t avail = otto_ring_used(otto_ring_peek(&idx->prod), v->rx_cons);
    if (avail == 0 || avail > p->geo.rx_slots || !otto_report_reserve(p))
        return false;
    if (avail > v->c.rx_posted_max)
        v->c.rx_posted_max = avail;
    const struct otto_rx_desc *ring = p->rx_ring + (size_t)v->index * p->geo.rx_slots;
    otto_copy_in(d, &ring[otto_ring_slot(v->rx_cons, p->geo.rx_slots)], sizeof *d);
    otto_ring_publish(&idx->cons, ++v->rx_cons);
    return true;
}

static bool rx_begin(struct otto_vc *v)
{
    struct otto_portion *p = v->portion;
    struct otto_rx_desc d;
    while (take_rx_desc(v, &d)) {
        if (d.nfrags < 1 || otto_frags_check(p, d.frag, d.nfrags) < 0) {
            v->c.protection_errors++;
            report_rx(p, v, d.cookie, 0, OTTO_STATUS_PROTECTION, 0, 0);
            continue;
        }
        struct aal5_dest dest[OTTO_MAX_FRAGS];
        for (unsigned i = 0; i < d.nfrags; i++)
            dest[i] = (struct aal5_dest){ p->buf + d.frag[i].offset, d.frag[i].length };
        aal5_reasm_start(&v->reasm, dest, d.nfrags);
        v->rx_cookie = d.cookie;
        v->rx_active = true;
        return true;
    }
    return false;
}

static void rx_complete(struct otto_vc *v)
{
    struct aal5_rx_result res;
    aal5_reasm_finish(&v->reasm, &res);
    if (res.status == AAL5_OK) {
        v->c.rx_pdus++;
        v->c.rx_bytes += res.length;
    } else if (res.status == AAL5_CRC_ERROR) {
        v->c.crc_errors++;
    } else {
        v->c.length_errors++;
    }
    v->rx_active = false;
    report_rx(v->portion, v, v->rx_cookie, res.length, (uint8_t)res.status, res.uu, res.cpi);
}

/* Feeds cells [from, run->ncells) up to and including an end-of-PDU cell; returns the
 * cells consumed and sets *eop when the PDU is complete. */
static uint32_t feed(struct otto *o, struct otto_vc *v, const struct cell_run *run,
                     uint32_t from, bool *eop)
{
    *eop = false;
    if (!run->cells) { /* cut-through: straight from the sender's buffers */
        uint32_t first = run->first + from, end = run->first + run->ncells;
        if (end >= run->pdu->ncells) {
            end = run->pdu->ncells;
            *eop = true;
        }
        struct aal5_span spans[AAL5_MAX_FRAGS + 1];
        unsigned n = aal5_tx_pdu_spans(run->pdu, first * AAL5_CELL_PAYLOAD,
                                       (end - first) * AAL5_CELL_PAYLOAD, spans,
                                       AAL5_MAX_FRAGS + 1);
        for (unsigned i = 0; i < n; i++)
            aal5_reasm_bytes(&v->reasm, spans[i].ptr, spans[i].len);
        return end - first;
    }
    /* cells [start, i) are good and not the last of the PDU: reassembled together */
    uint32_t i = from, start = from;
    const uint8_t *good = NULL; /* the last header found good and not end-of-PDU */
    while (i < run->ncells) {
        const uint8_t *cell = run->cells + (size_t)i * AAL5_CELL_BYTES;
        if (good && memcmp(cell, good, AAL5_HEADER_BYTES) == 0) { /* the same verdict */
            i++;
            continue;
        }
        struct aal5_cell_header h;
        if (aal5_cell_header_decode(cell, &h) != 0) {
            aal5_reasm_cells(&v->reasm, run->cells + (size_t)start * AAL5_CELL_BYTES, i - start);
            o->hec_errors++; /* the cell is discarded, as hardware does */
            start = ++i;
            continue;
        }
        i++;
        if (aal5_pti_is_eop(h.pti)) {
            *eop = true;
            break;
        }
        good = cell;
    }
    aal5_reasm_cells(&v->reasm, run->cells + (size_t)start * AAL5_CELL_BYTES, i - start);
    return i - from;
}

uint32_t otto_rx_receive(void *ctx, uint16_t vpi, uint16_t vci, const struct cell_run *run,
                         uint64_t now)
{
    struct otto *o = ctx;
    struct otto_vc *v = vc_map_get(&o->rx_map, otto_vc_key(vpi, vci));
    if (!v) {
        o->unknown_vc_cells += run->ncells; /* nobody bound: discarded, credit returned */
        return run->ncells;
    }
    uint32_t taken = 0;
    while (taken < run->ncells) {
        if (!v->rx_active && !rx_begin(v))
            break;
        bool eop;
        uint32_t k = feed(o, v, run, taken, &eop);
        taken += k;
        v->c.rx_cells += k;
        if (eop)
            rx_complete(v);
    }
    otto_irq_check(o, v->portion);
    return taken;
}

void otto_rx_discard_partial(void *ctx, uint16_t vpi, uint16_t vci)
{
    struct otto *o = ctx;
    struct otto_vc *v = vc_map_get(&o->rx_map, otto_vc_key(vpi, vci));
    if (v && v->rx_active) /* start over in the same buffers; the descriptor is kept */
        aal5_reasm_start(&v->reasm, v->reasm.dest, v->reasm.ndest);
}

void otto_rx_abort(struct otto_vc *v, bool report)
{
    if (!v->rx_active)
        return;
    v->rx_active = false;
    if (report) {
        v->c.aborted++;
        report_rx(v->portion, v, v->rx_cookie, 0, OTTO_STATUS_ABORTED, 0, 0);
    } else {
        otto_report_unreserve(v->portion);
    }
}

bool otto_rx_drain(struct otto_vc *v)
{
    struct otto_portion *p = v->portion;
    struct otto_ring_index *idx = &p->rx_index[v->index];
    const struct otto_rx_desc *ring = p->rx_ring + (size_t)v->index * p->geo.rx_slots;
    while (v->rx_cons != v->drain_until && otto_report_reserve(p)) {
        struct otto_rx_desc d;
        otto_copy_in(&d, &ring[otto_ring_slot(v->rx_cons, p->geo.rx_slots)], sizeof d);
        otto_ring_publish(&idx->cons, ++v->rx_cons);
        v->c.aborted++;
        report_rx(p, v, d.cookie, 0, OTTO_STATUS_ABORTED, 0, 0);
    }
    if (v->rx_cons == v->drain_until)
        v->draining = false;
    return !v->draining;
}
