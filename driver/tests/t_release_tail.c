/* t_release_tail.c — a VC across hosts closed right after sending: the sender (the child, on
 * AN2_PEER_SOCKET's host) queues NPDU PDUs and closes at once; the receiver, slow, gets every
 * one intact and then PEER_GONE. With "stalled", the receiver posts nothing: PEER_GONE still
 * comes, within the per-hop bound on a release that cannot drain (an2_fiber.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "an2_fiber.h"
#include "an2_pair.h"

#define NPDU 48u          /* 8208 cells: more than every hop's window together holds */
#define NSTALLED 32u      /* 5472 cells: the receiver's host and the hop before it full, the
                           * rest in the hop before that (no transmit left queued) */
#define LEN 8192u
#define SLOT 8192u
#define POSTED 4u
#define STALLED_WAIT_MS 30000

static uint64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Queues PDUs 0..n-1 (pattern 500 + i) without waiting for them, then closes at once. */
static void sender(struct an2_pair *p, uint32_t n)
{
    an2_ep *ep = p->ep;
    uint8_t *b = an2_buf_base(ep);
    for (uint32_t i = 0; i < n; i++) {
        an2_fill_pattern(b + (size_t)i * SLOT, LEN, 500 + i);
        struct an2_frag f = {i * SLOT, LEN};
        int rc;
        /* bounded: the ring frees a slot per PDU sent; 10 s at most */
        for (int tries = 0; (rc = an2_send(ep, p->vc.vc, &f, 1, 0, i)) == -EAGAIN; tries++) {
            struct an2_report r;
            if (tries > 10000)
                FAIL("send %u: the transmit ring stayed full", i);
            an2_wait(ep, &r, 1, 1);
        }
        if (rc != 0)
            FAIL("send %u: %s", i, an2_strerror(rc));
    }
    int rc = an2_vc_close(ep, p->vc.vc);
    if (rc != 0)
        FAIL("an2_vc_close: %s", an2_strerror(rc));
    an2_close(ep);
}

static void post(an2_ep *ep, uint16_t vc, uint32_t slot)
{
    struct an2_frag f = {slot * SLOT, SLOT};
    if (an2_post_recv(ep, vc, &f, 1, slot) != 0)
        FAIL("post %u", slot);
}

/* Every PDU, intact and in order, taken slowly (1 ms each), then PEER_GONE. */
static void receive_all(struct an2_pair *p)
{
    an2_ep *ep = p->ep;
    for (uint32_t s = 0; s < POSTED; s++)
        post(ep, p->vc.vc, s);
    for (uint32_t i = 0; i < NPDU; i++) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
        const uint8_t *b = (const uint8_t *)an2_buf_base(ep) + r.cookie * SLOT;
        if (r.status != AN2_STATUS_OK || r.cookie != i % POSTED || r.length != LEN ||
            !an2_check_pattern(b, LEN, 500 + i))
            FAIL("PDU %u of %u: status %s cookie %llu length %u", i, NPDU,
                 an2_status_str(r.status), (unsigned long long)r.cookie, r.length);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        post(ep, p->vc.vc, (uint32_t)r.cookie);
    }
    struct an2_report r = an2_expect_report(ep, AN2_REPORT_VC, AN2_TEST_WAIT_MS);
    if (r.status != AN2_STATUS_PEER_GONE)
        FAIL("VC report %s, not PEER_GONE", an2_status_str(r.status));
    printf("release tail: %u PDUs sent right before the close arrived intact, then "
           "PEER_GONE\n", NPDU);
}

/* Nothing posted: the release cannot drain; PEER_GONE must come anyway, after at least the
 * receiver's own hop waited AN2_FIBER_DRAIN_STALL_MS. */
static void receive_none(struct an2_pair *p, uint64_t closed_ms)
{
    an2_ep *ep = p->ep;
    struct an2_report r = an2_expect_report(ep, AN2_REPORT_VC, STALLED_WAIT_MS);
    uint64_t waited = ms_now() - closed_ms;
    if (r.status != AN2_STATUS_PEER_GONE)
        FAIL("VC report %s, not PEER_GONE", an2_status_str(r.status));
    if (waited < AN2_FIBER_DRAIN_STALL_MS * 3 / 4)
        FAIL("PEER_GONE after %llu ms: the release did not wait for the buffered cells",
             (unsigned long long)waited);
    printf("release stalled: PEER_GONE %llu ms after the close, with no buffer posted\n",
           (unsigned long long)waited);
}

int main(int argc, char **argv)
{
    int stalled = argc > 1 && strcmp(argv[1], "stalled") == 0;
    struct an2_open_params params = {.buf_size = (uint64_t)NPDU * SLOT, .tx_slots = 64};
    struct an2_pair p;
    an2_pair_setup(&p, &params);
    if (!p.parent) {
        sender(&p, stalled ? NSTALLED : NPDU);
        return 0;
    }
    if (an2_pair_wait_child(&p) != 0)
        FAIL("the sender failed");
    uint64_t closed_ms = ms_now();
    if (stalled)
        receive_none(&p, closed_ms);
    else
        receive_all(&p);
    if (an2_vc_close(p.ep, p.vc.vc) != 0)
        FAIL("an2_vc_close");
    an2_close(p.ep);
    return 0;
}
