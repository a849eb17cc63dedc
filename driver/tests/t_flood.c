/* t_flood.c — a sender into a VC whose far end may stop reading: opens an endpoint, prints
 * "ep N", reads the peer's endpoint id from stdin, opens a VC to it and sends 60000-byte PDUs
 * as fast as the VC takes them until PEER_GONE (at most AN2_FLOOD_SECONDS, default 20);
 * prints how much went and when PEER_GONE came. Exit 0 on PEER_GONE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "an2_pair.h"

#define LEN 60000u

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    struct an2_open_params params = {.buf_size = LEN, .tx_slots = 16};
    an2_ep *ep;
    int rc = an2_open(&params, &ep);
    if (rc != 0)
        FAIL("an2_open: %s (%s)", an2_strerror(rc), an2_error_detail());
    printf("ep %u\n", an2_endpoint_id(ep));
    fflush(stdout);
    unsigned long peer;
    if (scanf("%lu", &peer) != 1)
        FAIL("no peer id on stdin");
    struct an2_vc_info vc;
    rc = an2_vc_open(ep, (uint32_t)peer, AN2_TEST_WAIT_MS, &vc);
    if (rc != 0)
        FAIL("an2_vc_open %lu: %s (%s)", peer, an2_strerror(rc), an2_error_detail());
    const char *limit_text = getenv("AN2_FLOOD_SECONDS");
    double limit = limit_text ? atof(limit_text) : 20.0;
    double t0 = seconds_now();
    an2_fill_pattern(an2_buf_base(ep), LEN, 7);
    uint64_t sent = 0;
    /* bounded by the time limit: every pass sends or waits up to 10 ms for a report */
    while (seconds_now() - t0 < limit) {
        struct an2_frag f = {0, LEN};
        rc = an2_send(ep, vc.vc, &f, 1, 0, sent);
        if (rc == 0) {
            sent++;
            continue;
        }
        if (rc != -EAGAIN)
            FAIL("an2_send: %s", an2_strerror(rc));
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, 10);
        if (n < 0)
            FAIL("an2_wait: %s", an2_strerror(n));
        if (n == 1 && r.kind == AN2_REPORT_VC && r.status == AN2_STATUS_PEER_GONE) {
            printf("flood: %llu PDUs queued, PEER_GONE after %.2f s\n",
                   (unsigned long long)sent, seconds_now() - t0);
            an2_close(ep);
            return 0;
        }
    }
    FAIL("no PEER_GONE within %.0f s (%llu PDUs queued)", limit, (unsigned long long)sent);
}
