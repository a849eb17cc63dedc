/* t_multiuser.c — one uid's side of the system an2d tests (fabric_multiuser.sh runs it under
 * setpriv as several uids):
 *   pair NAME SECONDS STOPFILE   two processes of this uid ping-pong checked PDUs over a VC
 *                       until STOPFILE exists (failing after SECONDS without it; the parent's
 *                       endpoint named NAME); prints "ready ENDPOINT", then
 *                       "second S round_trips N" every second and "done round_trips N"
 *   probe PEER NAME     another uid's endpoint PEER and name NAME: the name is unknown here and
 *                       free to take; a VC to PEER is refused (-EACCES) with the reason
 *   meet PEERFILE ok|refused   prints "endpoint ID", reads the peer's id from PEERFILE, asks
 *                       for a VC to it and expects it to open (and a PDU to cross each way)
 *                       or be refused (then it keeps its endpoint until PEERFILE.done is there)
 *   limits SOCKET       this uid's limits (an2d --max-user-endpoints 3 --max-user-vcs 2
 *                       --max-user-mem 16M --max-user-clients 8): each refused with -EDQUOT or
 *                       -EUSERS and a reason naming the limit */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "an2_pair.h"

#define PDU_BYTES 1000u
#define RX_OFF 65536u
#define STOP_UU 9u

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The next RX report on vc (TX reports pass), its buffer posted again. */
static struct an2_report recv_one(an2_ep *ep, uint16_t vc)
{
    for (;;) {
        struct an2_report r;
        if (an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS) != 1)
            FAIL("no report within %d ms", AN2_TEST_WAIT_MS);
        if (r.status != AN2_STATUS_OK)
            FAIL("report kind %u status %s", r.kind, an2_status_str(r.status));
        if (r.kind != AN2_REPORT_RX)
            continue;
        struct an2_frag f = {RX_OFF, 65536};
        if (an2_post_recv(ep, vc, &f, 1, 0) != 0)
            FAIL("repost");
        return r;
    }
}

static void post_buffers(an2_ep *ep, uint16_t vc)
{
    for (int i = 0; i < 4; i++) {
        struct an2_frag f = {RX_OFF, 65536};
        if (an2_post_recv(ep, vc, &f, 1, 0) != 0)
            FAIL("post");
    }
}

static void send_pdu(an2_ep *ep, uint16_t vc, uint32_t seed, uint8_t uu)
{
    uint8_t *b = an2_buf_base(ep);
    an2_fill_pattern(b, PDU_BYTES, seed);
    struct an2_frag f = {0, PDU_BYTES};
    if (an2_send(ep, vc, &f, 1, uu, seed) != 0)
        FAIL("send");
}

static void check_pdu(an2_ep *ep, const struct an2_report *r, uint32_t seed)
{
    const uint8_t *b = an2_buf_base(ep);
    if (r->length != PDU_BYTES || !an2_check_pattern(b + RX_OFF, PDU_BYTES, seed))
        FAIL("PDU %u: %u bytes, or wrong content", seed, r->length);
}

/* The parent ping-pongs until the file stop exists (looked for once a second), printing its
 * round trips each second; after seconds without it, it fails. */
static int pair(const char *name_text, double seconds, const char *stop)
{
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    uint16_t vc = p.vc.vc;
    post_buffers(p.ep, vc);
    an2_pair_signal(&p, 'r');
    an2_pair_await(&p);
    if (!p.parent) { /* echo every PDU, checked, until the stop mark */
        for (uint32_t i = 0;; i++) {
            struct an2_report r = recv_one(p.ep, vc);
            if (r.uu == STOP_UU)
                break;
            check_pdu(p.ep, &r, i);
            send_pdu(p.ep, vc, i, 2);
        }
        an2_close(p.ep);
        return 0;
    }
    int rc = an2_register_name(p.ep, (uint32_t)strtoul(name_text, NULL, 0));
    if (rc != 0)
        FAIL("register %s: %s (%s)", name_text, an2_strerror(rc), an2_error_detail());
    printf("ready %u\n", an2_endpoint_id(p.ep));
    fflush(stdout);
    double start = now_s(), next = start + 1;
    uint32_t n = 0;
    for (bool stopped = false; !stopped; n++) {
        send_pdu(p.ep, vc, n, 1);
        struct an2_report r = recv_one(p.ep, vc);
        check_pdu(p.ep, &r, n);
        if (now_s() >= next) {
            printf("second %.0f round_trips %u\n", next - start, n + 1);
            fflush(stdout);
            next += 1;
            stopped = access(stop, F_OK) == 0;
            if (!stopped && now_s() - start > seconds)
                FAIL("not told to stop (%s) within %.0f s", stop, seconds);
        }
    }
    send_pdu(p.ep, vc, n, STOP_UU);
    int st = an2_pair_wait_child(&p);
    an2_close(p.ep);
    printf("done round_trips %u\n", n);
    return st;
}

static an2_ep *open_or_die(const struct an2_open_params *params)
{
    an2_ep *ep;
    int rc = an2_open(params, &ep);
    if (rc != 0)
        FAIL("an2_open: %s (%s)", an2_strerror(rc), an2_error_detail());
    return ep;
}

static int probe(uint32_t peer, uint32_t name)
{
    an2_ep *ep = open_or_die(NULL);
    uint32_t id;
    int rc = an2_lookup_name(ep, name, &id);
    if (rc != -ESRCH)
        FAIL("lookup of another uid's name 0x%x gave %d (endpoint %u), not -ESRCH", name, rc,
             id);
    rc = an2_register_name(ep, name);
    if (rc != 0)
        FAIL("registering 0x%x (another uid's too): %s (%s)", name, an2_strerror(rc),
             an2_error_detail());
    struct an2_vc_info vi;
    rc = an2_vc_open(ep, peer, 3000, &vi);
    if (rc != -EACCES)
        FAIL("VC to another uid's endpoint %u gave %d (%s), not -EACCES", peer, rc,
             an2_strerror(rc));
    printf("refused: %s: %s\n", an2_strerror(rc), an2_error_detail());
    an2_close(ep);
    return 0;
}

static uint32_t read_peer(const char *path)
{
    for (double t0 = now_s(); now_s() - t0 < AN2_TEST_WAIT_MS / 1000.0; usleep(50000)) {
        FILE *f = fopen(path, "r");
        unsigned id = 0;
        if (f) {
            int got = fscanf(f, "%u", &id);
            fclose(f);
            if (got == 1 && id)
                return id;
        }
    }
    FAIL("no peer id in %s within %d ms", path, AN2_TEST_WAIT_MS);
}

static int meet(const char *peer_file, bool expect_ok)
{
    an2_ep *ep = open_or_die(NULL);
    uint32_t me = an2_endpoint_id(ep);
    printf("endpoint %u\n", me);
    fflush(stdout);
    uint32_t peer = read_peer(peer_file);
    struct an2_vc_info vi;
    int rc = an2_vc_open(ep, peer, AN2_TEST_WAIT_MS, &vi);
    if (!expect_ok) {
        if (rc != -EACCES)
            FAIL("VC to %u gave %d (%s), not -EACCES", peer, rc, an2_strerror(rc));
        printf("refused: %s: %s\n", an2_strerror(rc), an2_error_detail());
        fflush(stdout);
        /* open until the peer has been refused too (else it would see no endpoint at all):
         * the test makes PEERFILE.done then */
        char done[4096];
        snprintf(done, sizeof done, "%s.done", peer_file);
        for (double t0 = now_s(); access(done, F_OK) != 0; usleep(50000))
            if (now_s() - t0 > AN2_TEST_WAIT_MS / 1000.0)
                FAIL("no %s within %d ms", done, AN2_TEST_WAIT_MS);
        an2_close(ep);
        return 0;
    }
    if (rc != 0)
        FAIL("VC to %u: %s (%s)", peer, an2_strerror(rc), an2_error_detail());
    post_buffers(ep, vi.vc);
    /* the lower id speaks first; each side checks what it gets */
    if (me < peer)
        send_pdu(ep, vi.vc, 7, 1);
    struct an2_report r = recv_one(ep, vi.vc);
    check_pdu(ep, &r, 7);
    if (me > peer)
        send_pdu(ep, vi.vc, 7, 1);
    printf("VC %s to endpoint %u: a PDU each way\n", vi.addr, peer);
    /* the answer's sender closes once its TX report says the PDU is out */
    while (me > peer) {
        if (an2_wait(ep, &r, 1, AN2_TEST_WAIT_MS) != 1 || r.status != AN2_STATUS_OK)
            FAIL("no TX report for the answer");
        if (r.kind == AN2_REPORT_TX)
            break;
    }
    an2_close(ep);
    return 0;
}

static void expect_refusal(int rc, int want, const char *limit, const char *what)
{
    if (rc != want || !strstr(an2_error_detail(), limit))
        FAIL("%s gave %d (%s: %s), not %d naming %s", what, rc, an2_strerror(rc),
             an2_error_detail(), want, limit);
    printf("%s refused: %s: %s\n", what, an2_strerror(rc), an2_error_detail());
}

static int limits(const char *socket_path)
{
    struct an2_open_params small = {.buf_size = 1u << 20};
    an2_ep *e[3], *extra = NULL;
    for (int i = 0; i < 3; i++)
        e[i] = open_or_die(&small);
    expect_refusal(an2_open(&small, &extra), -EDQUOT, "--max-user-endpoints", "a 4th endpoint");
    an2_close(e[2]);
    /* an2d sees the close asynchronously: until it has, the endpoint limit answers */
    struct an2_open_params big = {.buf_size = 15u << 20};
    int rc = 0;
    for (double t0 = now_s(); now_s() - t0 < AN2_TEST_WAIT_MS / 1000.0; usleep(100000)) {
        rc = an2_open(&big, &extra);
        if (rc != -EDQUOT || !strstr(an2_error_detail(), "--max-user-endpoints"))
            break;
    }
    expect_refusal(rc, -EDQUOT, "--max-user-mem", "15 MiB more");
    e[2] = open_or_die(&small);
    struct an2_vc_info vi;
    rc = an2_vc_open_start(e[0], an2_endpoint_id(e[1]));
    if (rc == 0)
        rc = an2_vc_open(e[1], an2_endpoint_id(e[0]), AN2_TEST_WAIT_MS, &vi);
    if (rc != 0)
        FAIL("a first VC: %s (%s)", an2_strerror(rc), an2_error_detail());
    expect_refusal(an2_vc_open(e[2], an2_endpoint_id(e[0]), 2000, &vi), -EDQUOT,
                   "--max-user-vcs", "a 2nd VC");
    /* connections: 3 endpoints and 5 bare connections fill 8 */
    int bare[5];
    for (int i = 0; i < 5; i++) {
        bare[i] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", socket_path);
        if (bare[i] < 0 || connect(bare[i], (struct sockaddr *)&sa, sizeof sa) != 0)
            FAIL("connect %s: %s", socket_path, strerror(errno));
    }
    /* (an2d accepts in order: these 5 are its clients before the next connection is) */
    expect_refusal(an2_open(&small, &extra), -EUSERS, "--max-user-clients", "a 9th connection");
    for (int i = 0; i < 5; i++)
        close(bare[i]);
    for (int i = 0; i < 3; i++)
        an2_close(e[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "pair") == 0)
        return pair(argv[2], atof(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "probe") == 0)
        return probe((uint32_t)strtoul(argv[2], NULL, 0), (uint32_t)strtoul(argv[3], NULL, 0));
    if (argc == 4 && strcmp(argv[1], "meet") == 0)
        return meet(argv[2], strcmp(argv[3], "ok") == 0);
    if (argc == 3 && strcmp(argv[1], "limits") == 0)
        return limits(argv[2]);
    FAIL("usage: t_multiuser pair NAME SECONDS STOPFILE | probe PEER NAME | meet PEERFILE ok|refused | "
         "limits SOCKET");
}
