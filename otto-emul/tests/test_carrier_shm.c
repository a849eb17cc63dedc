/* test_carrier_shm.c — the shared-memory carrier (an2_carrier_shm.c) between two ends of a
 * socketpair: bytes in order through many wrap-arounds of the rings; a full ring refuses, then
 * takes again once read; records written in place into the window, one run of memory across
 * the ring's end, arrive in order, and a commit past the window is refused; no wake-up on the
 * socket while the reader is awake, one once it has armed, for bytes and for room (as much
 * as it waits for); the end seen after the last bytes; the ring an end hands over
 * cannot be mapped for writing by the other; and a hostile other end (an unsealed memfd, a
 * ring of the wrong size, a counter past the ring, two rings) ends the carrier with EPROTO. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "an2_carrier.h"
#include "an2_shm_ring.h"
#include "check.h"

static bool readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static bool pair(struct an2_carrier **a, struct an2_carrier **b)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
        return false;
    *a = an2_carrier_shm(sv[0]);
    *b = an2_carrier_shm(sv[1]);
    if (!*a || !*b)
        return false;
    an2_carrier_event(*a); /* each takes the other's ring (and the wake-up that came with it) */
    an2_carrier_event(*b);
    return true;
}

/* Reads up to cap bytes from b and checks them against the pseudo-random sequence the writer
 * made (its state in *check_seed); *got counts them. False on an error or a wrong byte. */
static bool take_in_order(struct an2_carrier *b, uint8_t *in, size_t cap, uint32_t *check_seed,
                          size_t *got)
{
    ssize_t r = an2_carrier_read(b, in, cap);
    if (r < 0)
        return errno == EAGAIN;
    for (ssize_t i = 0; i < r; i++) {
        *check_seed = *check_seed * 1103515245u + 12345u;
        if (in[i] != (uint8_t)(*check_seed >> 16))
            return false;
    }
    *got += (size_t)r;
    return true;
}

static void bytes_in_order(void)
{
    struct an2_carrier *a, *b;
    CHECK(pair(&a, &b), "a pair: %s", strerror(errno));
    size_t total = 5u * AN2_SHM_RING_DATA + 12345, sent = 0, got = 0;
    uint8_t *out = malloc(8192), *in = malloc(8192);
    uint32_t seed = 1, check_seed = 1;
    bool ok = true;
    int full = 0;
    while (got < total && ok) {
        /* write a pseudo-random stretch, as much as it takes */
        size_t want = 1 + (seed >> 7) % 8000;
        if (want > total - sent)
            want = total - sent;
        uint32_t s = seed;
        for (size_t i = 0; i < want; i++)
            out[i] = (uint8_t)((s = s * 1103515245u + 12345u) >> 16);
        ssize_t n = want ? an2_carrier_write(a, out, want) : 0;
        if ((n < 0 && errno == EAGAIN) || (n >= 0 && (size_t)n < want))
            full++; /* it took less than all: the ring was full */
        else if (n < 0)
            ok = false;
        for (ssize_t i = 0; i < n; i++)
            seed = seed * 1103515245u + 12345u;
        if (n > 0)
            sent += (size_t)n;
        /* read less than is written, so that the ring fills at times */
        if (ok)
            ok = take_in_order(b, in, (seed >> 9) % 4 ? 500 : 8192, &check_seed, &got);
    }
    CHECK(ok && got == total, "every byte in order: %zu of %zu", got, total);
    CHECK(full > 0, "the ring filled at times (%d)", full);
    CHECK(!readable(a->fd) && !readable(b->fd), "no wake-ups while both ends were awake");
    free(out);
    free(in);
    an2_carrier_close(a);
    an2_carrier_close(b);
}

static void wake_ups_and_end(void)
{
    struct an2_carrier *a, *b;
    CHECK(pair(&a, &b), "a pair");
    uint8_t buf[4096] = {7};
    CHECK(an2_carrier_arm(b, 0), "nothing waits: b may sleep");
    CHECK(an2_carrier_write(a, buf, 100) == 100, "a writes");
    CHECK(readable(b->fd), "b, asleep, is woken");
    CHECK(!an2_carrier_arm(b, 0), "bytes wait: b must not sleep");
    an2_carrier_event(b);
    CHECK(!readable(b->fd), "the wake-up is taken");
    CHECK(an2_carrier_read(b, buf, sizeof buf) == 100, "b reads the 100 bytes");
    CHECK(an2_carrier_write(a, buf, 10) == 10 && !readable(b->fd), "awake: no wake-up");
    CHECK(an2_carrier_read(b, buf, sizeof buf) == 10, "b reads");
    /* an end that arms, then writes while it looks once more before sleeping (a credit it
     * owed), still gets its wake-up */
    CHECK(an2_carrier_arm(b, 0), "b may sleep again");
    CHECK(an2_carrier_write(b, buf, 10) == 10, "b, armed, writes");
    CHECK(an2_carrier_write(a, buf, 10) == 10 && readable(b->fd), "b, asleep, is woken");
    an2_carrier_event(b);
    CHECK(!readable(b->fd), "the wake-up is taken");
    CHECK(an2_carrier_read(b, buf, sizeof buf) == 10, "b reads");
    CHECK(an2_carrier_read(a, buf, sizeof buf) == 10, "a reads");
    /* a fills the ring, then sleeps for room */
    size_t filled = 0;
    ssize_t n;
    while ((n = an2_carrier_write(a, buf, sizeof buf)) > 0)
        filled += (size_t)n;
    CHECK(n < 0 && errno == EAGAIN && filled == AN2_SHM_RING_DATA, "full at %zu", filled);
    CHECK(an2_carrier_arm(a, 1), "no room: a may sleep");
    CHECK(!readable(a->fd), "a not woken yet");
    CHECK(an2_carrier_read(b, buf, 1000) == 1000, "b reads some");
    CHECK(readable(a->fd), "a is woken for room");
    CHECK(!an2_carrier_arm(a, 1), "room: a must not sleep");
    CHECK(an2_carrier_write(a, buf, sizeof buf) == 1000, "a writes into the room");
    /* the end comes after the last bytes */
    an2_carrier_close(a);
    an2_carrier_event(b);
    size_t rest = 0;
    while ((n = an2_carrier_read(b, buf, sizeof buf)) > 0)
        rest += (size_t)n;
    CHECK(n == 0 && rest == AN2_SHM_RING_DATA, "then the end: %zd after %zu bytes", n, rest);
    CHECK(an2_carrier_write(b, buf, 1) < 0 && errno == EPIPE, "writing past the end: EPIPE");
    an2_carrier_close(b);
}

/* A ring as a hostile other end might make it. */
static int fake_ring(bool seal, off_t size, uint64_t produced)
{
    int fd = memfd_create("fake", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, size) != 0)
        return -1;
    struct an2_shm_ring *r =
        mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r == MAP_FAILED)
        return -1;
    if ((size_t)size >= sizeof *r) {
        r->magic = AN2_SHM_RING_MAGIC;
        r->version = AN2_SHM_RING_VERSION;
        r->data_bytes = AN2_SHM_RING_DATA;
        atomic_store(&r->produced, produced); /* seq_cst; nobody else maps it yet */
    }
    munmap(r, sizeof *r);
    if (seal)
        fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE);
    return fd;
}

static int send_fds(int sock, const int *fds, int n)
{
    char b = 0;
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = &b, .iov_len = 1};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
                        .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int))};
    struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
    memcpy(CMSG_DATA(h), fds, (size_t)n * sizeof(int));
    return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

/* The carrier against what a hostile end sends; true if it refused it with EPROTO. */
static bool refuses(int fd1, int fd2)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
        return false;
    struct an2_carrier *c = an2_carrier_shm(sv[0]);
    int fds[2] = {fd1, fd2};
    if (!c || send_fds(sv[1], fds, fd2 >= 0 ? 2 : 1) != 0)
        return false;
    close(fd1);
    if (fd2 >= 0)
        close(fd2);
    an2_carrier_event(c);
    uint8_t buf[64];
    ssize_t n = an2_carrier_read(c, buf, sizeof buf);
    bool refused = n < 0 && errno == EPROTO;
    an2_carrier_close(c);
    close(sv[1]);
    return refused;
}

static void hostile_other_end(void)
{
    size_t sz = sizeof(struct an2_shm_ring);
    CHECK(refuses(fake_ring(false, (off_t)sz, 0), -1), "an unsealed ring");
    CHECK(refuses(fake_ring(true, 4096, 0), -1), "a ring of the wrong size");
    CHECK(refuses(fake_ring(true, (off_t)sz, AN2_SHM_RING_DATA + 1), -1),
          "more written than the ring holds");
    CHECK(refuses(fake_ring(true, (off_t)sz, 0), fake_ring(true, (off_t)sz, 0)), "two rings");
    CHECK(!refuses(fake_ring(true, (off_t)sz, 0), -1), "a good ring is taken");

    /* what our end hands over: the other end can read it, never map it for writing */
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0, "socketpair");
    struct an2_carrier *c = an2_carrier_shm(sv[0]);
    char b;
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = {.iov_base = &b, .iov_len = 1};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
                        .msg_controllen = sizeof ctl};
    CHECK(c && recvmsg(sv[1], &mh, 0) == 1, "our ring comes over the socket");
    struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
    int fd = -1;
    if (h && h->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(h), sizeof fd);
    CHECK(fd >= 0, "a descriptor");
    void *w = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(w == MAP_FAILED, "the other end cannot map our ring for writing");
    void *r = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(r != MAP_FAILED, "but can read it");
    CHECK(ftruncate(fd, 0) != 0, "nor shrink it");
    if (r != MAP_FAILED)
        munmap(r, sz);
    if (w != MAP_FAILED)
        munmap(w, sz);
    close(fd);
    close(sv[1]);
    an2_carrier_close(c);
}

/* Records written in place: the window is one run of memory wherever the ring's position is
 * (its data is mapped twice in a row), its room the ring less what the other end has yet to
 * read, and what is committed arrives in order, across many wrap-arounds. */
static void window_in_place(void)
{
    struct an2_carrier *a, *b;
    CHECK(pair(&a, &b), "a pair");
    size_t room;
    uint8_t *w = an2_carrier_window(a, &room);
    CHECK(w && room == AN2_SHM_RING_DATA, "an empty ring's window is all of it (%zu)", room);
    CHECK(an2_carrier_commit(a, AN2_SHM_RING_DATA + 1) < 0 && errno == EINVAL,
          "a commit past the window is refused");
    size_t total = 3u * AN2_SHM_RING_DATA + 777, sent = 0, got = 0;
    uint8_t *in = malloc(70000);
    uint32_t seed = 7, check_seed = 7;
    bool ok = w && in, straddled = false, filled = false;
    while (got < total && ok) {
        size_t want = 1 + (seed >> 5) % 65000;
        if (want > total - sent)
            want = total - sent;
        w = an2_carrier_window(a, &room);
        if (!w) {
            ok = false;
            break;
        }
        if (want && room >= want) {
            /* one record's worth, written in place as the link writes its records */
            size_t at = sent % AN2_SHM_RING_DATA;
            straddled |= at + want > AN2_SHM_RING_DATA;
            for (size_t i = 0; i < want; i++)
                w[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
            ok = an2_carrier_commit(a, want) == 0;
            sent += want;
        } else if (want) {
            filled = true;
        }
        if (ok)
            ok = take_in_order(b, in, (seed >> 3) % 8 ? 4000 : 70000, &check_seed, &got);
    }
    CHECK(ok && got == total, "every byte in order: %zu of %zu", got, total);
    CHECK(straddled, "a record was written across the ring's end");
    CHECK(filled, "the window ran short at times");
    /* a full ring: no room; an end that waits for room sleeps until enough of it came */
    while ((w = an2_carrier_window(a, &room)) && room)
        CHECK(an2_carrier_commit(a, room) == 0, "fill");
    CHECK(w && room == 0, "a full ring's window has no room");
    CHECK(an2_carrier_arm(a, 5000), "too little room: a may sleep");
    CHECK(an2_carrier_read(b, in, 1000) == 1000 && readable(a->fd), "b reads: a is woken");
    an2_carrier_event(a);
    CHECK(an2_carrier_arm(a, 5000), "1000 bytes are not the 5000 it waits for: it sleeps on");
    CHECK(an2_carrier_read(b, in, 4000) == 4000, "b reads more");
    CHECK(!an2_carrier_arm(a, 5000), "5000 bytes of room: a must not sleep");
    free(in);
    an2_carrier_close(a);
    an2_carrier_close(b);
}

int main(void)
{
    bytes_in_order();
    window_in_place();
    wake_ups_and_end();
    hostile_other_end();
    return check_exit("test_carrier_shm");
}
