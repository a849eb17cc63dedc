/* otto_reports.c — the report ring: slot reservation, publication, the emulated interrupt,
 * and whether a polling host waits for nothing published yet (otto_hw.h's polling hint). */
#include "otto_internal.h"

/* Slots the host has not consumed yet; more than the ring when the host wrote garbage. */
static uint32_t reports_unconsumed(const struct otto_portion *p)
{
    /* the host has copied out what its cons covers: our next write cannot overtake its read */
    return otto_ring_used(p->report_prod, otto_ring_peek(&p->hdr->report.cons));
}

/* Whether one more report fits while `limit` slots may be used (reservations included). A
 * full ring asks the host to ring when it frees slots, then is looked at once more: the
 * Dekker pair of otto_hw.h, so a controller that sleeps on it misses no freed slot. */
static bool report_room(struct otto_portion *p, uint32_t limit)
{
    for (int look = 0; look < 2; look++) {
        uint32_t used = reports_unconsumed(p);
        if (used <= p->geo.report_slots && used + p->reserved + 1 <= limit) {
            if (p->wants_reports) {
                p->wants_reports = false;
                /* a stale 1 seen by the host costs one needless doorbell */
                otto_shared_set(&p->hdr->controller_wants_reports, 0);
            }
            return true;
        }
        if (p->wants_reports)
            return false; /* asked already: the host rings when it frees slots */
        p->wants_reports = true;
        /* the report-slots handshake: the request before we read cons again; the host
         * stores cons, fences, then reads the request */
        otto_shared_set(&p->hdr->controller_wants_reports, 1);
        otto_handshake_fence();
    }
    return false;
}

bool otto_report_reserve(struct otto_portion *p)
{
    if (!report_room(p, p->reserve_limit))
        return false;
    p->reserved++;
    return true;
}

void otto_report_unreserve(struct otto_portion *p)
{
    p->reserved--;
}

static void publish(struct otto_portion *p, const struct otto_report *r)
{
    struct otto_report *slot = &p->reports[otto_ring_slot(p->report_prod, p->geo.report_slots)];
    *slot = *r;
    p->report_prod++;
    if (r->kind != OTTO_REPORT_TX)
        p->rx_report_prod = p->report_prod;
    otto_ring_publish(&p->hdr->report.prod, p->report_prod);
    if (p->orphan) /* nobody reads the slots; only we read cons back, in this thread */
        otto_shared_set(&p->hdr->report.cons, p->report_prod);
    else
        p->irq_pending = true;
}

void otto_report_publish(struct otto_portion *p, const struct otto_report *r)
{
    p->reserved--;
    publish(p, r);
}

bool otto_report_publish_event(struct otto_portion *p, const struct otto_report *r)
{
    if (!report_room(p, p->geo.report_slots))
        return false;
    publish(p, r);
    return true;
}

void otto_irq_check(struct otto *o, struct otto_portion *p)
{
    if (!p->irq_pending)
        return;
    p->irq_pending = false;
    /* the interrupt handshake: the host stores host_wants_irq, fences, rereads the report
     * ring; we published prod, fence, read host_wants_irq: one of us sees the other */
    otto_handshake_fence();
    if (otto_shared_get(&p->hdr->host_wants_irq) && o->cfg.interrupt)
        o->cfg.interrupt(o->cfg.interrupt_ctx, p->id);
}

/* A host's polling hint: -1 if it has no lease on `cpu` now, 0 if it polls there but reports
 * it waits for are unconsumed (it has work), 1 if it polls there for nothing published yet. */
static int host_polls_on(const struct otto_portion *p, uint32_t cpu, uint64_t now_ns)
{
    /* a hint, torn or stale at worst (otto_hw.h); a stale cons only makes us yield once more */
    uint64_t until = otto_shared_get64(&p->hdr->host_polls_until_ns);
    if (p->orphan || now_ns >= until || until - now_ns > OTTO_POLL_LEASE_MAX_NS ||
        otto_shared_get(&p->hdr->host_polls_cpu) != cpu)
        return -1;
    bool rx_only = otto_shared_get(&p->hdr->host_polls_for) == OTTO_POLLS_RX;
    uint32_t cons = otto_shared_get(&p->hdr->report.cons);
    return (int32_t)((rx_only ? p->rx_report_prod : p->report_prod) - cons) > 0 ? 0 : 1;
}

bool otto_hosts_only_poll_on(const struct otto *o, uint32_t cpu, uint64_t now_ns)
{
    bool polling = false;
    for (uint32_t i = 0; i < o->nportions; i++) {
        int w = host_polls_on(o->portions[i], cpu, now_ns);
        if (w == 0)
            return false;
        polling |= w == 1;
    }
    return polling;
}
