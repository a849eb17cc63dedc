/* t_sleep.c — the sleeping paths: the receiver falls asleep in an2_wait (futex on irq_count)
 * or in poll() on an2_irq_fd, an2d falls asleep (controller_asleep); a send then kicks an2d
 * awake, and the controller's interrupt wakes the receiver through the driver: irq_count
 * moves and the PDU arrives. */
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "an2_internal.h"
#include "an2_pair.h"

int main(void)
{
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    for (int round = 0; round < 3; round++) {
        if (!p.parent) {
            struct an2_frag f = {0, 4096};
            if (an2_post_recv(ep, vc, &f, 1, 1) != 0)
                FAIL("post");
            uint32_t before = otto_shared_count_get(&ep->hdr->irq_count);
            an2_pair_signal(&p, 'r');
            struct an2_report r;
            int n;
            if (round < 2) {
                n = an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS); /* futex sleep */
            } else { /* poll() sleep, as beside other descriptors; wakes may be spurious */
                double t0 = an2_test_ms();
                do {
                    if (an2_sleep_prepare(ep) == 0) {
                        struct pollfd pf = {.fd = an2_irq_fd(ep), .events = POLLIN};
                        if (poll(&pf, 1, AN2_TEST_WAIT_MS) != 1)
                            FAIL("not woken through an2_irq_fd");
                    }
                    an2_sleep_finish(ep);
                    n = an2_poll(ep, &r, 1);
                } while (n == 0 && an2_test_ms() - t0 < AN2_TEST_WAIT_MS);
            }
            if (n != 1 || r.kind != AN2_REPORT_RX || r.status != AN2_STATUS_OK || r.length != 1000)
                FAIL("round %d: no good PDU after sleeping (n %d)", round, n);
            uint32_t after = otto_shared_count_get(&ep->hdr->irq_count);
            if (after == before)
                FAIL("round %d: woken without an interrupt (irq_count %u)", round, after);
            continue;
        }
        an2_pair_await(&p);
        /* wait until the receiver sleeps (it yields AN2_YIELD_US first, never blocking: after
         * its signal its only sleep is the futex or the poll()) */
        an2_expect_proc_state(p.child, "S", "the receiver falling asleep");
        /* and until an2d has fallen asleep (it idles a few ms first) */
        double t0 = an2_test_ms();
        while (!otto_shared_get(&ep->hdr->controller_asleep)) { /* only watched */
            if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
                FAIL("an2d never fell asleep");
            usleep(1000);
        }
        struct an2_frag f = {0, 1000};
        double ts = an2_test_ms();
        if (an2_send(ep, vc, &f, 1, 0, 9) != 0)
            FAIL("send");
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("send: %s", an2_status_str(r.status));
        printf("round %d: an2d was asleep; the send was kicked through, TX report after "
               "%.3f ms\n", round, an2_test_ms() - ts);
    }
    if (p.parent) {
        int st = an2_pair_wait_child(&p);
        an2_close(ep);
        if (st == 0)
            printf("sleep: kick and interrupt paths work\n");
        return st;
    }
    an2_close(ep);
    return 0;
}
