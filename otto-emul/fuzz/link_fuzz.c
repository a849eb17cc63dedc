/* link_fuzz.c — libFuzzer target for the link protocol's reader: arbitrary bytes arrive on a
 * switch port's link (after a valid HELLO when the first input byte is odd, so that cells,
 * credits, keepalives and signalling get parsed), or, when its bit 1 is set, at the handshake
 * that comes before HELLO (after a valid nonce when bit 2 is set too, so that proofs get
 * checked). The link's bytes are written through the carrier interface: the stream carrier,
 * the shared-memory one when bit 3 is set, the network carrier (libfabric, in a network
 * namespace of the fuzzer's own) when bit 4 is. With bits 4 and 5 the bytes are instead the
 * network carrier's set-up: they come on its TCP connection where the other end's hello
 * belongs (to the end that listens when bit 6 is set). Link, handshake and carrier must end
 * cleanly or go on; never crash, leak, read out of bounds or run away. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "an2_carrier.h"
#include "an2_fiber.h"
#include "an2_link.h"
#include "an2_link_auth.h"
#include "an2_switch.h"
#include "an2_switch_port.h"
#include "tests/loopback_net.h"

static unsigned sig_seen;

static void on_sig(void *ctx, struct an2_link *l, const struct an2_sig_msg *m)
{
    (void)ctx;
    sig_seen++;
    /* a SETUP gets a VC on the link, as a switch would give it, so its cells get through */
    if (m->type == AN2_SIG_SETUP && m->vci >= AN2_FIBER_FIRST_VCI)
        an2_link_vc_add(l, m->vci, m->gen);
    if (m->type == AN2_SIG_RELEASE)
        an2_link_vc_del(l, m->vci);
}

static struct an2_auth *auth;
static bool private_net;   /* the network carrier may be fuzzed: we have a network of our own */

/* A key file, made once in a private directory and removed at once: the auth has read it. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char dir[] = "/tmp/link-fuzz.XXXXXX", path[64], err[256];
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/key", dir);
    static const char key[] = "a key for the fuzz target only";
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, key, sizeof key) != (ssize_t)sizeof key || close(fd))
        abort();
    char spec[80];
    snprintf(spec, sizeof spec, "key:%s", path);
    auth = an2_auth_open(spec, err, sizeof err);
    unlink(path);
    rmdir(dir);
    if (!auth)
        abort();
    private_net = loopback_net_private();
    return 0;
}

/* Waits until one of the carriers' fds is readable, if both may sleep; false if none was in
 * QUIET_MS (nothing more is coming: libfabric's bytes arrive when they do, not at our write). */
#define QUIET_MS 20
static bool ofi_wait(struct an2_carrier *a, struct an2_carrier *b)
{
    if (!an2_carrier_arm(a, 0) || !an2_carrier_arm(b, 0))
        return true;
    struct pollfd p[2] = {{.fd = a->fd, .events = POLLIN}, {.fd = b->fd, .events = POLLIN}};
    return poll(p, 2, QUIET_MS) > 0;
}

/* The network carrier's set-up against the bytes: they come where the other end's hello
 * belongs. It must fail, or connect to what the bytes name (in our own network: nothing
 * answers) and fail then, or wait; the wait is bounded here. */
static void fuzz_ofi_hello(const uint8_t *data, size_t size, bool listener)
{
    int mine, theirs;
    if (!loopback_net_tcp_pair(&mine, &theirs))
        return;
    struct an2_carrier *c = an2_carrier_ofi(mine, listener);
    if (c && (size == 0 || send(theirs, data, size, MSG_NOSIGNAL) == (ssize_t)size)) {
        uint8_t buf[64];
        for (int pass = 0; pass < 100; pass++) {
            an2_carrier_event(c);
            if (an2_carrier_read(c, buf, sizeof buf) >= 0 || errno != EAGAIN)
                break;   /* (bytes out of nowhere, the end, or a failure) */
            while (recv(theirs, buf, sizeof buf, MSG_DONTWAIT) > 0) {   /* its hello */
            }
            if (an2_carrier_arm(c, 0)) {
                struct pollfd p = {.fd = c->fd, .events = POLLIN};
                if (poll(&p, 1, QUIET_MS) == 0)
                    break;
            }
        }
    }
    an2_carrier_close(c);
    close(theirs);
}

enum carrier_kind { CARRIER_STREAM, CARRIER_SHM, CARRIER_OFI };

/* Two ends of a link's carrier of that kind. */
static bool carrier_pair(enum carrier_kind kind, struct an2_carrier **feed,
                         struct an2_carrier **link_end)
{
    int sv[2];
    if (kind == CARRIER_OFI) {
        if (!loopback_net_tcp_pair(&sv[0], &sv[1]))
            return false;
        *feed = an2_carrier_ofi(sv[1], true);
        *link_end = an2_carrier_ofi(sv[0], false);
    } else {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
            return false;
        bool shm = kind == CARRIER_SHM;
        *feed = shm ? an2_carrier_shm(sv[1]) : an2_carrier_stream(sv[1]);
        *link_end = shm ? an2_carrier_shm(sv[0]) : an2_carrier_stream(sv[0]);
    }
    if (*feed && *link_end)
        return true;
    an2_carrier_close(*feed);
    an2_carrier_close(*link_end);
    return false;
}

/* The handshake's reader against the bytes (after a valid nonce if asked). */
static void fuzz_handshake(const uint8_t *data, size_t size, bool nonce_first)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        return;
    struct an2_carrier *c = an2_carrier_stream(sv[0]);
    struct an2_handshake *hs = c ? an2_handshake_start(c, auth, false, 1) : NULL;
    if (!hs)
        abort();
    if (nonce_first) {
        struct an2_fiber_auth_nonce n = {.magic = htonl(AN2_FIBER_AUTH_MAGIC),
                                         .version = htons(AN2_FIBER_VERSION),
                                         .method = htons(AN2_AUTH_KEY), .nonce = {1}};
        uint8_t rec[4 + sizeof n] = {AN2_FIBER_AUTH_NONCE, 0, 0, sizeof n};
        memcpy(rec + 4, &n, sizeof n);
        if (write(sv[1], rec, sizeof rec) != (ssize_t)sizeof rec)
            abort();
    }
    size_t off = 0;
    uint64_t now = 2;
    enum an2_handshake_state st = AN2_HANDSHAKE_PENDING;
    while (off < size && st == AN2_HANDSHAKE_PENDING) {
        size_t n = size - off < 2048 ? size - off : 2048;
        ssize_t w = write(sv[1], data + off, n);
        if (w <= 0)
            break;
        off += (size_t)w;
        st = an2_handshake_step(hs, now += 1000);
        /* what the handshake sends back is read away, so the pair never fills */
        uint8_t sink[4096];
        while (recv(sv[1], sink, sizeof sink, MSG_DONTWAIT) > 0) {
        }
    }
    if (st == AN2_HANDSHAKE_DONE) /* a forged proof passed */
        abort();
    an2_handshake_free(hs);
    an2_carrier_close(c);
    close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size && (data[0] & 2)) {
        fuzz_handshake(data + 1, size - 1, data[0] & 4);
        return 0;
    }
    bool ofi = size && (data[0] & 16) && private_net;
    if (ofi && (data[0] & 32)) {
        fuzz_ofi_hello(data + 1, size - 1, data[0] & 64);
        return 0;
    }
    struct an2_carrier *feed, *link_end;
    enum carrier_kind kind = ofi                    ? CARRIER_OFI
                             : size && (data[0] & 8) ? CARRIER_SHM
                                                     : CARRIER_STREAM;
    if (!carrier_pair(kind, &feed, &link_end))
        return 0;
    struct an2_switch_config sc = {.nports = 2, .vc_credit_cells = 8};
    struct an2_switch *sw = an2_switch_create(&sc);
    an2_switch_route_add(sw, 0, 0, 40, 1, 0, 41);
    an2_switch_route_add(sw, 0, 0, 32768, 1, 0, 42);
    struct an2_link_config cfg = {.carrier = link_end, .sw = sw, .port = 0,
                                  .role = AN2_FIBER_ROLE_SWITCH, .switch_id = 1,
                                  .host_addr = 0x100, .window = 8, .on_sig = on_sig};
    struct an2_link *l = an2_link_create(&cfg, 1);
    if (!l) {
        an2_carrier_close(feed);
        an2_switch_destroy(sw);
        return 0;
    }
    an2_link_vc_add(l, 40, 0);
    if (size && (data[0] & 1)) {
        struct an2_fiber_hello h = {.magic = htonl(AN2_FIBER_MAGIC),
                                    .version = htons(AN2_FIBER_VERSION),
                                    .role = htons(AN2_FIBER_ROLE_HOST), .window = htonl(8),
                                    .keepalive_ms = htonl(100), .vci_half = htons(1)};
        uint8_t rec[4 + sizeof h] = {AN2_FIBER_HELLO, 0, 0, sizeof h};
        memcpy(rec + 4, &h, sizeof h);
        if (an2_carrier_write(feed, rec, sizeof rec) != (ssize_t)sizeof rec)
            abort();
    }
    if (size) {
        data++;
        size--;
    }
    size_t off = 0;
    uint64_t now = 2;
    /* over the network carrier the bytes arrive some time after they are written: after the
     * last write the link goes on until nothing more comes (bounded) */
    int passes_after = ofi ? 200 : 0;
    for (;;) {
        if (off < size) {
            size_t n = size - off < 4096 ? size - off : 4096;
            ssize_t w = an2_carrier_write(feed, data + off, n);
            if (w <= 0)
                break;
            off += (size_t)w;
        } else if (passes_after-- <= 0) {
            break;
        }
        if (!an2_link_service(l, now += 1000))
            break;
        an2_switch_poll(sw, now);
        /* what the link sends is read away, so that neither direction fills */
        an2_carrier_event(feed);
        uint8_t sink[4096];
        while (an2_carrier_read(feed, sink, sizeof sink) > 0) {
        }
        if (off == size && ofi && !ofi_wait(feed, link_end))
            break;
    }
    an2_link_service(l, now += 1000);
    an2_link_destroy(l);
    an2_carrier_close(feed);
    an2_switch_destroy(sw);
    return 0;
}
