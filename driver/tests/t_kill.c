/* t_kill.c — SIGKILL of a task in mid-transfer: the survivor gets PEER_GONE and never a
 * corrupted PDU as good; an2stat shows the dead task's endpoint, VC and routes gone; the
 * survivor's later sends on the VC are reported PEER_GONE; closing gives everything back. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "an2_pair.h"

#define PDU 65535u
#define SLOT 65536u

static void victim(struct an2_pair *p)
{
    an2_ep *ep = p->ep;
    uint8_t *b = an2_buf_base(ep);
    for (uint32_t i = 0; i < 8; i++)
        an2_fill_pattern(b + i * SLOT, PDU, 7);
    an2_pair_await(p);
    for (uint64_t n = 0;; n++) {
        struct an2_frag f = {(uint32_t)(n % 8) * SLOT, PDU};
        while (an2_send(ep, p->vc.vc, &f, 1, 0, n) == -EAGAIN) {
            struct an2_report r[16];
            an2_wait(ep, r, 16, 100);
        }
        struct an2_report r[16];
        an2_poll(ep, r, 16);
    }
}

int main(void)
{
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    if (!p.parent)
        victim(&p); /* never returns: killed */
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    for (uint32_t i = 0; i < 16; i++) {
        struct an2_frag f = {i * SLOT, SLOT};
        if (an2_post_recv(ep, vc, &f, 1, i) != 0)
            FAIL("post");
    }
    an2_expect_summary("endpoints 2 vcs 2 routes 2 pending 0");
    an2_pair_signal(&p, 'g');
    unsigned good = 0;
    bool killed = false, gone = false;
    while (!gone) {
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS);
        if (n != 1)
            FAIL("no report within %d ms (%u PDUs received, killed %d)", AN2_TEST_WAIT_MS, good,
                 killed);
        if (r.kind == AN2_REPORT_VC && r.status == AN2_STATUS_PEER_GONE) {
            if (!killed)
                FAIL("PEER_GONE before the peer died");
            gone = true;
        } else if (r.kind == AN2_REPORT_RX && r.status == AN2_STATUS_OK) {
            const uint8_t *b = (const uint8_t *)an2_buf_base(ep) + r.cookie * SLOT;
            if (r.length != PDU || !an2_check_pattern(b, PDU, 7))
                FAIL("a PDU delivered as good is wrong (%u bytes)", r.length);
            good++;
            struct an2_frag f = {(uint32_t)r.cookie * SLOT, SLOT};
            if (an2_post_recv(ep, vc, &f, 1, r.cookie) != 0)
                FAIL("repost");
        } else if (r.kind != AN2_REPORT_RX) {
            FAIL("unexpected report kind %u status %s", r.kind, an2_status_str(r.status));
        }
        if (good == 20 && !killed) {
            kill(p.child, SIGKILL);
            int st = an2_pair_wait_child(&p);
            if (st != 128 + SIGKILL)
                FAIL("victim ended with %d, not SIGKILL", st);
            killed = true;
        }
    }
    printf("kill: %u PDUs received intact, then PEER_GONE after SIGKILL\n", good);
    an2_expect_summary("endpoints 1 vcs 1 routes 0 pending 0");
    /* a send on the dead VC is reported PEER_GONE, not sent */
    struct an2_frag f = {0, 100};
    if (an2_send(ep, vc, &f, 1, 0, 42) != 0)
        FAIL("send on a gone VC was refused locally");
    for (;;) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.cookie == 42) {
            if (r.status != AN2_STATUS_PEER_GONE)
                FAIL("send on a gone VC reported %s", an2_status_str(r.status));
            break;
        }
    }
    int rc = an2_vc_close(ep, vc);
    if (rc != 0)
        FAIL("an2_vc_close: %s", an2_strerror(rc));
    an2_expect_summary("endpoints 1 vcs 0 routes 0 pending 0");
    an2_close(ep);
    an2_expect_summary("endpoints 0 vcs 0 routes 0 pending 0");
    return 0;
}
