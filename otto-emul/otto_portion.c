/* otto_portion.c — a portion's geometry (how descriptor memory is divided) and its checks. */
#include <errno.h>
#include <string.h>

#include "otto_internal.h"

#define PAGE 4096u
#define MAX_VCS 4096u
#define MAX_SLOTS 65536u

static bool pow2(uint32_t x)
{
    return x && !(x & (x - 1));
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) & ~(a - 1);
}

static uint32_t next_pow2(uint32_t x)
{
    uint32_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

int otto_portion_geometry(const struct otto_portion_params *params, struct otto_geometry *geo)
{
    if (!params || !geo || params->max_vcs < 1 || params->max_vcs > MAX_VCS ||
        !pow2(params->tx_slots) || params->tx_slots > MAX_SLOTS || !pow2(params->rx_slots) ||
        params->rx_slots > MAX_SLOTS || params->buf_size < 1 ||
        params->buf_size > ((uint64_t)1 << 32))
        return -EINVAL;
    memset(geo, 0, sizeof *geo);
    geo->magic = OTTO_HW_MAGIC;
    geo->version = OTTO_HW_VERSION;
    geo->max_vcs = params->max_vcs;
    geo->tx_slots = params->tx_slots;
    geo->rx_slots = params->rx_slots;
    /* Room for a report for every transmit the controller may hold (2 x tx_slots), one
     * receive per VC and one VC event per VC: the controller never has to overwrite. */
    geo->report_slots = next_pow2(2 * params->tx_slots + 2 * params->max_vcs);
    uint64_t off = sizeof(struct otto_portion_hdr);
    geo->tx_ring_off = off = align_up(off, OTTO_CACHELINE);
    off += (uint64_t)geo->tx_slots * sizeof(struct otto_tx_desc);
    geo->rx_ring_off = off = align_up(off, OTTO_CACHELINE);
    off += (uint64_t)geo->max_vcs * geo->rx_slots * sizeof(struct otto_rx_desc);
    geo->rx_index_off = off = align_up(off, OTTO_CACHELINE);
    off += (uint64_t)geo->max_vcs * sizeof(struct otto_ring_index);
    geo->host_stats_off = off = align_up(off, OTTO_CACHELINE);
    off += (uint64_t)geo->max_vcs * sizeof(struct otto_host_vc_stats);
    geo->report_ring_off = off = align_up(off, OTTO_CACHELINE);
    off += (uint64_t)geo->report_slots * sizeof(struct otto_report);
    geo->buf_off = off = align_up(off, PAGE);
    geo->buf_size = align_up(params->buf_size, PAGE);
    geo->portion_size = geo->buf_off + geo->buf_size;
    return 0;
}

void otto_portion_format(void *base, const struct otto_geometry *geo)
{
    struct otto_portion_hdr *hdr = base;
    hdr->geo = *geo;
}

int64_t otto_frags_check(const struct otto_portion *p, const struct otto_frag *f, unsigned n)
{
    if (n > OTTO_MAX_FRAGS)
        return -1;
    int64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        /* 64-bit sums: offset + length cannot wrap */
        if ((uint64_t)f[i].offset + f[i].length > p->geo.buf_size)
            return -1;
        total += f[i].length;
    }
    return total;
}
