/* test_carrier_ofi.c — the libfabric carrier (an2_carrier_ofi.c) between two ends of a TCP
 * connection, in a network namespace of its own (nothing else can reach its endpoints, and it
 * goes with the process): bytes in order both ways through many messages, with the senders'
 * queues full at times and each end asleep in poll when it may; the end of the other side; a
 * stranger who learns the listener's address but not its token is refused; a hostile hello
 * (wrong magic, another provider, a name or address out of bounds, two listeners, bytes after
 * it) ends the carrier with an error; no provider at all (FI_PROVIDER naming none) is a clear
 * refusal. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "an2_carrier.h"
#include "check.h"
#include "loopback_net.h"

#define HELLO_BYTES 148   /* an2_carrier_ofi.c's struct ofi_hello */
#define POLL_MS 2000      /* a lost wake-up shows as this many ms without an event, 5 times */

/* Sleeps until a's or b's fd is readable, if both may sleep (false: POLL_MS passed with no
 * event, five times over, while both said they could sleep: a lost wake-up). */
static int quiet_polls;
static bool wait_for_event(struct an2_carrier *a, bool a_room, struct an2_carrier *b, bool b_room)
{
    if (an2_carrier_arm(a, a_room) && (!b || an2_carrier_arm(b, b_room))) {
        struct pollfd p[2] = {{.fd = a->fd, .events = POLLIN}, {.fd = b ? b->fd : -1, .events = POLLIN}};
        if (poll(p, 2, POLL_MS) == 0) {
            fprintf(stderr, "no event in %d ms while both could sleep\n", POLL_MS);
            if (++quiet_polls >= 5)
                return false;
        }
    }
    an2_carrier_event(a);
    if (b)
        an2_carrier_event(b);
    return true;
}

static bool pair(struct an2_carrier **a, struct an2_carrier **b)
{
    int fa, fb;
    if (!loopback_net_tcp_pair(&fa, &fb))
        return false;
    *a = an2_carrier_ofi(fa, false);
    *b = an2_carrier_ofi(fb, true);
    if (*a && *b)
        return true;
    an2_carrier_close(*a);
    an2_carrier_close(*b);
    return false;
}

/* Sends a pseudo-random stream of total bytes from w to r, each end sleeping when it may. */
static void stream(struct an2_carrier *w, struct an2_carrier *r, size_t total)
{
    uint8_t *out = malloc(40000), *in = malloc(40000);
    uint32_t seed = 7, check_seed = 7;
    size_t sent = 0, got = 0;
    int refused = 0;
    bool ok = true;
    quiet_polls = 0;
    while (got < total && ok) {
        size_t want = 1 + (seed >> 7) % 40000;
        if (want > total - sent)
            want = total - sent;
        uint32_t s = seed;
        for (size_t i = 0; i < want; i++)
            out[i] = (uint8_t)((s = s * 1103515245u + 12345u) >> 16);
        ssize_t n = want ? an2_carrier_write(w, out, want) : 0;
        if (n < 0 && errno != EAGAIN)
            ok = false;
        if (want && (n < 0 || (size_t)n < want))
            refused++;
        for (ssize_t i = 0; i < n; i++)
            seed = seed * 1103515245u + 12345u;
        if (n > 0)
            sent += (size_t)n;
        /* read in pieces smaller than the messages, at times, so that messages are split */
        ssize_t m = an2_carrier_read(r, in, (seed >> 9) % 3 ? 40000 : 777);
        if (m < 0 && errno != EAGAIN)
            ok = false;
        for (ssize_t i = 0; i < m && ok; i++) {
            check_seed = check_seed * 1103515245u + 12345u;
            if (in[i] != (uint8_t)(check_seed >> 16))
                ok = false;
        }
        if (m > 0)
            got += (size_t)m;
        if (n <= 0 && m <= 0 && ok)
            ok = wait_for_event(w, sent < total, r, false);
    }
    CHECK(ok && got == total, "every byte in order: %zu of %zu (%s)", got, total, strerror(errno));
    CHECK(refused > 0, "the sender's queue was full at times (%d)", refused);
    free(out);
    free(in);
}

static void both_ways_and_end(void)
{
    struct an2_carrier *a = NULL, *b = NULL;
    if (!pair(&a, &b)) {
        CHECK(false, "a pair: %s", strerror(errno));
        return;
    }
    stream(a, b, 20u << 20);
    stream(b, a, 16u << 20);
    /* the end: b sees it after the bytes it has read */
    uint8_t buf[64] = {1};
    CHECK(an2_carrier_write(a, buf, sizeof buf) == (ssize_t)sizeof buf, "a writes 64 bytes");
    ssize_t n;
    size_t got = 0;
    quiet_polls = 0;
    while (got < sizeof buf && ((n = an2_carrier_read(b, buf, sizeof buf)) > 0 || errno == EAGAIN))
        if (n > 0)
            got += (size_t)n;
        else if (!wait_for_event(b, false, NULL, false))
            break;
    CHECK(got == sizeof buf, "b reads them");
    an2_carrier_close(a);
    quiet_polls = 0;
    while ((n = an2_carrier_read(b, buf, sizeof buf)) < 0 && errno == EAGAIN)
        if (!wait_for_event(b, false, NULL, false))
            break;
    CHECK(n == 0, "then b sees the end: %zd (%s)", n, strerror(errno));
    CHECK(an2_carrier_write(b, buf, 1) < 0 && errno == EPIPE, "writing past the end: EPIPE");
    an2_carrier_close(b);
}

/* Reads exactly len bytes from a non-blocking socket, waiting in poll (bounded). */
static bool read_exact(int fd, void *buf, size_t len)
{
    size_t got = 0;
    for (int i = 0; i < 1000 && got < len; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, POLL_MS) != 1)
            return false;
        ssize_t n = recv(fd, (uint8_t *)buf + got, len - got, 0);
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return got == len;
}

/* Drives c until it fails or its read finds bytes; the errno of its failure, or 0. */
static int until_failure(struct an2_carrier *c, struct an2_carrier *also)
{
    uint8_t buf[16];
    quiet_polls = 0;
    for (;;) {
        ssize_t n = an2_carrier_read(c, buf, sizeof buf);
        if (n >= 0)
            return 0;
        if (errno != EAGAIN)
            return errno;
        if (!wait_for_event(c, false, also, false))
            return ETIMEDOUT;
    }
}

/* The test stands between the two ends' TCP connections and hands each hello on, so it knows
 * the listener's address and token; a stranger, given that address with another token, is
 * refused, and the two ends then connect and talk as ever. */
static void stranger_is_refused(void)
{
    int fa, ta, fb, tb, fs, ts;
    CHECK(loopback_net_tcp_pair(&fa, &ta) && loopback_net_tcp_pair(&fb, &tb) &&
              loopback_net_tcp_pair(&fs, &ts), "connections");
    struct an2_carrier *a = an2_carrier_ofi(fa, false), *b = an2_carrier_ofi(fb, true),
                       *s = an2_carrier_ofi(fs, false);
    CHECK(a && b && s, "three carriers: %s", strerror(errno));
    if (!a || !b || !s)
        return;
    uint8_t hello_a[HELLO_BYTES], hello_b[HELLO_BYTES], hello_s[HELLO_BYTES];
    CHECK(read_exact(ta, hello_a, sizeof hello_a) && read_exact(tb, hello_b, sizeof hello_b) &&
              read_exact(ts, hello_s, sizeof hello_s), "the hellos");
    uint8_t forged[HELLO_BYTES];
    memcpy(forged, hello_b, sizeof forged);
    forged[HELLO_BYTES - 1] ^= 1;   /* the token's last byte */
    CHECK(send(ts, forged, sizeof forged, 0) == HELLO_BYTES, "the stranger gets b's address");
    int e = until_failure(s, b);
    CHECK(e == ECONNREFUSED, "the stranger is refused: %s", strerror(e));
    CHECK(send(tb, hello_a, sizeof hello_a, 0) == HELLO_BYTES &&
              send(ta, hello_b, sizeof hello_b, 0) == HELLO_BYTES, "hellos handed on");
    uint8_t good[3000], in[8192];
    memset(good, 'G', sizeof good);
    ssize_t n;
    quiet_polls = 0;
    while ((n = an2_carrier_write(a, good, sizeof good)) < 0 && errno == EAGAIN)
        if (!wait_for_event(a, true, b, false))
            break;
    CHECK(n == (ssize_t)sizeof good, "a sends, once connected: %s", strerror(errno));
    size_t got = 0;
    bool only_good = true;
    quiet_polls = 0;
    while (got < sizeof good) {
        n = an2_carrier_read(b, in, sizeof in);
        if (n < 0 && errno != EAGAIN)
            break;
        for (ssize_t i = 0; i < n; i++)
            only_good &= in[i] == 'G';
        if (n > 0)
            got += (size_t)n;
        else if (!wait_for_event(b, false, a, false))
            break;
    }
    CHECK(got == sizeof good && only_good, "b read a's %zu bytes (%zu)", sizeof good, got);
    an2_carrier_close(s);
    an2_carrier_close(a);
    an2_carrier_close(b);
    close(ta);
    close(tb);
    close(ts);
}

/* One end, the connector (or the listener), whose other side is the test: it gets hello
 * (and then extra) from the test. The errno the end fails with, 0, or -1 if the test could
 * not set it up. */
static int hostile(bool listener, const uint8_t *hello, const char *extra, size_t extra_len)
{
    int fa, ta;
    if (!loopback_net_tcp_pair(&fa, &ta))
        return -1;
    struct an2_carrier *a = an2_carrier_ofi(fa, listener);
    uint8_t mine[HELLO_BYTES];
    int e = 0;
    if (!a || !read_exact(ta, mine, sizeof mine) ||
        send(ta, hello, HELLO_BYTES, 0) != HELLO_BYTES ||
        (extra && send(ta, extra, extra_len, 0) != (ssize_t)extra_len))
        e = -1;
    if (!e)
        e = until_failure(a, NULL);
    an2_carrier_close(a);
    close(ta);
    return e;
}

static void hostile_hellos(void)
{
    int fa, ta, fb, tb;
    CHECK(loopback_net_tcp_pair(&fa, &ta) && loopback_net_tcp_pair(&fb, &tb), "connections");
    struct an2_carrier *l = an2_carrier_ofi(fa, true), *c = an2_carrier_ofi(fb, false);
    uint8_t listener[HELLO_BYTES], connector[HELLO_BYTES], bad[HELLO_BYTES];
    CHECK(l && c && read_exact(ta, listener, sizeof listener) &&
              read_exact(tb, connector, sizeof connector), "hellos to start from");
    an2_carrier_close(l);
    an2_carrier_close(c);
    close(ta);
    close(tb);
    memcpy(bad, listener, sizeof bad);
    bad[0] ^= 0xff;
    int e = hostile(false, bad, NULL, 0);
    CHECK(e == EPROTO, "a hello with the wrong magic: EPROTO (%s)", strerror(e));
    memcpy(bad, listener, sizeof bad);
    memcpy(bad + 8, "verbs", 6);
    e = hostile(false, bad, NULL, 0);
    CHECK(e == EPROTONOSUPPORT, "another provider's hello: EPROTONOSUPPORT (%s)", strerror(e));
    memcpy(bad, listener, sizeof bad);
    memset(bad + 8, 'x', 32);   /* a provider name without its NUL */
    e = hostile(false, bad, NULL, 0);
    CHECK(e == EPROTO, "a provider name without its end: EPROTO (%s)", strerror(e));
    memcpy(bad, listener, sizeof bad);
    memset(bad + 48, 0xff, 4);   /* an address longer than there is room for */
    e = hostile(false, bad, NULL, 0);
    CHECK(e == EPROTO, "too long an address: EPROTO (%s)", strerror(e));
    e = hostile(true, listener, NULL, 0);
    CHECK(e == EPROTO, "two listeners: EPROTO (%s)", strerror(e));
    e = hostile(true, connector, "x", 1);
    CHECK(e == EPROTO, "bytes after the hello: EPROTO (%s)", strerror(e));
    /* the listener's end of the TCP connection before anyone connected ends the carrier */
    CHECK(loopback_net_tcp_pair(&fa, &ta), "a connection");
    l = an2_carrier_ofi(fa, true);
    CHECK(l && read_exact(ta, listener, sizeof listener), "a listener");
    close(ta);
    uint8_t buf[8];
    quiet_polls = 0;
    ssize_t n;
    while ((n = an2_carrier_read(l, buf, sizeof buf)) < 0 && errno == EAGAIN)
        if (!wait_for_event(l, false, NULL, false))
            break;
    CHECK(n == 0, "the other end gone before it connected: the end (%zd)", n);
    an2_carrier_close(l);
}

/* FI_PROVIDER naming no provider there is: the carrier refuses, clearly (in a child: libfabric
 * reads FI_PROVIDER once per process). */
static void no_provider(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("FI_PROVIDER", "no-such-provider", 1);
        int fa, ta;
        if (!loopback_net_tcp_pair(&fa, &ta))
            _exit(2);
        struct an2_carrier *c = an2_carrier_ofi(fa, true);
        _exit(!c && errno == EPROTONOSUPPORT ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "no provider: NULL with EPROTONOSUPPORT (child status %d)", st);
}

int main(void)
{
    if (!loopback_net_private()) {
        printf("test_carrier_ofi: cannot make a network namespace (needs root): skipped\n");
        return 77;
    }
    no_provider();
    both_ways_and_end();
    stranger_is_refused();
    hostile_hellos();
    return check_exit("test_carrier_ofi");
}
