/* t_protect.c — a task writes bad descriptors straight into its real mapping (bypassing the
 * library's checks): every one earns a PROTECTION report, its peer's buffers are untouched,
 * and a good PDU afterwards still arrives intact. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "an2_internal.h"
#include "an2_pair.h"

/* The library's doorbell, repeated here (otto_hw.h): release publishes the descriptor, the
 * seq_cst fence orders our doorbell against our read of controller_asleep (relaxed after it). */
static void doorbell(an2_ep *ep)
{
    otto_shared_count(&ep->hdr->doorbell);
    otto_handshake_fence();
    if (otto_shared_get(&ep->hdr->controller_asleep)) {
        uint64_t one = 1;
        if (write(ep->kick_fd, &one, sizeof one) < 0)
            FAIL("kick");
    }
}

static void raw_tx(an2_ep *ep, const struct otto_tx_desc *d)
{
    uint32_t prod = ep->tx_prod;
    ep->tx[otto_ring_slot(prod, ep->geo.tx_slots)] = *d;
    ep->tx_prod = prod + 1;
    otto_ring_publish(&ep->hdr->tx.prod, prod + 1);
    doorbell(ep);
}

static void raw_rx(an2_ep *ep, uint16_t vc, const struct otto_rx_desc *d)
{
    uint32_t prod = ep->rx_prod[vc];
    ep->rx[(size_t)vc * ep->geo.rx_slots + otto_ring_slot(prod, ep->geo.rx_slots)] = *d;
    ep->rx_prod[vc] = prod + 1;
    otto_ring_publish(&ep->rx_index[vc].prod, prod + 1);
    doorbell(ep);
}

int main(void)
{
    struct an2_pair p;
    struct an2_open_params params = {.buf_size = 1u << 20};
    an2_pair_setup(&p, &params);
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    uint32_t size = (uint32_t)an2_buf_size(ep);
    uint8_t *buf = an2_buf_base(ep);

    if (!p.parent) {
        /* receiver: a receive descriptor naming memory beyond the area, then a good one */
        memset(buf, 0xAA, size);
        struct otto_rx_desc bad = {.cookie = 66, .nfrags = 1,
                                   .frag = {{.offset = size - 100, .length = 4096}}};
        raw_rx(ep, vc, &bad);
        struct an2_frag good = {0, 4096};
        if (an2_post_recv(ep, vc, &good, 1, 77) != 0)
            FAIL("post");
        an2_pair_signal(&p, 'r');
        /* The controller may refuse the bad descriptor when it is posted or when a PDU
         * reaches it: two good PDUs, so that one fills the good buffer either way (the other
         * waits in the switch, for no buffer). */
        an2_pair_signal(&p, 's');
        an2_pair_signal(&p, 's');
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
        if (r.cookie != 66 || r.status != AN2_STATUS_PROTECTION)
            FAIL("bad receive descriptor: cookie %llu status %s", (unsigned long long)r.cookie,
                 an2_status_str(r.status));
        r = an2_expect_report(ep, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
        if (r.cookie != 77 || r.status != AN2_STATUS_OK || r.length != 1000 ||
            !an2_check_pattern(buf, 1000, 3))
            FAIL("good PDU after the bad descriptor: cookie %llu status %s length %u",
                 (unsigned long long)r.cookie, an2_status_str(r.status), r.length);
        /* the controller may write the AAL5 pad and trailer inside the posted buffer, but
         * nothing beyond it */
        for (uint32_t i = 4096; i < size; i++)
            if (buf[i] != 0xAA)
                FAIL("byte %u of the receiver's area was written", i);
        printf("receiver: bad descriptor refused, good PDU intact, nothing written outside "
               "the posted buffer\n");
        an2_pair_signal(&p, 'd');
        an2_pair_await(&p);   /* the sender has its last TX report: the VC may go */
        an2_close(ep);
        return 0;
    }

    an2_pair_await(&p);
    struct otto_tx_desc cases[] = {
        {.cookie = 1, .vc = vc, .nfrags = 1, .frag = {{size - 8, 16}}},          /* past the end */
        {.cookie = 2, .vc = vc, .nfrags = 1, .frag = {{0xFFFFFFF0u, 0x20}}},     /* wraps */
        {.cookie = 3, .vc = vc, .nfrags = 2, .frag = {{0, 0xFFFFFFFFu}, {0, 2}}},/* huge */
        {.cookie = 4, .vc = vc, .nfrags = 2, .frag = {{0, 40000}, {0, 40000}}},  /* > 65535 */
        {.cookie = 5, .vc = vc, .nfrags = OTTO_MAX_FRAGS + 1},                   /* nfrags */
        {.cookie = 6, .vc = (uint16_t)(ep->geo.max_vcs + 3), .nfrags = 0},       /* no such VC */
        {.cookie = 7, .vc = (uint16_t)(vc == 0 ? 1 : 0), .nfrags = 0},           /* unbound VC */
    };
    const unsigned ncases = sizeof cases / sizeof cases[0];
    for (unsigned i = 0; i < ncases; i++)
        raw_tx(ep, &cases[i]);
    for (unsigned i = 0; i < ncases; i++) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.cookie != cases[i].cookie || r.status != AN2_STATUS_PROTECTION)
            FAIL("bad descriptor %llu: report cookie %llu status %s",
                 (unsigned long long)cases[i].cookie, (unsigned long long)r.cookie,
                 an2_status_str(r.status));
    }
    printf("sender: %u bad transmit descriptors, %u PROTECTION reports\n", ncases, ncases);
    /* good PDUs, one each time the receiver asks */
    an2_fill_pattern(buf, 1000, 3);
    struct an2_frag f = {0, 1000};
    while (an2_pair_await(&p) == 's') {
        if (an2_send(ep, vc, &f, 1, 0, 100) != 0)
            FAIL("send");
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("good send: %s", an2_status_str(r.status));
    }
    an2_pair_signal(&p, 'q');   /* (else its close could overtake our last TX report) */
    int st = an2_pair_wait_child(&p);
    an2_close(ep);
    return st;
}
