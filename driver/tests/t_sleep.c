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

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

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
                n = an2_wait(ep, &r, 1, 5000); /* futex sleep */
            } else { /* poll() sleep, as beside other descriptors; wakes may be spurious */
                double t0 = now_ms();
                do {
                    if (an2_sleep_prepare(ep) == 0) {
                        struct pollfd pf = {.fd = an2_irq_fd(ep), .events = POLLIN};
                        if (poll(&pf, 1, 5000) != 1)
                            FAIL("not woken through an2_irq_fd");
                    }
                    an2_sleep_finish(ep);
                    n = an2_poll(ep, &r, 1);
                } while (n == 0 && now_ms() - t0 < 5000);
            }
            if (n != 1 || r.kind != AN2_REPORT_RX || r.status != AN2_STATUS_OK || r.length != 1000)
                FAIL("round %d: no good PDU after sleeping (n %d)", round, n);
            uint32_t after = otto_shared_count_get(&ep->hdr->irq_count);
            if (after == before)
                FAIL("round %d: woken without an interrupt (irq_count %u)", round, after);
            continue;
        }
        an2_pair_await(&p);
        /* wait until an2d has fallen asleep (it idles a few ms first) */
        double t0 = now_ms();
        while (!otto_shared_get(&ep->hdr->controller_asleep)) { /* only watched */
            if (now_ms() - t0 > 5000)
                FAIL("an2d never fell asleep");
            usleep(1000);
        }
        usleep(50000); /* and the receiver too (it yields AN2_YIELD_US, then sleeps) */
        struct an2_frag f = {0, 1000};
        double ts = now_ms();
        if (an2_send(ep, vc, &f, 1, 0, 9) != 0)
            FAIL("send");
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, 5000);
        if (r.status != AN2_STATUS_OK)
            FAIL("send: %s", an2_status_str(r.status));
        printf("round %d: an2d was asleep; the send was kicked through, TX report after "
               "%.3f ms\n", round, now_ms() - ts);
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
