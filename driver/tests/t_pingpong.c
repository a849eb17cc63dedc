/* t_pingpong.c — a short ping-pong between two processes: t_pingpong COUNT SIZE [TEXT].
 * The payload is TEXT repeated (or a pattern); every echo is checked. Used by the
 * no-system-call check (under strace) and the capture check (read back by tshark). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an2_pair.h"

static void fill(uint8_t *b, uint32_t len, const char *text)
{
    if (!text) {
        an2_fill_pattern(b, len, len);
        return;
    }
    size_t t = strlen(text);
    for (uint32_t i = 0; i < len; i++)
        b[i] = (uint8_t)text[i % t];
}

/* Waits for the RX report (TX reports just pass), reposts its buffer. */
static struct an2_report recv_one(an2_ep *ep, uint16_t vc)
{
    for (;;) {
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS);
        if (n != 1)
            FAIL("no report within %d ms", AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("report kind %u status %s", r.kind, an2_status_str(r.status));
        if (r.kind != AN2_REPORT_RX)
            continue;
        struct an2_frag f = {65536, 65536};
        if (an2_post_recv(ep, vc, &f, 1, 0) != 0)
            FAIL("repost");
        return r;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        FAIL("usage: t_pingpong COUNT SIZE [TEXT]");
    long count = atol(argv[1]);
    uint32_t size = (uint32_t)atol(argv[2]);
    const char *text = argc > 3 ? argv[3] : NULL;
    if (size > 65535 || count < 1)
        FAIL("bad COUNT or SIZE");
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    uint8_t *b = an2_buf_base(ep);
    fill(b, size, text);
    for (int i = 0; i < 4; i++) {
        struct an2_frag f = {65536, 65536};
        if (an2_post_recv(ep, vc, &f, 1, 0) != 0)
            FAIL("post");
    }
    an2_pair_signal(&p, 'r');
    an2_pair_await(&p);
    struct an2_frag out = {0, size};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < count; i++) {
        if (p.parent && an2_send(ep, vc, &out, 1, 1, (uint64_t)i) != 0)
            FAIL("send");
        struct an2_report r = recv_one(ep, vc);
        if (r.length != size || memcmp(b + 65536, b, size) != 0)
            FAIL("message %ld: %u bytes, or wrong content", i, r.length);
        if (!p.parent && an2_send(ep, vc, &out, 1, 2, (uint64_t)i) != 0)
            FAIL("echo");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!p.parent) {
        an2_pair_await(&p);
        an2_close(ep);
        return 0;
    }
    double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3;
    printf("pingpong: %ld round trips of %u bytes, %.2f us one-way on average (%s)\n", count,
           size, us / count / 2, p.vc.addr);
    an2_pair_signal(&p, 'd');
    int st = an2_pair_wait_child(&p);
    an2_close(ep);
    return st;
}
