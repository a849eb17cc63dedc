/* t_exchange.c — two processes exchange PDUs of every awkward size over a VC, scattered over
 * several fragments both ways; the receiver checks length, CPCS-UU and every byte, and echoes
 * each PDU back from its receive buffer; bad sends are refused locally. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an2_pair.h"

static const uint32_t sizes[] = {0, 1, 39, 40, 41, 47, 48, 49, 95, 96, 1000, 4096, 65534, 65535};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define SLOT 65536u /* each receive buffer: two fragments of 32 KiB, 64 KiB apart */

static void post_all(an2_ep *ep, uint16_t vc, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct an2_frag f[2] = {{.offset = i * 2 * SLOT, .length = SLOT / 2},
                                {.offset = i * 2 * SLOT + SLOT, .length = SLOT / 2}};
        int rc = an2_post_recv(ep, vc, f, 2, i);
        if (rc != 0)
            FAIL("an2_post_recv: %s", an2_strerror(rc));
    }
}

/* Gathers the received PDU in buffer slot i into out. */
static void gather(an2_ep *ep, unsigned i, uint32_t len, uint8_t *out)
{
    const uint8_t *b = an2_buf_base(ep);
    uint32_t first = len < SLOT / 2 ? len : SLOT / 2;
    memcpy(out, b + i * 2 * SLOT, first);
    memcpy(out + first, b + i * 2 * SLOT + SLOT, len - first);
}

int main(void)
{
    struct an2_open_params params = {.buf_size = 4u << 20};
    struct an2_pair p;
    an2_pair_setup(&p, &params);
    an2_ep *ep = p.ep;
    uint16_t vc = p.vc.vc;
    uint8_t *b = an2_buf_base(ep);
    static uint8_t tmp[65536];
    /* Receive buffers in the low 2 MiB (16 slots), send buffers above. */
    post_all(ep, vc, 16);
    const uint32_t send_base = 2u << 20;
    an2_pair_signal(&p, 'r');
    an2_pair_await(&p);

    if (p.parent) {
        for (unsigned k = 0; k < NSIZES; k++) {
            uint32_t len = sizes[k];
            /* three fragments with gaps between them */
            uint32_t a = len / 3, c = len / 4, m = len - a - c;
            struct an2_frag f[3] = {{send_base, a}, {send_base + 100000, m},
                                    {send_base + 200000, c}};
            an2_fill_pattern(tmp, len, len);
            memcpy(b + f[0].offset, tmp, a);
            memcpy(b + f[1].offset, tmp + a, m);
            memcpy(b + f[2].offset, tmp + a + m, c);
            int rc = an2_send(ep, vc, f, 3, (uint8_t)k, 1000 + k);
            if (rc != 0)
                FAIL("an2_send %u: %s", len, an2_strerror(rc));
            /* our TX report and the echo, in either order */
            struct an2_report r = {0}, t = {0};
            bool got_tx = false, got_rx = false;
            while (!got_tx || !got_rx) {
                struct an2_report x;
                int n = an2_wait(ep, &x, 1, AN2_TEST_WAIT_MS);
                if (n != 1)
                    FAIL("no report for the %u-byte exchange", len);
                if (x.kind == AN2_REPORT_TX && !got_tx) {
                    t = x;
                    got_tx = true;
                } else if (x.kind == AN2_REPORT_RX && !got_rx) {
                    r = x;
                    got_rx = true;
                } else {
                    FAIL("unexpected report kind %u", x.kind);
                }
            }
            if (t.status != AN2_STATUS_OK || t.cookie != 1000 + k || t.length != len)
                FAIL("TX report for %u bytes: status %s cookie %llu length %u", len,
                     an2_status_str(t.status), (unsigned long long)t.cookie, t.length);
            if (r.status != AN2_STATUS_OK)
                FAIL("echo of %u bytes: %s", len, an2_status_str(r.status));
            if (r.length != len || r.uu != (uint8_t)(k + 1))
                FAIL("echo of %u bytes came back as %u bytes uu %u", len, r.length, r.uu);
            gather(ep, (unsigned)r.cookie, len, tmp);
            if (!an2_check_pattern(tmp, len, len))
                FAIL("echo of %u bytes corrupted", len);
            struct an2_frag again[2] = {{(uint32_t)r.cookie * 2 * SLOT, SLOT / 2},
                                        {(uint32_t)r.cookie * 2 * SLOT + SLOT, SLOT / 2}};
            if ((rc = an2_post_recv(ep, vc, again, 2, r.cookie)) != 0)
                FAIL("repost: %s", an2_strerror(rc));
        }
        /* Refused before they reach the controller. */
        struct an2_frag big[2] = {{0, 40000}, {40000, 25536}};
        if (an2_send(ep, vc, big, 2, 0, 1) != -EMSGSIZE)
            FAIL("a 65,536-byte PDU was not refused with EMSGSIZE");
        struct an2_frag outside = {(uint32_t)an2_buf_size(ep) - 10, 11};
        if (an2_send(ep, vc, &outside, 1, 0, 1) != -EFAULT)
            FAIL("a fragment outside the buffer area was not refused with EFAULT");
        if (an2_send(ep, (uint16_t)(vc + 1), big, 1, 0, 1) != -EBADF)
            FAIL("a send on a VC that is not open was not refused with EBADF");
        printf("exchange: %zu sizes from 0 to 65535 bytes both ways, all bytes checked\n",
               NSIZES);
        an2_pair_signal(&p, 'd');
        int st = an2_pair_wait_child(&p);
        an2_close(ep);
        return st;
    }
    /* child: check each PDU, echo it from its receive buffer (uu + 1), repost the buffer
     * when the echo's TX report gives it back */
    unsigned received = 0, echoed = 0;
    while (received < NSIZES || echoed < NSIZES) {
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS);
        if (n != 1)
            FAIL("child: no report after %u PDUs", received);
        if (r.status != AN2_STATUS_OK)
            FAIL("child: report kind %u status %s", r.kind, an2_status_str(r.status));
        uint32_t slot = (uint32_t)r.cookie;
        if (r.kind == AN2_REPORT_TX) {
            struct an2_frag again[2] = {{slot * 2 * SLOT, SLOT / 2},
                                        {slot * 2 * SLOT + SLOT, SLOT / 2}};
            int rc = an2_post_recv(ep, vc, again, 2, slot);
            if (rc != 0)
                FAIL("repost: %s", an2_strerror(rc));
            echoed++;
            continue;
        }
        if (r.kind != AN2_REPORT_RX || received >= NSIZES)
            FAIL("child: unexpected report kind %u", r.kind);
        uint32_t len = sizes[received];
        if (r.length != len || r.uu != (uint8_t)received)
            FAIL("PDU %u: got %u bytes uu %u", len, r.length, r.uu);
        gather(ep, slot, len, tmp);
        if (!an2_check_pattern(tmp, len, len))
            FAIL("PDU of %u bytes corrupted", len);
        uint32_t first = len < SLOT / 2 ? len : SLOT / 2;
        struct an2_frag f[2] = {{slot * 2 * SLOT, first}, {slot * 2 * SLOT + SLOT, len - first}};
        int rc = an2_send(ep, vc, f, 2, (uint8_t)(received + 1), slot);
        if (rc != 0)
            FAIL("echo send: %s", an2_strerror(rc));
        received++;
    }
    an2_pair_await(&p);
    an2_close(ep);
    return 0;
}
