/* otto_tx.c — the transmit side: descriptors off the single ring into per-VC queues, then
 * cells to the switch under credit and the link's clock, one VC never blocking another. */
#include <stdlib.h>

#include "an2_capture.h"
#include "otto_internal.h"

static void tx_list_add(struct otto *o, struct otto_vc *v)
{
    if (v->tx_listed)
        return;
    if (o->ntx_active == o->tx_active_cap) {
        uint32_t cap = o->tx_active_cap ? o->tx_active_cap * 2 : 16;
        struct otto_vc **a = realloc(o->tx_active, cap * sizeof *a);
        if (!a)
            abort(); /* a pointer per VC: no way to go on without it */
        o->tx_active = a;
        o->tx_active_cap = cap;
    }
    v->tx_index = o->ntx_active;
    o->tx_active[o->ntx_active++] = v;
    v->tx_listed = true;
}

void otto_tx_list_remove(struct otto *o, struct otto_vc *v)
{
    if (!v->tx_listed)
        return;
    struct otto_vc *last = o->tx_active[--o->ntx_active];
    o->tx_active[v->tx_index] = last;
    last->tx_index = v->tx_index;
    v->tx_listed = false;
}

void otto_tx_free_item(struct otto_portion *p, uint32_t item)
{
    p->pool[item].next = p->free_head;
    p->free_head = item;
}

static void report_tx(struct otto_portion *p, const struct otto_tx_desc *d, uint32_t length,
                      uint8_t status)
{
    struct otto_report r = { .cookie = d->cookie, .length = length, .vc = d->vc,
                             .kind = OTTO_REPORT_TX, .status = status };
    otto_report_publish(p, &r);
}

/* Takes what the host has put on its transmit ring, as far as report slots and the
 * queue pool allow. Each descriptor is copied once and the copy validated. */
bool otto_tx_take(struct otto *o, struct otto_portion *p)
{
    uint32_t avail = otto_ring_used(otto_ring_peek(&p->hdr->tx.prod), p->tx_cons);
    if (avail == 0 || avail > p->geo.tx_slots)
        return false; /* nothing, or a prod no ring can have: ignored until it makes sense */
    uint32_t taken = 0;
    while (taken < avail && p->free_head != OTTO_NIL && otto_report_reserve(p)) {
        uint32_t item = p->free_head;
        struct otto_tx_desc *d = &p->pool[item].d;
        otto_copy_in(d, &p->tx_ring[otto_ring_slot(p->tx_cons, p->geo.tx_slots)], sizeof *d);
        p->tx_cons++;
        taken++;

        struct otto_vc *v = d->vc < p->geo.max_vcs ? &p->vcs[d->vc] : NULL;
        int64_t len = otto_frags_check(p, d->frag, d->nfrags);
        if (!v || !v->bound || len < 0 || len > OTTO_MAX_PDU || d->cpi != 0) {
            if (v)
                v->c.protection_errors++;
            report_tx(p, d, 0, OTTO_STATUS_PROTECTION);
            continue;
        }
        if (v->peer_gone) {
            report_tx(p, d, 0, OTTO_STATUS_PEER_GONE);
            continue;
        }
        p->free_head = p->pool[item].next;
        p->pool[item].next = OTTO_NIL;
        if (v->q_tail == OTTO_NIL)
            v->q_head = item;
        else
            p->pool[v->q_tail].next = item;
        v->q_tail = item;
        tx_list_add(o, v);
    }
    otto_ring_publish(&p->hdr->tx.cons, p->tx_cons);
    return taken > 0;
}

static bool tx_start_next(struct otto_vc *v)
{
    struct otto_portion *p = v->portion;
    if (v->q_head == OTTO_NIL)
        return false;
    uint32_t item = v->q_head;
    v->q_head = p->pool[item].next;
    if (v->q_head == OTTO_NIL)
        v->q_tail = OTTO_NIL;
    const struct otto_tx_desc *d = &p->pool[item].d;
    struct aal5_span spans[OTTO_MAX_FRAGS];
    for (unsigned i = 0; i < d->nfrags; i++)
        spans[i] = (struct aal5_span){ p->buf + d->frag[i].offset, d->frag[i].length };
    aal5_tx_pdu_init(&v->pdu, spans, d->nfrags, d->uu, d->cpi); /* validated: cannot fail */
    v->cur = item;
    v->next_cell = 0;
    return true;
}

static void tx_finish(struct otto_vc *v, uint8_t status)
{
    struct otto_portion *p = v->portion;
    const struct otto_tx_desc *d = &p->pool[v->cur].d;
    if (status == OTTO_STATUS_OK) {
        v->c.tx_pdus++;
        v->c.tx_bytes += v->pdu.length;
    } else if (status == OTTO_STATUS_ABORTED) {
        v->c.aborted++;
    }
    report_tx(p, d, status == OTTO_STATUS_OK ? v->pdu.length : 0, status);
    otto_tx_free_item(p, v->cur);
    v->cur = OTTO_NIL;
}

void otto_tx_flush(struct otto *o, struct otto_vc *v, uint8_t status, bool report)
{
    struct otto_portion *p = v->portion;
    if (v->cur != OTTO_NIL) {
        if (v->next_cell > 0)
            an2_switch_abort_pdu(o->sw, o->port, v->vpi, v->vci);
        if (report) {
            tx_finish(v, status);
        } else {
            otto_tx_free_item(p, v->cur);
            v->cur = OTTO_NIL;
        }
    }
    while (v->q_head != OTTO_NIL) {
        uint32_t item = v->q_head;
        v->q_head = p->pool[item].next;
        if (report) {
            if (status == OTTO_STATUS_ABORTED)
                v->c.aborted++;
            report_tx(p, &p->pool[item].d, 0, status);
        }
        otto_tx_free_item(p, item);
    }
    v->q_tail = OTTO_NIL;
    otto_tx_list_remove(o, v);
}

/* The capture sees each cell as it crossed the link; a PDU is written at its last cell. */
static void capture_cell(struct otto *o, struct otto_vc *v, const uint8_t *cell, uint64_t now)
{
    if (!v->cap_buf) {
        v->cap_buf = malloc(AAL5_MAX_CELLS * AAL5_CELL_PAYLOAD);
        if (!v->cap_buf)
            return;
    }
    if (v->cap_len + AAL5_CELL_PAYLOAD <= AAL5_MAX_CELLS * AAL5_CELL_PAYLOAD) {
        memcpy(v->cap_buf + v->cap_len, cell + AAL5_HEADER_BYTES, AAL5_CELL_PAYLOAD);
        v->cap_len += AAL5_CELL_PAYLOAD;
    }
    struct aal5_cell_header h;
    if (aal5_cell_header_decode(cell, &h) == 0 && aal5_pti_is_eop(h.pti)) {
        an2_capture_pdu(o->cfg.capture, now, v->vpi, v->vci, v->cap_buf, v->cap_len);
        v->cap_len = 0;
    }
}

/* Sends cells [next_cell, next_cell + n) as real cells: capture and the cells that get a fault
 * need them. */
static void send_real_cells(struct otto *o, struct otto_vc *v, uint32_t n, uint64_t now)
{
    bool faults = fault_inject_enabled(&o->faults);
    while (n) {
        uint32_t chunk = n < OTTO_SCRATCH_CELLS ? n : OTTO_SCRATCH_CELLS, m = 0;
        for (uint32_t i = 0; i < chunk; i++) {
            uint8_t *cell = o->scratch + (size_t)m * AAL5_CELL_BYTES;
            aal5_tx_pdu_cell(&v->pdu, v->next_cell + i, v->vpi, v->vci, cell);
            if (faults && !fault_inject_cell(&o->faults, cell + AAL5_HEADER_BYTES))
                continue; /* lost on the fibre: it never reaches the switch (nor the capture) */
            if (o->cfg.capture)
                capture_cell(o, v, cell, now);
            m++;
        }
        if (m) {
            struct cell_run run = { .ncells = m, .cells = o->scratch };
            an2_switch_send(o->sw, o->port, v->vpi, v->vci, &run, now);
        }
        v->next_cell += chunk;
        n -= chunk;
    }
}

/* Sends cells [next_cell, next_cell + n) straight from the sender's buffers (cut-through);
 * with faults injected, only the cells that get one go as real cells. */
static void send_cells(struct otto *o, struct otto_vc *v, uint32_t n, uint64_t now)
{
    bool faults = fault_inject_enabled(&o->faults);
    while (n) {
        uint64_t clean = faults ? fault_inject_clean_cells(&o->faults) : n;
        uint32_t k = clean < n ? (uint32_t)clean : n;
        if (k) {
            struct cell_run run = { .ncells = k, .pdu = &v->pdu, .first = v->next_cell };
            an2_switch_send(o->sw, o->port, v->vpi, v->vci, &run, now);
            if (faults)
                fault_inject_skip(&o->faults, k);
            v->next_cell += k;
            n -= k;
        }
        if (n) { /* the next cell is damaged or lost */
            send_real_cells(o, v, 1, now);
            n--;
        }
    }
}

/* Sends what credit and the clock allow on v; *budget counts cells. False when the link's
 * clock stopped us (then no other VC can send either). */
static bool tx_vc(struct otto *o, struct otto_vc *v, uint64_t now, uint32_t *budget, bool *moved)
{
    while (*budget) {
        if (v->cur == OTTO_NIL && !tx_start_next(v)) {
            otto_tx_list_remove(o, v);
            return true;
        }
        uint32_t credit = an2_switch_tx_credit(o->sw, o->port, v->vpi, v->vci);
        if (!credit)
            return true; /* this VC waits for credit; the others go on */
        uint32_t allow = link_pacer_allow(&o->egress, now);
        if (!allow) {
            o->waiting_on_clock = true;
            return false;
        }
        uint32_t n = v->pdu.ncells - v->next_cell;
        if (n > credit)
            n = credit;
        if (n > allow)
            n = allow;
        if (n > *budget)
            n = *budget;
        aal5_tx_pdu_crc_through(&v->pdu, v->next_cell + n);
        if (o->cfg.capture)
            send_real_cells(o, v, n, now);
        else
            send_cells(o, v, n, now);
        link_pacer_consume(&o->egress, n);
        v->c.tx_cells += n;
        *budget -= n;
        *moved = true;
        if (v->next_cell == v->pdu.ncells)
            tx_finish(v, OTTO_STATUS_OK);
    }
    return true;
}

static bool tx_run(struct otto *o, uint64_t now)
{
    bool moved = false;
    uint32_t budget = OTTO_POLL_CELL_BUDGET;
    o->waiting_on_clock = false;
    uint32_t n = o->ntx_active;
    if (!n)
        return false;
    /* Round robin; tx_vc may drop the VC it serves from the list, so walk a snapshot. */
    struct otto_vc *batch[64];
    uint32_t start = o->rr++ % n;
    for (uint32_t done = 0; done < n && budget; done += 64) {
        uint32_t m = n - done < 64 ? n - done : 64;
        for (uint32_t i = 0; i < m; i++)
            batch[i] = o->tx_active[(start + done + i) % n];
        for (uint32_t i = 0; i < m && budget; i++)
            if (batch[i]->tx_listed && !tx_vc(o, batch[i], now, &budget, &moved))
                return moved;
    }
    return moved;
}

bool otto_tx_run(struct otto *o, uint64_t now)
{
    bool moved = tx_run(o, now);
    /* Cells left waiting (for the clock or for credit): the link is backlogged. */
    o->egress.backlogged = o->ntx_active > 0;
    return moved;
}
