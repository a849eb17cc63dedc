/* t_fanin.c — one receiver endpoint with a VC to each of three sender processes, all sending
 * at once: every PDU arrives on its own sender's VC, in order, intact (demultiplexing by VC,
 * several VCs per endpoint, VC opens started together and completed in any order). The
 * senders are forked after the receiver opened its endpoint: they must not keep it alive.
 * Across hosts: sender k uses the an2d at $AN2_SENDER_SOCKET_<k> if set; a slow receiver:
 * $AN2_FANIN_SLOW_US microseconds of sleep after each PDU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "an2_pair.h"

#define SENDERS 3
#define PDUS 300
#define SLOT 65536u

static uint32_t size_of(unsigned sender, unsigned i)
{
    return (sender * 7919u + i * 104729u) % 9000u;
}

static void sender(unsigned k, uint32_t receiver_id, int id_pipe)
{
    char var[32];
    snprintf(var, sizeof var, "AN2_SENDER_SOCKET_%u", k);
    if (getenv(var) && *getenv(var))
        setenv("AN2_SOCKET", getenv(var), 1);
    an2_ep *ep;
    int rc = an2_open(NULL, &ep);
    if (rc != 0)
        FAIL("sender %u: an2_open: %s", k, an2_strerror(rc));
    uint32_t mine = an2_endpoint_id(ep);
    if (write(id_pipe, &mine, sizeof mine) != sizeof mine)
        FAIL("pipe");
    struct an2_vc_info vi;
    if ((rc = an2_vc_open(ep, receiver_id, AN2_TEST_WAIT_MS, &vi)) != 0)
        FAIL("sender %u: an2_vc_open: %s", k, an2_strerror(rc));
    uint8_t *b = an2_buf_base(ep);
    unsigned reported = 0;
    for (unsigned i = 0; i < PDUS; i++) {
        uint32_t len = size_of(k, i);
        uint32_t off = (i % 32) * 16384;
        an2_fill_pattern(b + off, len, k * 100000 + i);
        struct an2_frag f = {off, len};
        if ((rc = an2_send(ep, vi.vc, &f, 1, (uint8_t)k, i)) != 0)
            FAIL("sender %u: send: %s", k, an2_strerror(rc));
        /* 32 buffers: before reusing them, every send of the batch must be reported */
        while (i % 32 == 31 && reported <= i) {
            an2_expect_report(ep, AN2_REPORT_TX, AN2_TEST_WAIT_MS);
            reported++;
        }
    }
    /* stay until the receiver has everything (it closes first: PEER_GONE) */
    for (;;) {
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS);
        if (n != 1)
            FAIL("sender %u: no PEER_GONE", k);
        if (r.kind == AN2_REPORT_VC && r.status == AN2_STATUS_PEER_GONE)
            break;
    }
    an2_close(ep);
    exit(0);
}

int main(void)
{
    an2_ep *ep;
    int rc = an2_open(NULL, &ep);
    if (rc != 0)
        FAIL("an2_open: %s", an2_strerror(rc));
    uint32_t me = an2_endpoint_id(ep);
    pid_t kids[SENDERS];
    uint32_t ids[SENDERS];
    for (unsigned k = 0; k < SENDERS; k++) {
        int p[2];
        if (pipe(p) != 0)
            FAIL("pipe");
        fflush(NULL);
        if ((kids[k] = fork()) == 0) {
            close(p[0]);
            /* The parent's endpoint is left alone: liban2 closed its descriptors in this
             * child, or the parent's close below would not reach an2d and the senders
             * would wait for PEER_GONE in vain. */
            sender(k, me, p[1]);
        }
        close(p[1]);
        if (read(p[0], &ids[k], sizeof ids[k]) != sizeof ids[k])
            FAIL("sender %u did not start", k);
        close(p[0]);
    }
    for (unsigned k = 0; k < SENDERS; k++)
        if ((rc = an2_vc_open_start(ep, ids[k])) != 0)
            FAIL("an2_vc_open_start: %s", an2_strerror(rc));
    int vc_of[SENDERS];
    double t0 = an2_test_ms();
    for (unsigned done = 0; done < SENDERS;) {
        struct an2_vc_info vi;
        rc = an2_vc_open_complete(ep, &vi);
        if (rc < 0)
            FAIL("VC open: %s", an2_strerror(rc));
        if (rc == 0) {
            if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
                FAIL("%u of %u VCs opened within %d ms", done, SENDERS, AN2_TEST_WAIT_MS);
            usleep(1000);
            continue;
        }
        for (unsigned k = 0; k < SENDERS; k++)
            if (ids[k] == vi.peer_id)
                vc_of[k] = vi.vc;
        /* 16 buffers per VC, in slot ranges of their own */
        for (uint32_t i = 0; i < 16; i++) {
            struct an2_frag f = {(vi.vc * 16 + i) * SLOT, SLOT};
            if (an2_post_recv(ep, vi.vc, &f, 1, vi.vc * 16 + i) != 0)
                FAIL("post");
        }
        done++;
    }
    unsigned next[SENDERS] = {0};
    unsigned slow_us = getenv("AN2_FANIN_SLOW_US") ? (unsigned)atoi(getenv("AN2_FANIN_SLOW_US")) : 0;
    const uint8_t *b = an2_buf_base(ep);
    for (unsigned total = 0; total < SENDERS * PDUS; total++) {
        struct an2_report r = an2_expect_report(ep, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("receive: %s", an2_status_str(r.status));
        unsigned k = r.uu;
        if (k >= SENDERS || vc_of[k] != r.vc)
            FAIL("PDU of sender %u arrived on VC %u", k, r.vc);
        uint32_t len = size_of(k, next[k]);
        const uint8_t *got = b + r.cookie * SLOT;
        if (r.length != len || !an2_check_pattern(got, len, k * 100000 + next[k]))
            FAIL("sender %u PDU %u: %u bytes or content wrong (wanted %u)", k, next[k],
                 r.length, len);
        next[k]++;
        struct an2_frag f = {(uint32_t)r.cookie * SLOT, SLOT};
        if (an2_post_recv(ep, r.vc, &f, 1, r.cookie) != 0)
            FAIL("repost");
        if (slow_us)
            usleep(slow_us);
    }
    printf("fan-in: %u senders x %u PDUs, each on its own VC, in order and intact\n", SENDERS,
           PDUS);
    an2_close(ep);
    int bad = 0;
    for (unsigned k = 0; k < SENDERS; k++) {
        int st;
        waitpid(kids[k], &st, 0);
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    return bad;
}
