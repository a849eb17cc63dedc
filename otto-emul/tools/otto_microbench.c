/* otto_microbench.c — in-process micro-benchmark of otto-emul for its developers: CRC engines
 * and the controller's per-PDU cost and streaming rate (host and controller on one thread).
 * Not a test; the project's benchmark numbers come from bench/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aal5_crc32.h"
#include "harness.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench_crc(size_t len)
{
    uint8_t *buf = malloc(len), *dst = malloc(len);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 7);
    size_t iters = (size_t)(2e9 / (len + 64));
    volatile uint32_t sink = 0;
    struct { const char *name; int which; } engines[] = { { "table", 0 }, { "clmul", 1 },
                                                          { "vpclmul", 3 }, { "copy+crc", 2 } };
    for (unsigned e = 0; e < 4; e++) {
        if ((engines[e].which == 1 && !aal5_crc32_clmul_available()) ||
            (engines[e].which == 3 && !aal5_crc32_vpclmul_available()))
            continue;
        double t0 = now_s();
        for (size_t i = 0; i < iters; i++) {
            uint32_t r = engines[e].which == 0 ? aal5_crc32_update_table(~0u, buf, len)
                       : engines[e].which == 1 ? aal5_crc32_update_clmul(~0u, buf, len)
                       : engines[e].which == 3 ? aal5_crc32_update_vpclmul(~0u, buf, len)
                                               : aal5_crc32_copy(~0u, dst, buf, len);
            sink += r;
        }
        double dt = now_s() - t0;
        printf("crc %-9s %6zu B: %8.2f GB/s  %7.1f ns/call\n", engines[e].name, len,
               iters * (double)len / dt / 1e9, dt / iters * 1e9);
    }
    free(buf);
    free(dst);
}

/* One thread plays both hosts and the controller: PDUs of len bytes, loopback VC. */
static void bench_controller(uint32_t len, unsigned npdus, unsigned window)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = window };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { 0 };
    struct otto *o = otto_create(&oc, sw, 0);
    struct host a, b;
    host_create(&a, 1, 1, 64, 64, 64u * 65536);
    host_create(&b, 2, 1, 64, 64, 64u * 65536);
    otto_attach(o, 1, a.base, a.size);
    otto_attach(o, 2, b.base, b.size);
    otto_vc_bind(o, 1, 0, 0, 100);
    otto_vc_bind(o, 2, 0, 0, 101);
    an2_switch_route_add(sw, 0, 0, 100, 0, 0, 101);
    memset(a.buf, 0x5a, 64u * 65536);
    unsigned sent = 0, posted = 0, done = 0;
    double t0 = now_s();
    while (done < npdus) {
        while (posted < npdus && posted - done < 32) {
            struct otto_frag f = { (posted % 32) * 65536, 65536 };
            if (!host_post_rx(&b, 0, posted, &f, 1))
                break;
            posted++;
        }
        while (sent < npdus && sent - done < 32) {
            struct otto_frag f = { (sent % 32) * 65536, len };
            if (!host_send(&a, 0, sent, &f, 1, 0))
                break;
            sent++;
        }
        otto_poll(o, 0);
        struct otto_report r;
        while (host_report(&a, &r))
            ;
        while (host_report(&b, &r)) {
            if (r.status != OTTO_STATUS_OK)
                abort();
            done++;
        }
    }
    double dt = now_s() - t0;
    printf("controller %6u B x %u (window %u): %8.1f ns/PDU  %8.1f MB/s\n", len, npdus, window,
           dt / npdus * 1e9, (double)len * npdus / dt / 1e6);
    otto_destroy(o);
    an2_switch_destroy(sw);
    host_destroy(&a);
    host_destroy(&b);
}

/* The cost of a poll that finds nothing to do: what the daemon pays while it spins. */
static void bench_idle_poll(unsigned nportions)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 64 };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { 0 };
    struct otto *o = otto_create(&oc, sw, 0);
    struct host h[16];
    for (unsigned i = 0; i < nportions; i++) {
        host_create(&h[i], i + 1, 64, 64, 16, 1 << 20);
        otto_attach(o, i + 1, h[i].base, h[i].size);
    }
    unsigned n = 2000000;
    double t0 = now_s();
    for (unsigned i = 0; i < n; i++)
        otto_poll(o, i);
    double dt = now_s() - t0;
    printf("idle poll, %u portions: %.1f ns\n", nportions, dt / n * 1e9);
    otto_destroy(o);
    an2_switch_destroy(sw);
    for (unsigned i = 0; i < nportions; i++)
        host_destroy(&h[i]);
}

int main(void)
{
    bench_idle_poll(2);
    bench_idle_poll(16);
    printf("crc engine in use: %s\n", aal5_crc32_engine());
    bench_crc(48);
    bench_crc(1500);
    bench_crc(65536);
    bench_controller(0, 200000, 256);
    bench_controller(40, 200000, 256);
    bench_controller(1000, 100000, 256);
    bench_controller(65535, 20000, 256);
    bench_controller(65535, 20000, 64);
    return 0;
}
