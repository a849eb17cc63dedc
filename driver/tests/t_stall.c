/* t_stall.c — a task that stops reading costs an2d nothing: t_stall AN2D_PID. A receiver that
 * posts no buffers, a sender that stops reading its reports until its report ring is full,
 * and a report consumer index left far ahead each leave an2d asleep (its CPU time over two
 * seconds is counted from /proc), and each time everything goes on when the task does. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "an2_internal.h"
#include "an2_pair.h"

#define PDU 1000u
#define TOTAL 400u
#define RX_BUF 2048u
#define QUIET_S 2
#define MAX_CPU_SHARE 0.10 /* of the quiet period; a spinning an2d takes most of it */

static double cpu_seconds(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        FAIL("an2d (pid %d) is gone", (int)pid);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    unsigned long utime = 0, stime = 0;
    /* after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt
     * cmajflt utime stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                     &stime) != 2)
        FAIL("cannot read %s", path);
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* an2d's CPU time while we do nothing for QUIET_S seconds must stay small. */
static void expect_an2d_quiet(pid_t an2d, const char *what)
{
    double before = cpu_seconds(an2d);
    sleep_ms(QUIET_S * 1000);
    double used = cpu_seconds(an2d) - before;
    printf("%s: an2d used %.2f s of CPU in %d s\n", what, used, QUIET_S);
    if (used > MAX_CPU_SHARE * QUIET_S)
        FAIL("%s: an2d used %.2f s of CPU in %d s (at most %.2f allowed)", what, used, QUIET_S,
             MAX_CPU_SHARE * QUIET_S);
}

static void send_one(an2_ep *ep, uint16_t vc, uint64_t cookie)
{
    struct an2_frag f = {0, PDU};
    int rc = an2_send(ep, vc, &f, 1, 0, cookie);
    if (rc != 0)
        FAIL("an2_send: %s", an2_strerror(rc));
}

/* Waits until an2d has fallen asleep (controller_asleep in our portion): what is stalled
 * leaves it nothing to do. */
static void expect_an2d_asleep(an2_ep *ep, const char *what)
{
    for (double t0 = an2_test_ms(); !otto_shared_get(&ep->hdr->controller_asleep);) {
        if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
            FAIL("%s: an2d did not fall asleep within %d ms", what, AN2_TEST_WAIT_MS);
        sleep_ms(1);
    }
}

/* Reads TX reports until `want` have come. */
static void collect_tx(an2_ep *ep, unsigned *done, unsigned want)
{
    while (*done < want) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("TX report: %s", an2_status_str(r.status));
        ++*done;
    }
}

static void receiver(struct an2_pair *p)
{
    an2_ep *ep = p->ep;
    uint16_t vc = p->vc.vc;
    uint8_t *buf = an2_buf_base(ep);
    if (an2_pair_await(p) != 'g')
        FAIL("no go");
    unsigned posted = an2_rx_slots(ep);
    for (unsigned i = 0; i < posted; i++) {
        struct an2_frag f = {i * RX_BUF, RX_BUF};
        if (an2_post_recv(ep, vc, &f, 1, i) != 0)
            FAIL("post_recv");
    }
    for (unsigned got = 0; got < TOTAL + 2; got++) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK || r.length != PDU ||
            !an2_check_pattern(buf + r.cookie * RX_BUF, PDU, 7))
            FAIL("PDU %u: %s, %u bytes or wrong payload", got, an2_status_str(r.status),
                 r.length);
        struct an2_frag f = {(uint32_t)r.cookie * RX_BUF, RX_BUF};
        if (an2_post_recv(ep, vc, &f, 1, r.cookie) != 0)
            FAIL("repost");
    }
    printf("receiver: %u PDUs intact\n", TOTAL + 2);
    an2_pair_signal(p, 'd');
    an2_close(ep);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        FAIL("usage: t_stall AN2D_PID");
    pid_t an2d = (pid_t)atoi(argv[1]);
    struct an2_pair p;
    struct an2_open_params params = {.buf_size = 1u << 20, .tx_slots = 64, .max_vcs = 4};
    an2_pair_setup(&p, &params);
    if (!p.parent)
        receiver(&p);
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    an2_fill_pattern(an2_buf_base(ep), PDU, 7);

    /* 1. The receiver has posted nothing yet: the first PDUs wait in the switch for credit. */
    unsigned sent = 0, done = 0;
    for (; sent < 10; sent++)
        send_one(ep, vc, sent);
    expect_an2d_asleep(ep, "receiver posts no buffers");
    expect_an2d_quiet(an2d, "receiver posts no buffers");
    an2_pair_signal(&p, 'g');

    /* 2. We stop reading reports: the controller takes descriptors only while it can reserve
     * report slots, so our ring fills and then the transmit ring: until a send finds the
     * transmit ring full while the controller asks for freed report slots. */
    for (double t0 = an2_test_ms();;) {
        if (sent == TOTAL)
            FAIL("all %u PDUs went out although no report was read", TOTAL);
        struct an2_frag f = {0, PDU};
        if (an2_send(ep, vc, &f, 1, 0, sent) == 0) {
            sent++;
            continue;
        }
        if (otto_shared_get(&ep->hdr->controller_wants_reports))
            break;
        if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
            FAIL("transmit ring full after %u PDUs, but the controller did not ask for freed "
                 "report slots within %d ms", sent, AN2_TEST_WAIT_MS);
        sleep_ms(1);
    }
    printf("report ring full after %u PDUs\n", sent);
    expect_an2d_asleep(ep, "sender reads no reports");
    expect_an2d_quiet(an2d, "sender reads no reports");
    while (sent < TOTAL) { /* reading reports frees slots: the controller resumes */
        while (sent < TOTAL && an2_tx_space(ep) > 0)
            send_one(ep, vc, sent++);
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("TX report: %s", an2_status_str(r.status));
        done++;
    }
    collect_tx(ep, &done, TOTAL);

    /* 3. A report consumer index far ahead of the ring: ignored, and the portion stalls
     * without a cost until the index makes sense again. */
    uint32_t real_cons = ep->report_cons;
    ep->hdr->report.cons = real_cons + 100000;
    uint32_t tx_cons = ep->hdr->tx.cons;
    send_one(ep, vc, sent++);
    expect_an2d_quiet(an2d, "report index far ahead");
    if (ep->hdr->tx.cons != tx_cons)
        FAIL("the controller took a descriptor while the report ring was unusable");
    ep->hdr->report.cons = real_cons;
    send_one(ep, vc, sent++); /* its doorbell wakes the controller */
    collect_tx(ep, &done, TOTAL + 2);
    if (an2_pair_await(&p) != 'd')
        FAIL("receiver did not finish");
    int st = an2_pair_wait_child(&p);
    an2_close(ep);
    printf("stall: ok\n");
    return st;
}
