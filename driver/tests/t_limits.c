/* t_limits.c — per-task limits and VC signalling corner cases, each with its clear error:
 * too big a buffer area or VC count (E2BIG), VC limit reached (ENOSPC), unknown peer and
 * peer closing before agreeing (ESRCH), self (EINVAL), duplicate (EALREADY), timeout and
 * cancel (ETIMEDOUT, ENOENT), closing a VC that is not open (EBADF). an2d runs with
 * --max-buf-size 8M --max-vcs 4 --max-desc-mem 256K. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "an2_pair.h"

#define EXPECT(call, want)                                                                   \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != (want))                                                                   \
            FAIL("%s gave %d (%s), wanted %d", #call, rc_, an2_strerror(rc_), want);         \
    } while (0)

/* The next VC-open answer, waiting up to AN2_TEST_WAIT_MS. */
static int complete(an2_ep *ep, struct an2_vc_info *vi)
{
    for (double t0 = an2_test_ms(); an2_test_ms() - t0 < AN2_TEST_WAIT_MS; usleep(1000)) {
        int rc = an2_vc_open_complete(ep, vi);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int main(void)
{
    an2_ep *a, *b, *c;
    struct an2_open_params big = {.buf_size = 9u << 20};
    EXPECT(an2_open(&big, &a), -E2BIG);
    if (!strstr(an2_error_detail(), "limit"))
        FAIL("E2BIG without a clear detail: '%s'", an2_error_detail());
    printf("refused: %s\n", an2_error_detail());
    struct an2_open_params many = {.max_vcs = 5};
    EXPECT(an2_open(&many, &a), -E2BIG);
    printf("refused: %s\n", an2_error_detail());
    struct an2_open_params rings = {.rx_slots = 1024}; /* 4 VCs x 1024 x 80 B > 256 KiB */
    EXPECT(an2_open(&rings, &a), -E2BIG);
    if (!strstr(an2_error_detail(), "descriptor memory"))
        FAIL("E2BIG for descriptor memory without a clear detail: '%s'", an2_error_detail());
    printf("refused: %s\n", an2_error_detail());
    struct an2_open_params odd = {.tx_slots = 100};
    if (an2_open(&odd, &a) == 0)
        FAIL("tx_slots 100 (not a power of two) accepted");
    printf("refused: %s\n", an2_error_detail());

    struct an2_open_params one = {.max_vcs = 1, .buf_size = 1u << 20};
    EXPECT(an2_open(&one, &a), 0);
    EXPECT(an2_open(NULL, &b), 0);
    EXPECT(an2_open(NULL, &c), 0);
    uint32_t ia = an2_endpoint_id(a), ib = an2_endpoint_id(b), ic = an2_endpoint_id(c);
    if (!ia || !ib || !ic || ia == ib || ib == ic || ia == ic)
        FAIL("endpoint ids %u %u %u", ia, ib, ic);
    struct an2_vc_info vi;

    EXPECT(an2_vc_open(a, 999999, 1000, &vi), -ESRCH);
    EXPECT(an2_vc_open(a, ia, 1000, &vi), -EINVAL);
    EXPECT(an2_vc_open(a, ic, 100, &vi), -ETIMEDOUT);     /* c never asks */
    EXPECT(an2_vc_open_cancel(a, ic), -ENOENT);            /* the timeout withdrew it */

    EXPECT(an2_vc_open_start(a, ib), 0);
    EXPECT(an2_vc_open_start(a, ib), 0);                   /* answered asynchronously: */
    EXPECT(complete(a, &vi), -EALREADY);
    EXPECT(an2_vc_open_start(a, ic), 0);                   /* the pending one holds a's VC */
    EXPECT(complete(a, &vi), -ENOSPC);
    printf("refused: %s\n", an2_error_detail());
    EXPECT(an2_vc_open_cancel(a, ib), 0);
    EXPECT(an2_vc_open_cancel(a, ib), -ENOENT);

    /* the peer closes before agreeing */
    EXPECT(an2_vc_open_start(a, ib), 0);
    an2_close(b);
    EXPECT(complete(a, &vi), -ESRCH);
    if (vi.peer_id != ib)
        FAIL("the failure names peer %u, not %u", vi.peer_id, ib);

    /* start/complete on one side, blocking on the other */
    EXPECT(an2_vc_open_start(a, ic), 0);
    struct an2_vc_info vc_c;
    EXPECT(an2_vc_open(c, ia, AN2_TEST_WAIT_MS, &vc_c), 0);
    EXPECT(complete(a, &vi), 1);
    if (vi.peer_id != ic || vc_c.peer_id != ia || vi.vci == vc_c.vci)
        FAIL("VC a-c: peers %u/%u, VCIs %u/%u", vi.peer_id, vc_c.peer_id, vi.vci, vc_c.vci);
    uint16_t itf, vpi, vci;
    EXPECT(an2_addr_parse(vi.addr, &itf, &vpi, &vci), 0);
    if (itf != vi.itf || vpi != vi.vpi || vci != vi.vci)
        FAIL("address text %s does not parse back", vi.addr);
    printf("VC %s (endpoint %u) <-> %s (endpoint %u)\n", vi.addr, ia, vc_c.addr, ic);
    struct an2_vc_info again;
    EXPECT(an2_vc_info(a, vi.vc, &again), 0);
    EXPECT(an2_vc_open(a, ic, 500, &again), -ENOSPC);     /* a's only VC is in use */
    EXPECT(an2_vc_close(a, (uint16_t)(vi.vc + 1)), -EBADF);
    EXPECT(an2_vc_close(a, vi.vc), 0);
    EXPECT(an2_vc_close(a, vi.vc), -EBADF);
    struct an2_report r = an2_expect_report(c, AN2_REPORT_VC, AN2_TEST_WAIT_MS);
    if (r.status != AN2_STATUS_PEER_GONE || r.vc != vc_c.vc)
        FAIL("c got %s on vc %u after a closed its end", an2_status_str(r.status), r.vc);
    EXPECT(an2_vc_close(c, vc_c.vc), 0);
    an2_close(a);
    an2_close(c);
    printf("limits and signalling errors: all as expected\n");
    return 0;
}
