/* t_faults.c — t_faults COUNT SIZE: through an an2d started with fault injection, COUNT PDUs
 * of SIZE bytes; every PDU delivered as good must be intact, and the damaged ones must come
 * back as CRC or length errors. Prints "good N damaged M" for the script to judge. After the
 * data the sender sends one-cell end marks until the receiver has one intact: then every data
 * cell has reached it (a lost cell or bit error can take a mark, never the last of them). */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include "an2_pair.h"

#define SLOT 65536u
#define MARK_LEN 8u     /* one cell with its trailer */
#define MARK_SEED 99u
#define MAX_MARKS 3000u /* one per 10 ms at most: 30 s */

int main(int argc, char **argv)
{
    if (argc != 3)
        FAIL("usage: t_faults COUNT SIZE");
    unsigned count = (unsigned)atoi(argv[1]);
    uint32_t size = (uint32_t)atoi(argv[2]);
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    uint8_t *b = an2_buf_base(ep);
    if (p.parent) {
        an2_fill_pattern(b, size, 11);
        an2_pair_await(&p);
        struct an2_frag f = {0, size};
        for (unsigned i = 0; i < count; i++) {
            if (an2_send(ep, vc, &f, 1, 0, i) != 0)
                FAIL("send");
            struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
            if (r.status != AN2_STATUS_OK)
                FAIL("TX status %s", an2_status_str(r.status));
        }
        /* end marks, one at a time, until the receiver says it has one */
        an2_fill_pattern(b + SLOT, MARK_LEN, MARK_SEED);
        struct an2_frag m = {SLOT, MARK_LEN};
        for (unsigned k = 0;; k++) {
            if (k == MAX_MARKS)
                FAIL("the receiver saw none of %u end marks", k);
            if (an2_send(ep, vc, &m, 1, 0, count + k) != 0)
                FAIL("send mark");
            struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
            if (r.status != AN2_STATUS_OK)
                FAIL("mark TX status %s", an2_status_str(r.status));
            struct pollfd pf = {.fd = p.from_peer, .events = POLLIN};
            if (poll(&pf, 1, 10) == 1)
                break;
        }
        if (an2_pair_await(&p) != 'm')
            FAIL("the receiver did not report an end mark");
        an2_pair_signal(&p, 'd');
        int st = an2_pair_wait_child(&p);
        an2_close(ep);
        return st;
    }
    for (uint32_t i = 0; i < 16; i++) {
        struct an2_frag f = {i * SLOT, SLOT};
        if (an2_post_recv(ep, vc, &f, 1, i) != 0)
            FAIL("post");
    }
    an2_pair_signal(&p, 'r');
    unsigned good = 0, damaged = 0;
    for (bool marked = false; !marked;) {
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS);
        if (n < 0)
            FAIL("an2_wait: %s", an2_strerror(n));
        if (n == 0)
            FAIL("no PDU and no end mark for %d ms (%u good, %u damaged)", AN2_TEST_WAIT_MS,
                 good, damaged);
        if (r.kind != AN2_REPORT_RX)
            FAIL("report kind %u status %s", r.kind, an2_status_str(r.status));
        const uint8_t *got = b + r.cookie * SLOT;
        if (r.status == AN2_STATUS_OK && r.length == MARK_LEN &&
            an2_check_pattern(got, MARK_LEN, MARK_SEED)) {
            marked = true;
        } else if (r.status == AN2_STATUS_OK) {
            if (r.length != size || !an2_check_pattern(got, size, 11))
                FAIL("a damaged PDU was delivered as good (%u bytes)", r.length);
            good++;
        } else if (r.status == AN2_STATUS_CRC_ERROR || r.status == AN2_STATUS_LENGTH_ERROR) {
            /* a mark alone with a flipped bit is one cell: not data */
            damaged += r.length > 48;
        } else {
            FAIL("receive status %s", an2_status_str(r.status));
        }
        struct an2_frag f = {(uint32_t)r.cookie * SLOT, SLOT};
        if (an2_post_recv(ep, vc, &f, 1, r.cookie) != 0)
            FAIL("repost");
    }
    an2_pair_signal(&p, 'm');
    an2_pair_await(&p);
    printf("good %u damaged %u of %u sent\n", good, damaged, count);
    an2_close(ep);
    return 0;
}
