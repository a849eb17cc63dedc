/* otto_reports.c — the report ring: slot reservation, publication, the emulated interrupt,
 * and whether a polling host waits for nothing published yet (otto_hw.h's polling hint). */
#include "otto_internal.h"

/* Slots the host has not consumed yet; more than the ring when the host wrote garbage. */
static uint32_t reports_unconsumed(const struct otto_portion *p)
{
    /* acquire: pairs with the host's release of cons after it copied the slots out, so our
     * next write into a freed slot cannot overtake its read */
    uint32_t cons = __atomic_load_n(&p->hdr->report.cons, __ATOMIC_ACQUIRE);
    return p->report_prod - cons;
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
                /* relaxed: a stale 1 seen by the host costs one needless doorbell */
                __atomic_store_n(&p->hdr->controller_wants_reports, 0u, __ATOMIC_RELAXED);
            }
            return true;
        }
        if (p->wants_reports)
            return false; /* asked already: the host rings when it frees slots */
        p->wants_reports = true;
        /* relaxed + seq_cst fence: the request is visible before we read cons again; the
         * host stores cons, fences, then reads the request */
        __atomic_store_n(&p->hdr->controller_wants_reports, 1u, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
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
    struct otto_report *slot = &p->reports[p->report_prod & (p->geo.report_slots - 1)];
    *slot = *r;
    p->report_prod++;
    if (r->kind != OTTO_REPORT_TX)
        p->rx_report_prod = p->report_prod;
    /* release: the report's contents are visible before the host sees prod move */
    __atomic_store_n(&p->hdr->report.prod, p->report_prod, __ATOMIC_RELEASE);
    if (p->orphan)
        /* relaxed: nobody reads the slots; we only read cons back, in this thread */
        __atomic_store_n(&p->hdr->report.cons, p->report_prod, __ATOMIC_RELAXED);
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
    /* seq_cst: the Dekker pair with the host (it stores host_wants_irq, fences, rereads the
     * report ring; we published prod, fence, read host_wants_irq): one of us sees the other */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* relaxed: ordered after our prod store by the fence above */
    if (__atomic_load_n(&p->hdr->host_wants_irq, __ATOMIC_RELAXED) && o->cfg.interrupt)
        o->cfg.interrupt(o->cfg.interrupt_ctx, p->id);
}

/* A host's polling hint: -1 if it has no lease on `cpu` now, 0 if it polls there but reports
 * it waits for are unconsumed (it has work), 1 if it polls there for nothing published yet. */
static int host_polls_on(const struct otto_portion *p, uint32_t cpu, uint64_t now_ns)
{
    /* relaxed, all of them: a hint, torn or stale at worst (otto_hw.h); a stale cons only
     * makes us yield once more */
    uint64_t until = __atomic_load_n(&p->hdr->host_polls_until_ns, __ATOMIC_RELAXED);
    if (p->orphan || now_ns >= until || until - now_ns > OTTO_POLL_LEASE_MAX_NS ||
        __atomic_load_n(&p->hdr->host_polls_cpu, __ATOMIC_RELAXED) != cpu)
        return -1;
    bool rx_only = __atomic_load_n(&p->hdr->host_polls_for, __ATOMIC_RELAXED) == OTTO_POLLS_RX;
    uint32_t cons = __atomic_load_n(&p->hdr->report.cons, __ATOMIC_RELAXED);
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
