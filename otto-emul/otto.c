/* otto.c — the OTTO controller model: portions, VC binding, the poll loop. */
#include <errno.h>
#include <stdlib.h>

#include "an2_switch.h"
#include "otto_internal.h"

struct otto *otto_create(const struct otto_config *config, struct an2_switch *sw, unsigned port)
{
    if (!config || !sw || !(config->cells_per_second >= 0) ||
        !(config->bit_error_rate >= 0 && config->bit_error_rate <= 1) ||
        !(config->cell_loss_rate >= 0 && config->cell_loss_rate <= 1)) {
        errno = EINVAL;
        return NULL;
    }
    struct otto *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->cfg = *config;
    o->sw = sw;
    o->port = port;
    vc_map_init(&o->portion_map);
    vc_map_init(&o->rx_map);
    link_pacer_init(&o->egress, config->cells_per_second);
    fault_inject_init(&o->faults, config->bit_error_rate, config->cell_loss_rate,
                      config->fault_seed);
    struct an2_port_device dev = { .receive = otto_rx_receive,
                                   .discard_partial = otto_rx_discard_partial, .ctx = o };
    int rc = an2_switch_port_attach(sw, port, &dev);
    if (rc) {
        free(o);
        errno = -rc;
        return NULL;
    }
    return o;
}

static struct otto_portion *portion_get(const struct otto *o, uint32_t id)
{
    return vc_map_get(&o->portion_map, id);
}

static void portion_free(struct otto_portion *p)
{
    for (uint32_t i = 0; i < p->geo.max_vcs; i++)
        free(p->vcs[i].cap_buf);
    free(p->vcs);
    free(p->pool);
    free(p);
}

void otto_destroy(struct otto *o)
{
    if (!o)
        return;
    while (o->nportions)
        otto_detach(o, o->portions[0]->id);
    an2_switch_port_detach(o->sw, o->port);
    vc_map_free(&o->portion_map);
    vc_map_free(&o->rx_map);
    free(o->portions);
    free(o->tx_active);
    free(o);
}

/* The geometry in shared memory is believed only if it is exactly what the parameters it
 * claims produce, and fits in the mapping. */
static int geometry_check(const struct otto_geometry *g, size_t size)
{
    struct otto_portion_params params = { .max_vcs = g->max_vcs, .tx_slots = g->tx_slots,
                                          .rx_slots = g->rx_slots, .buf_size = g->buf_size };
    struct otto_geometry want;
    if (g->magic != OTTO_HW_MAGIC || g->version != OTTO_HW_VERSION ||
        otto_portion_geometry(&params, &want) || memcmp(&want, g, sizeof want) ||
        want.portion_size > size)
        return -EINVAL;
    return 0;
}

int otto_attach(struct otto *o, uint32_t portion_id, void *base, size_t size)
{
    if (!o || !base || size < sizeof(struct otto_portion_hdr))
        return -EINVAL;
    if (portion_get(o, portion_id))
        return -EEXIST;
    if (o->nportions >= OTTO_MAX_PORTIONS)
        return -ENOSPC;
    struct otto_geometry geo;
    otto_copy_in(&geo, &((struct otto_portion_hdr *)base)->geo, sizeof geo);
    if (geometry_check(&geo, size))
        return -EINVAL;

    struct otto_portion *p = calloc(1, sizeof *p);
    struct otto_portion **list = realloc(o->portions, (o->nportions + 1) * sizeof *list);
    if (list)
        o->portions = list;
    if (!p || !list)
        goto nomem;
    p->otto = o;
    p->id = portion_id;
    p->base = base;
    p->geo = geo;
    p->hdr = base;
    p->tx_ring = (struct otto_tx_desc *)(p->base + geo.tx_ring_off);
    p->rx_ring = (struct otto_rx_desc *)(p->base + geo.rx_ring_off);
    p->rx_index = (struct otto_ring_index *)(p->base + geo.rx_index_off);
    p->reports = (struct otto_report *)(p->base + geo.report_ring_off);
    p->buf = p->base + geo.buf_off;
    p->reserve_limit = geo.report_slots - geo.max_vcs;
    p->pool_size = 2 * geo.tx_slots;
    p->pool = calloc(p->pool_size, sizeof *p->pool);
    p->vcs = calloc(geo.max_vcs, sizeof *p->vcs);
    if (!p->pool || !p->vcs)
        goto nomem;
    for (uint32_t i = 0; i < p->pool_size; i++)
        p->pool[i].next = i + 1 < p->pool_size ? i + 1 : OTTO_NIL;
    p->free_head = 0;
    for (uint32_t i = 0; i < geo.max_vcs; i++) {
        struct otto_vc *v = &p->vcs[i];
        v->portion = p;
        v->index = (uint16_t)i;
        v->q_head = v->q_tail = v->cur = OTTO_NIL;
    }
    /* Our counters start where the (freshly formatted) portion says and are private from
     * now on. relaxed: these words are the controller's to write; a host that scribbled on
     * them only misplaces its own rings, and the ring checks contain that. */
    p->tx_cons = otto_shared_get(&p->hdr->tx.cons);
    p->report_prod = otto_shared_get(&p->hdr->report.prod);
    for (uint32_t i = 0; i < geo.max_vcs; i++)
        p->vcs[i].rx_cons = otto_shared_get(&p->rx_index[i].cons);
    otto_shared_set(&p->hdr->controller_holds_cells, o->holds_published ? 1u : 0u); /* a hint */
    if (vc_map_put(&o->portion_map, portion_id, p))
        goto nomem;
    p->list_index = o->nportions;
    o->portions[o->nportions++] = p;
    return 0;
nomem:
    if (p) {
        free(p->pool);
        free(p->vcs);
        free(p);
    }
    return -ENOMEM;
}

static void vc_release(struct otto *o, struct otto_vc *v, bool report)
{
    if (v->bound)
        vc_map_del(&o->rx_map, otto_vc_key(v->vpi, v->vci));
    otto_tx_flush(o, v, OTTO_STATUS_ABORTED, report);
    otto_rx_abort(v, report);
    v->bound = false;
    v->peer_gone = false;
    v->event_pending = false;
    v->cap_len = 0;
}

void otto_detach(struct otto *o, uint32_t portion_id)
{
    struct otto_portion *p = o ? portion_get(o, portion_id) : NULL;
    if (!p)
        return;
    for (uint32_t i = 0; i < p->geo.max_vcs; i++)
        vc_release(o, &p->vcs[i], false);
    vc_map_del(&o->portion_map, portion_id);
    struct otto_portion *last = o->portions[--o->nportions];
    o->portions[p->list_index] = last;
    last->list_index = p->list_index;
    portion_free(p);
}

void otto_orphan(struct otto *o, uint32_t portion_id)
{
    struct otto_portion *p = o ? portion_get(o, portion_id) : NULL;
    if (!p)
        return;
    p->orphan = true;
    p->irq_pending = false;
    /* only this thread reads cons from now on (otto_report_reserve): no order needed */
    otto_shared_set(&p->hdr->report.cons, p->report_prod);
}

bool otto_vc_tx_busy(const struct otto *o, uint32_t portion_id, uint16_t local_vc)
{
    struct otto_portion *p = o ? portion_get(o, portion_id) : NULL;
    if (!p || local_vc >= p->geo.max_vcs)
        return false;
    const struct otto_vc *v = &p->vcs[local_vc];
    if (!v->bound)
        return false;
    /* a hint: descriptors published later are seen at a later check */
    uint32_t untaken = otto_ring_used(otto_shared_get(&p->hdr->tx.prod), p->tx_cons);
    return v->cur != OTTO_NIL || v->q_head != OTTO_NIL ||
           (untaken != 0 && untaken <= p->geo.tx_slots);
}

static int vc_lookup(struct otto *o, uint32_t portion_id, uint16_t local_vc, struct otto_vc **out)
{
    struct otto_portion *p = o ? portion_get(o, portion_id) : NULL;
    if (!p)
        return -ENOENT;
    if (local_vc >= p->geo.max_vcs)
        return -EINVAL;
    *out = &p->vcs[local_vc];
    return 0;
}

/* vc_lookup, for a VC that must be bound: -ENOENT if it is not. */
static int bound_vc_lookup(struct otto *o, uint32_t portion_id, uint16_t local_vc,
                           struct otto_vc **out)
{
    int rc = vc_lookup(o, portion_id, local_vc, out);
    return rc ? rc : (*out)->bound ? 0 : -ENOENT;
}

int otto_vc_bind(struct otto *o, uint32_t portion_id, uint16_t local_vc, uint16_t vpi,
                 uint16_t vci)
{
    struct otto_vc *v;
    int rc = vc_lookup(o, portion_id, local_vc, &v);
    if (rc)
        return rc;
    if (vpi > AAL5_MAX_VPI || vci == 0)
        return -EINVAL;
    if (v->bound || v->draining || vc_map_get(&o->rx_map, otto_vc_key(vpi, vci)))
        return -EBUSY;
    rc = vc_map_put(&o->rx_map, otto_vc_key(vpi, vci), v);
    if (rc)
        return rc;
    v->vpi = vpi;
    v->vci = vci;
    v->bound = true;
    v->peer_gone = false;
    return 0;
}

int otto_vc_unbind(struct otto *o, uint32_t portion_id, uint16_t local_vc)
{
    struct otto_vc *v;
    int rc = bound_vc_lookup(o, portion_id, local_vc, &v);
    if (rc)
        return rc;
    vc_release(o, v, true);
    struct otto_portion *p = v->portion;
    /* the descriptors posted so far are drained (reported ABORTED) in otto_poll */
    v->drain_until = otto_ring_peek(&p->rx_index[v->index].prod);
    if (v->drain_until - v->rx_cons > p->geo.rx_slots)
        v->drain_until = v->rx_cons; /* garbage prod: nothing sensible to give back */
    v->draining = v->drain_until != v->rx_cons;
    if (v->draining)
        otto_rx_drain(v); /* now, as far as report slots allow; the rest in otto_poll */
    p->housekeeping |= v->draining;
    otto_irq_check(o, p);
    return 0;
}

int otto_vc_peer_gone(struct otto *o, uint32_t portion_id, uint16_t local_vc)
{
    struct otto_vc *v;
    int rc = bound_vc_lookup(o, portion_id, local_vc, &v);
    if (rc)
        return rc;
    if (v->peer_gone)
        return 0;
    v->peer_gone = true;
    otto_tx_flush(o, v, OTTO_STATUS_PEER_GONE, true);
    struct otto_report r = { .vc = v->index, .kind = OTTO_REPORT_VC,
                             .status = OTTO_STATUS_PEER_GONE };
    if (!otto_report_publish_event(v->portion, &r)) { /* ring full: otto_poll retries */
        v->event_pending = true;
        v->portion->housekeeping = true;
    }
    otto_irq_check(o, v->portion);
    return 0;
}

int otto_vc_counters(const struct otto *o, uint32_t portion_id, uint16_t local_vc,
                     struct otto_vc_counters *out)
{
    struct otto_portion *p = o ? portion_get(o, portion_id) : NULL;
    if (!p)
        return -ENOENT;
    if (local_vc >= p->geo.max_vcs || !out)
        return -EINVAL;
    *out = p->vcs[local_vc].c;
    /* relaxed: the host's counters, read only to be shown (otto_hw.h) */
    const struct otto_host_vc_stats *h =
        (const struct otto_host_vc_stats *)(p->base + p->geo.host_stats_off) + local_vc;
    out->host.resent = __atomic_load_n(&h->resent, __ATOMIC_RELAXED);
    out->host.dups_dropped = __atomic_load_n(&h->dups_dropped, __ATOMIC_RELAXED);
    out->host.recoveries = __atomic_load_n(&h->recoveries, __ATOMIC_RELAXED);
    return 0;
}

int otto_get_counters(const struct otto *o, struct otto_counters *out)
{
    if (!o || !out)
        return -EINVAL;
    *out = (struct otto_counters){ .unknown_vc_cells = o->unknown_vc_cells,
                                   .hec_errors = o->hec_errors,
                                   .bits_flipped = o->faults.bits_flipped,
                                   .cells_lost = o->faults.cells_lost };
    return 0;
}

/* VC events waiting for a report slot and receive rings being drained after unbind. */
static bool housekeeping(struct otto_portion *p)
{
    bool more = false, moved = false;
    for (uint32_t i = 0; i < p->geo.max_vcs; i++) {
        struct otto_vc *v = &p->vcs[i];
        if (v->event_pending) {
            struct otto_report r = { .vc = v->index, .kind = OTTO_REPORT_VC,
                                     .status = OTTO_STATUS_PEER_GONE };
            if (otto_report_publish_event(p, &r))
                v->event_pending = false, moved = true;
        }
        if (v->draining) {
            uint32_t before = v->rx_cons;
            otto_rx_drain(v);
            moved |= v->rx_cons != before;
        }
        more |= v->event_pending || v->draining;
    }
    p->housekeeping = more;
    return moved;
}

bool otto_poll(struct otto *o, uint64_t now_ns)
{
    bool moved = false;
    for (uint32_t i = 0; i < o->nportions; i++) {
        struct otto_portion *p = o->portions[i];
        if (p->housekeeping)
            moved |= housekeeping(p);
        moved |= otto_tx_take(o, p);
    }
    moved |= otto_tx_run(o, now_ns);
    moved |= an2_switch_poll(o->sw, now_ns);
    for (uint32_t i = 0; i < o->nportions; i++)
        otto_irq_check(o, o->portions[i]);
    return moved;
}

uint64_t otto_next_deadline(const struct otto *o)
{
    uint64_t t = an2_switch_next_deadline(o->sw);
    if (o->waiting_on_clock && o->ntx_active) {
        uint64_t mine = link_pacer_next(&o->egress);
        if (mine < t)
            t = mine;
    }
    return t;
}

bool otto_pulse(struct otto *o, uint64_t now_ns, uint32_t cpu)
{
    bool moved = false;
    for (uint32_t i = 0; i < o->nportions; i++) {
        struct otto_portion_hdr *hdr = o->portions[i]->hdr;
        otto_shared_set64(&hdr->controller_awake_ns, now_ns);
        otto_shared_set(&hdr->controller_cpu, cpu);
        /* a hint (otto_hw.h): a stale 1 costs one needless widening */
        if (otto_shared_get(&hdr->host_moved_controller)) {
            otto_shared_set(&hdr->host_moved_controller, 0);
            moved = true;
        }
    }
    return moved;
}

void otto_publish_holding(struct otto *o)
{
    bool holds = an2_switch_holds_cells(o->sw);
    if (holds == o->holds_published)
        return;
    o->holds_published = holds;
    /* a hint (otto_hw.h): relaxed; a stale value costs a yield or a tick */
    for (uint32_t i = 0; i < o->nportions; i++)
        otto_shared_set(&o->portions[i]->hdr->controller_holds_cells, holds ? 1u : 0u);
}

void otto_set_asleep(struct otto *o, bool asleep)
{
    for (uint32_t i = 0; i < o->nportions; i++)
        otto_shared_set(&o->portions[i]->hdr->controller_asleep, asleep ? 1u : 0u);
    /* the doorbell handshake: our flag before our last doorbell scan */
    otto_handshake_fence();
}
