/* link_pacer.h — the clock of one link direction: how many cells may leave now at its rate. */
#ifndef LINK_PACER_H
#define LINK_PACER_H

#include <stdint.h>

/* A link whose idle time is not lost up to `burst` cells: a poll that comes late may send
 * the cells it owes at once, no more, so the long-run rate is exact and bursts are bounded. */
struct link_pacer {
    double ns_per_cell;   /* 0: unpaced */
    double busy_until;    /* virtual time at which the last cell sent has left, ns */
    uint32_t burst;
};

#define LINK_PACER_BURST 32u

static inline void link_pacer_init(struct link_pacer *p, double cells_per_second)
{
    p->ns_per_cell = cells_per_second > 0 ? 1e9 / cells_per_second : 0;
    p->busy_until = 0;
    p->burst = LINK_PACER_BURST;
}

static inline uint32_t link_pacer_allow(struct link_pacer *p, uint64_t now_ns)
{
    if (p->ns_per_cell == 0)
        return UINT32_MAX;
    double now = (double)now_ns, earliest = now - p->burst * p->ns_per_cell;
    if (p->busy_until < earliest)
        p->busy_until = earliest;
    if (p->busy_until + p->ns_per_cell > now)
        return 0;
    return (uint32_t)((now - p->busy_until) / p->ns_per_cell);
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
