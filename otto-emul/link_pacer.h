/* link_pacer.h — the clock of one link direction: how many cells may leave now at its rate. */
#ifndef LINK_PACER_H
#define LINK_PACER_H

#include <stdbool.h>
#include <stdint.h>

/* The emulator polls the link; between polls a real link would have gone on sending. So a
 * poll may send the cells the link owes since the last one, within limits: a link that was
 * idle (nothing queued) owes at most LINK_PACER_BURST cells; a backlogged link (cells were
 * queued at the last poll, e.g. while the emulator was descheduled) owes what it would have
 * sent in up to LINK_PACER_CATCHUP_NS. The long-run rate is exact: over any span a link sends
 * at most the span plus LINK_PACER_CATCHUP_NS worth of cells (an idle one the span plus its
 * burst). The catch-up covers how long a hop of the emulation waits for a CPU on a busy
 * machine: up to about 10 ms on 2 cores shared by two an2d, two an2switch and the tasks. A
 * real chain of links loses none of that time; a link that may owe only part of it loses the
 * rest for good, and each hop of a path adds its own losses (docs/fabric.md, "Pacing"). */
#define LINK_PACER_BURST 32u
#define LINK_PACER_CATCHUP_NS 10000000.0

struct link_pacer {
    double ns_per_cell;   /* 0: unpaced */
    double busy_until;    /* virtual time at which the last cell sent has left, ns */
    bool backlogged;      /* cells were left queued at the last poll */
};

static inline void link_pacer_init(struct link_pacer *p, double cells_per_second)
{
    p->ns_per_cell = cells_per_second > 0 ? 1e9 / cells_per_second : 0;
    p->busy_until = 0;
    p->backlogged = false;
}

static inline uint32_t link_pacer_allow(struct link_pacer *p, uint64_t now_ns)
{
    if (p->ns_per_cell == 0)
        return UINT32_MAX;
    double now = (double)now_ns, lag = LINK_PACER_BURST * p->ns_per_cell;
    if (p->backlogged && lag < LINK_PACER_CATCHUP_NS)
        lag = LINK_PACER_CATCHUP_NS;
    if (p->busy_until < now - lag)
        p->busy_until = now - lag;
    if (p->busy_until + p->ns_per_cell > now)
        return 0;
    double n = (now - p->busy_until) / p->ns_per_cell;
    return n > 1e9 ? 1000000000u : (uint32_t)n;
}

static inline void link_pacer_consume(struct link_pacer *p, uint32_t cells)
{
    if (p->ns_per_cell != 0)
        p->busy_until += cells * p->ns_per_cell;
}

/* When the next cell may leave; 0 when unpaced. */
static inline uint64_t link_pacer_next(const struct link_pacer *p)
{
    return p->ns_per_cell == 0 ? 0 : (uint64_t)(p->busy_until + p->ns_per_cell) + 1;
}

#endif
