/* harness.c — the host side of a portion for otto-emul's tests. */
#include "harness.h"
#include "otto_ring.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int host_create(struct host *h, uint32_t id, uint32_t max_vcs, uint32_t tx_slots,
                uint32_t rx_slots, uint64_t buf_size)
{
    memset(h, 0, sizeof *h);
    struct otto_portion_params params = { max_vcs, tx_slots, rx_slots, buf_size };
    int rc = otto_portion_geometry(&params, &h->geo);
    if (rc)
        return rc;
    h->size = h->geo.portion_size;
    size_t total = h->size + 2 * CANARY_BYTES;
    h->mem = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h->mem == MAP_FAILED)
        return -1;
    memset(h->mem, CANARY_BYTE, CANARY_BYTES);
    memset(h->mem + CANARY_BYTES + h->size, CANARY_BYTE, CANARY_BYTES);
    h->base = h->mem + CANARY_BYTES;
    otto_portion_format(h->base, &h->geo);
    h->hdr = (struct otto_portion_hdr *)h->base;
    h->buf = h->base + h->geo.buf_off;
    h->id = id;
    return 0;
}

void host_destroy(struct host *h)
{
    if (h->mem)
        munmap(h->mem, h->size + 2 * CANARY_BYTES);
    h->mem = NULL;
}

bool host_canaries_intact(const struct host *h)
{
    const uint8_t *tail = h->mem + CANARY_BYTES + h->size;
    for (size_t i = 0; i < CANARY_BYTES; i++)
        if (h->mem[i] != CANARY_BYTE || tail[i] != CANARY_BYTE)
            return false;
    return true;
}

static void doorbell(struct host *h)
{
    otto_shared_count(&h->hdr->doorbell); /* after prod, as asked */
}

bool host_send_raw(struct host *h, const struct otto_tx_desc *d)
{
    uint32_t prod = h->hdr->tx.prod;
    if (otto_ring_used(prod, otto_ring_peek(&h->hdr->tx.cons)) >= h->geo.tx_slots)
        return false;
    struct otto_tx_desc *ring = (struct otto_tx_desc *)(h->base + h->geo.tx_ring_off);
    ring[otto_ring_slot(prod, h->geo.tx_slots)] = *d;
    otto_ring_publish(&h->hdr->tx.prod, prod + 1);
    doorbell(h);
    return true;
}

bool host_send(struct host *h, uint16_t vc, uint64_t cookie, const struct otto_frag *frags,
               unsigned nfrags, uint8_t uu)
{
    struct otto_tx_desc d = { .cookie = cookie, .vc = vc, .nfrags = (uint8_t)nfrags, .uu = uu };
    memcpy(d.frag, frags, nfrags * sizeof *frags);
    return host_send_raw(h, &d);
}

bool host_post_rx_raw(struct host *h, uint16_t vc, const struct otto_rx_desc *d)
{
    struct otto_ring_index *ix = (struct otto_ring_index *)(h->base + h->geo.rx_index_off) + vc;
    uint32_t prod = ix->prod;
    if (otto_ring_used(prod, otto_ring_peek(&ix->cons)) >= h->geo.rx_slots)
        return false;
    struct otto_rx_desc *ring =
        (struct otto_rx_desc *)(h->base + h->geo.rx_ring_off) + (size_t)vc * h->geo.rx_slots;
    ring[otto_ring_slot(prod, h->geo.rx_slots)] = *d;
    otto_ring_publish(&ix->prod, prod + 1);
    doorbell(h);
    return true;
}

bool host_post_rx(struct host *h, uint16_t vc, uint64_t cookie, const struct otto_frag *frags,
                  unsigned nfrags)
{
    struct otto_rx_desc d = { .cookie = cookie, .nfrags = (uint8_t)nfrags };
    memcpy(d.frag, frags, nfrags * sizeof *frags);
    return host_post_rx_raw(h, vc, &d);
}

bool host_report(struct host *h, struct otto_report *out)
{
    if (otto_ring_peek(&h->hdr->report.prod) == h->report_cons)
        return false;
    struct otto_report *ring = (struct otto_report *)(h->base + h->geo.report_ring_off);
    *out = ring[otto_ring_slot(h->report_cons, h->geo.report_slots)];
    otto_ring_publish(&h->hdr->report.cons, ++h->report_cons);
    return true;
}

void fabric_run(struct otto **ottos, unsigned n, uint64_t *now, uint64_t step_ns,
                unsigned max_rounds)
{
    for (unsigned round = 0; round < max_rounds; round++) {
        bool moved = false;
        for (unsigned i = 0; i < n; i++)
            moved |= otto_poll(ottos[i], *now);
        *now += step_ns;
        if (!moved && step_ns == 0)
            return;
    }
}
