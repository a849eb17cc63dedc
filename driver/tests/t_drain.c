/* t_drain.c — a VC closed while its last PDUs still sit in the switch (the receiver has no
 * buffer posted): they reach the receiver once it posts, and PEER_GONE comes after them.
 * With "cancel", the receiver closes instead and the buffered cells go with the route.
 * With "linger", the sender queues far more than the switch holds and leaves at once: its
 * endpoint lingers until every PDU has gone out, then PEER_GONE. */
#include <stdio.h>
#include <string.h>

#include "an2_pair.h"

#define NPDU 3u
#define LEN 1000u   /* 21 cells each: all three fit in the switch's default 64-cell window */
#define SLOT 4096u
#define NLINGER 40u /* 840 cells: the switch window holds 64; the rest wait in the sender's queue */

/* Sends PDUs 0..n-1 (LEN bytes, pattern 100 + i) on vc without waiting. */
static void send_numbered(an2_ep *ep, uint16_t vc, uint32_t n)
{
    uint8_t *b = an2_buf_base(ep);
    for (uint32_t i = 0; i < n; i++) {
        an2_fill_pattern(b + i * SLOT, LEN, 100 + i);
        struct an2_frag f = {i * SLOT, LEN};
        if (an2_send(ep, vc, &f, 1, 0, i + 1) != 0)
            FAIL("send %u", i);
    }
}

/* With linger, the sender queues them all and leaves without waiting for a TX report. */
static void sender(struct an2_pair *p, int linger)
{
    an2_ep *ep = p->ep;
    send_numbered(ep, p->vc.vc, linger ? NLINGER : NPDU);
    /* without linger: transmitted, so the cells are in the switch when we close */
    for (uint32_t i = 0; !linger && i < NPDU; i++) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("TX report %s", an2_status_str(r.status));
    }
    int rc = an2_vc_close(ep, p->vc.vc);
    if (rc != 0)
        FAIL("an2_vc_close: %s", an2_strerror(rc));
    an2_close(ep);
}

/* The next report must be PDU i, intact, in the buffer of the given cookie. */
static void expect_pdu(an2_ep *ep, uint32_t i, uint64_t cookie)
{
    struct an2_report r = an2_expect_report(ep, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
    const uint8_t *b = (const uint8_t *)an2_buf_base(ep) + r.cookie * SLOT;
    if (r.status != AN2_STATUS_OK || r.cookie != cookie || r.length != LEN ||
        !an2_check_pattern(b, LEN, 100 + i))
        FAIL("PDU %u: status %s cookie %llu length %u", i, an2_status_str(r.status),
             (unsigned long long)r.cookie, r.length);
}

/* After the data: PEER_GONE, the sender's route gone; then our end closes, nothing left. */
static void expect_gone_then_close(an2_ep *ep, uint16_t vc)
{
    struct an2_report r = an2_expect_report(ep, AN2_REPORT_VC, AN2_TEST_WAIT_MS);
    if (r.status != AN2_STATUS_PEER_GONE)
        FAIL("VC report %s, not PEER_GONE", an2_status_str(r.status));
    an2_expect_summary("endpoints 1 vcs 1 routes 0 pending 0");
    if (an2_vc_close(ep, vc) != 0)
        FAIL("an2_vc_close");
    an2_close(ep);
    an2_expect_summary("endpoints 0 vcs 0 routes 0 pending 0");
}

/* The sender has gone with most of its PDUs still queued in its controller. */
static int receive_lingered(struct an2_pair *p)
{
    an2_expect_summary("endpoints 2 vcs 2 routes 2 pending 0");
    an2_ep *ep = p->ep;
    uint16_t vc = p->vc.vc;
    for (uint32_t i = 0; i < 4; i++) {   /* a few buffers, reposted: the sender must wait */
        struct an2_frag f = {i * SLOT, SLOT};
        if (an2_post_recv(ep, vc, &f, 1, i) != 0)
            FAIL("post");
    }
    for (uint32_t i = 0; i < NLINGER; i++) {
        expect_pdu(ep, i, i % 4);
        struct an2_frag f = {(i % 4) * SLOT, SLOT};
        if (an2_post_recv(ep, vc, &f, 1, i % 4) != 0)
            FAIL("repost");
    }
    expect_gone_then_close(ep, vc);
    printf("linger: %u PDUs queued by a sender that left at once arrived intact, then "
           "PEER_GONE\n", NLINGER);
    return 0;
}

int main(int argc, char **argv)
{
    int cancel = argc > 1 && strcmp(argv[1], "cancel") == 0;
    int linger = argc > 1 && strcmp(argv[1], "linger") == 0;
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    if (!p.parent) {
        sender(&p, linger);
        return 0;
    }
    if (an2_pair_wait_child(&p) != 0)
        FAIL("the sender failed");
    if (linger)
        return receive_lingered(&p);
    /* the sender is gone; its route stays while its cells wait for us */
    an2_expect_summary("endpoints 1 vcs 1 routes 1 pending 0");
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    if (cancel) {
        int rc = an2_vc_close(ep, vc);
        if (rc != 0)
            FAIL("an2_vc_close: %s", an2_strerror(rc));
        an2_expect_summary("endpoints 1 vcs 0 routes 0 pending 0");
        struct an2_report r;
        if (an2_wait(ep, &r, 1, 200) != 0)
            FAIL("a report (kind %u status %s) after closing our end", r.kind,
                 an2_status_str(r.status));
        an2_close(ep);
        an2_expect_summary("endpoints 0 vcs 0 routes 0 pending 0");
        printf("drain cancel: the receiver closed; the buffered cells went with the route\n");
        return 0;
    }
    for (uint32_t i = 0; i < NPDU; i++) {
        struct an2_frag f = {i * SLOT, SLOT};
        if (an2_post_recv(ep, vc, &f, 1, i) != 0)
            FAIL("post");
    }
    for (uint32_t i = 0; i < NPDU; i++)
        expect_pdu(ep, i, i);
    expect_gone_then_close(ep, vc);
    printf("drain: %u PDUs sent before the close arrived intact, then PEER_GONE\n", NPDU);
    return 0;
}
