/* an2_carrier_shm.c — the shared-memory carrier (an2_carrier.h): a link between two processes
 * of one machine, its bytes in two rings (an2_shm_ring.h) and its Unix socket left for the
 * rings' hand-over, wake-ups and the link's end. No system call per record while both ends are
 * awake; a byte on the socket only to an end that said it sleeps. */
#include "an2_carrier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an2_shm_ring.h"

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE)
#define KICKS_PER_EVENT 64   /* socket reads per event: bounded, whatever the other end sends */

struct shm_carrier {
    struct an2_carrier c;       /* first: the carrier the link sees */
    struct an2_shm_ring *mine;  /* ours: we write it (mapped before it was sealed) */
    const struct an2_shm_ring *theirs;   /* the other end's, read-only; NULL until it came */
    uint64_t produced, consumed;         /* ours, kept here: never read back from memory the
                                          * other end could map */
    bool mirrored;              /* mine's data is mapped twice in a row (ring_create) */
    bool asleep;                /* mine->sleeping is set */
    bool ended;                 /* the socket said the other end closed */
    int error;                  /* the carrier failed (errno), or 0 */
};

static struct shm_carrier *of(struct an2_carrier *c) { return (struct shm_carrier *)c; }

/* A byte on the socket, if the other end said it sleeps. The seq_cst fence orders our last
 * store to produced or consumed before the load of its flag; the other end fences between
 * setting its flag and looking at our counters (shm_arm), so either it sees our store or we see
 * its flag (the store-buffer pattern): no wake-up is lost. A full socket holds a wake-up
 * already. */
static void kick_if_asleep(struct shm_carrier *s)
{
    atomic_thread_fence(memory_order_seq_cst);
    /* relaxed: the fence above orders it */
    if (s->theirs && !atomic_load_explicit(&s->theirs->sleeping, memory_order_relaxed))
        return;
    char b = 0;
    (void)!send(s->c.fd, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* What the other end has written that we have not read, or -1 if its counter is impossible. */
static int64_t waiting(const struct shm_carrier *s)
{
    if (!s->theirs)
        return 0;
    /* acquire: the bytes it wrote before advancing produced are visible to our copy */
    uint64_t p = atomic_load_explicit(&s->theirs->produced, memory_order_acquire);
    uint64_t n = p - s->consumed;
    return n > AN2_SHM_RING_DATA ? -1 : (int64_t)n;
}

/* The owner looks at its socket, so it is awake and wants no more wake-ups until it arms
 * again. Only here, never on a read or a write: an owner that arms, then moves bytes while it
 * looks once more before sleeping (an an2d that flushes a credit it owed), would otherwise
 * sleep with its flag down and never be woken. Relaxed: a wake-up the other end sends anyway,
 * or skips because it already saw this, changes nothing (the owner arms again before it
 * sleeps). */
static void awake(struct shm_carrier *s)
{
    if (s->asleep) {
        atomic_store_explicit(&s->mine->sleeping, 0, memory_order_relaxed);
        s->asleep = false;
    }
}

/* The room in our ring: bytes we may write without overwriting what the other end has not
 * read. -1 with errno when nothing may be written (EPIPE after the end, the carrier's error). */
static ssize_t room(struct shm_carrier *s)
{
    if (s->error || s->ended) {
        errno = s->error ? s->error : EPIPE;
        return -1;
    }
    /* acquire: its reads of the bytes it has consumed are done before we overwrite them */
    uint64_t read_by_them =
        s->theirs ? atomic_load_explicit(&s->theirs->consumed, memory_order_acquire) : 0;
    uint64_t used = s->produced - read_by_them;
    if (used > AN2_SHM_RING_DATA) {
        s->error = EPROTO;   /* it says it has read bytes we never wrote */
        errno = EPROTO;
        return -1;
    }
    return (ssize_t)(AN2_SHM_RING_DATA - used);
}

/* n more bytes of our ring are the other end's to read. */
static void publish(struct shm_carrier *s, size_t n)
{
    s->produced += n;
    /* release: the bytes are in the ring before the other end sees the new count */
    atomic_store_explicit(&s->mine->produced, s->produced, memory_order_release);
    kick_if_asleep(s);
}

static ssize_t shm_write(struct an2_carrier *c, const void *buf, size_t len)
{
    struct shm_carrier *s = of(c);
    ssize_t free_bytes = room(s);
    if (free_bytes <= 0) {
        if (free_bytes == 0)
            errno = EAGAIN;
        return -1;
    }
    size_t n = len < (size_t)free_bytes ? len : (size_t)free_bytes;
    size_t at = (size_t)(s->produced & (AN2_SHM_RING_DATA - 1));
    size_t first = n < AN2_SHM_RING_DATA - at ? n : AN2_SHM_RING_DATA - at;
    memcpy(s->mine->data + at, buf, first);
    memcpy(s->mine->data, (const uint8_t *)buf + first, n - first);
    publish(s, n);
    return (ssize_t)n;
}

/* With the data mapped twice in a row, the ring from our position on is one run of memory. */
static uint8_t *shm_window(struct an2_carrier *c, size_t *room_out)
{
    struct shm_carrier *s = of(c);
    if (!s->mirrored)
        return NULL;
    ssize_t free_bytes = room(s);
    *room_out = free_bytes > 0 ? (size_t)free_bytes : 0;
    return s->mine->data + (s->produced & (AN2_SHM_RING_DATA - 1));
}

static int shm_commit(struct an2_carrier *c, size_t n)
{
    struct shm_carrier *s = of(c);
    ssize_t free_bytes = room(s);
    if (free_bytes < 0)
        return -1;
    if (n > (size_t)free_bytes) {
        errno = EINVAL;   /* more than the window held */
        return -1;
    }
    publish(s, n);
    return 0;
}

static ssize_t shm_read(struct an2_carrier *c, void *buf, size_t cap)
{
    struct shm_carrier *s = of(c);
    if (s->error) {
        errno = s->error;
        return -1;
    }
    int64_t avail = waiting(s);
    if (avail < 0) {
        s->error = EPROTO;   /* it says it wrote more than its ring holds */
        errno = EPROTO;
        return -1;
    }
    if (!avail) {
        if (s->ended)
            return 0;
        errno = EAGAIN;
        return -1;
    }
    size_t n = (size_t)avail < cap ? (size_t)avail : cap;
    size_t at = (size_t)(s->consumed & (AN2_SHM_RING_DATA - 1));
    size_t first = n < AN2_SHM_RING_DATA - at ? n : AN2_SHM_RING_DATA - at;
    memcpy(buf, s->theirs->data + at, first);
    memcpy((uint8_t *)buf + first, s->theirs->data, n - first);
    s->consumed += n;
    /* release: our copy is done before the other end may overwrite those bytes */
    atomic_store_explicit(&s->mine->consumed, s->consumed, memory_order_release);
    kick_if_asleep(s);
    return (ssize_t)n;
}

/* The other end's ring, from a descriptor that came over the socket: a sealed memfd of the
 * ring's size that no one can grow, shrink or map for writing; mapped read-only. */
static int attach(struct shm_carrier *s, int fd)
{
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    if (s->theirs || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size != (off_t)sizeof(struct an2_shm_ring) || seals < 0 ||
        (seals & SEALS) != SEALS)
        return EPROTO;
    /* populated: every page mapped now (the owner allocated them), not one fault per page
     * the first time the link's bytes pass through it */
    void *m = mmap(NULL, sizeof(struct an2_shm_ring), PROT_READ, MAP_SHARED | MAP_POPULATE,
                   fd, 0);
    if (m == MAP_FAILED)
        return errno;
    const struct an2_shm_ring *r = m;
    if (r->magic != AN2_SHM_RING_MAGIC || r->version != AN2_SHM_RING_VERSION ||
        r->data_bytes != AN2_SHM_RING_DATA) {
        munmap(m, sizeof(struct an2_shm_ring));
        return EPROTO;
    }
    s->theirs = r;
    return 0;
}

/* The socket is readable (or a deadline came): wake-ups are taken, the other end's ring
 * attached when it comes, its end noted. Bounded. */
static void shm_event(struct an2_carrier *c)
{
    struct shm_carrier *s = of(c);
    awake(s);
    for (int i = 0; i < KICKS_PER_EVENT && !s->error && !s->ended; i++) {
        char buf[64];
        union {
            struct cmsghdr h;
            char space[CMSG_SPACE(4 * sizeof(int))];
        } ctl;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
                            .msg_controllen = sizeof ctl};
        ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            /* a reset is an end too: the other end closed with our wake-ups unread */
            if (errno == ECONNRESET)
                s->ended = true;
            else if (errno != EAGAIN && errno != EWOULDBLOCK)
                s->error = errno;
            return;
        }
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h)) {
            if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
                continue;
            size_t nfd = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t k = 0; k < nfd; k++) {
                int fd;
                memcpy(&fd, CMSG_DATA(h) + k * sizeof(int), sizeof fd);
                int rc = attach(s, fd);   /* a second ring, or a bad one, ends the link */
                if (rc && !s->error)
                    s->error = rc;
                close(fd);
            }
        }
        if (mh.msg_flags & MSG_CTRUNC)
            s->error = EPROTO;
        if (n == 0)
            s->ended = true;
    }
}

static bool shm_arm(struct an2_carrier *c, size_t want_room)
{
    struct shm_carrier *s = of(c);
    if (!s->asleep) {
        /* relaxed, then the fence: the store is ordered before our look at its counters, as
         * its counter stores are before its look at our flag (kick_if_asleep) */
        atomic_store_explicit(&s->mine->sleeping, 1, memory_order_relaxed);
        s->asleep = true;
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (s->error || s->ended || waiting(s) != 0)
        return false;
    if (!want_room || !s->theirs)
        return true;
    /* relaxed: the fence above orders it; room came for what waits to be sent */
    uint64_t read_by_them = atomic_load_explicit(&s->theirs->consumed, memory_order_relaxed);
    uint64_t used = s->produced - read_by_them;
    return used > AN2_SHM_RING_DATA || AN2_SHM_RING_DATA - used < want_room;
}

/* The length of our ring's mapping. */
static size_t mine_length(bool mirrored)
{
    return sizeof(struct an2_shm_ring) + (mirrored ? AN2_SHM_RING_DATA : 0);
}

static void shm_close(struct an2_carrier *c)
{
    struct shm_carrier *s = of(c);
    close(c->fd);
    munmap(s->mine, mine_length(s->mirrored));
    if (s->theirs)
        munmap((void *)s->theirs, sizeof *s->theirs);
    free(s);
}

static const struct an2_carrier_ops shm_ops = {
    .write = shm_write, .read = shm_read, .close = shm_close, .event = shm_event,
    .arm = shm_arm, .window = shm_window, .commit = shm_commit};

/* Our ring mapped for writing, its data a second time right after the first (where the page
 * size is the header's): *mirrored says which. Pages allocated and mapped at once. */
static void *map_mine(int fd, bool *mirrored)
{
    const int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_POPULATE;
    *mirrored = sysconf(_SC_PAGESIZE) == AN2_SHM_RING_HEADER;
    if (!*mirrored)
        return mmap(NULL, mine_length(false), prot, flags, fd, 0);
    /* an address range of both lengths first, then the two mappings into it */
    uint8_t *m = mmap(NULL, mine_length(true), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return m;
    if (mmap(m, mine_length(false), prot, flags | MAP_FIXED, fd, 0) == MAP_FAILED ||
        mmap(m + mine_length(false), AN2_SHM_RING_DATA, prot, flags | MAP_FIXED, fd,
             AN2_SHM_RING_HEADER) == MAP_FAILED) {
        int e = errno;
        munmap(m, mine_length(true));
        errno = e;
        return MAP_FAILED;
    }
    return m;
}

/* Our ring: a memfd mapped for writing, then sealed so that no one maps it for writing again.
 * Its pages are allocated and mapped at once (MAP_POPULATE): otherwise the first megabyte
 * through a link costs each end a page fault per 4 KiB (some 4 us each on the 2-core
 * machines: a fresh link's first PVM messages of 64 KiB took twice their time). */
static struct an2_shm_ring *ring_create(int *fd_out, bool *mirrored)
{
    int fd = memfd_create("an2-link", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return NULL;
    void *m = MAP_FAILED;
    if (ftruncate(fd, sizeof(struct an2_shm_ring)) == 0)
        m = map_mine(fd, mirrored);
    if (m == MAP_FAILED || fcntl(fd, F_ADD_SEALS, SEALS) != 0) {
        int e = errno;
        if (m != MAP_FAILED)
            munmap(m, mine_length(*mirrored));
        close(fd);
        errno = e;
        return NULL;
    }
    struct an2_shm_ring *r = m;
    r->magic = AN2_SHM_RING_MAGIC;
    r->version = AN2_SHM_RING_VERSION;
    r->data_bytes = AN2_SHM_RING_DATA;
    *fd_out = fd;
    return r;
}

/* Sends our ring's descriptor, with one byte, over the fresh socket. */
static int ring_send(int sock, int fd)
{
    char b = 0;
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = &b, .iov_len = 1};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
                        .msg_controllen = sizeof ctl};
    struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(h), &fd, sizeof fd);
    ssize_t n;
    do
        n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    return n == 1 ? 0 : -1;
}

struct an2_carrier *an2_carrier_shm(int fd)
{
    struct shm_carrier *s = calloc(1, sizeof *s);
    int ring_fd = -1;
    if (s)
        s->mine = ring_create(&ring_fd, &s->mirrored);
    if (!s || !s->mine || ring_send(fd, ring_fd) != 0) {
        int e = s ? errno : ENOMEM;
        if (s && s->mine)
            munmap(s->mine, mine_length(s->mirrored));
        if (ring_fd >= 0)
            close(ring_fd);
        free(s);
        close(fd);
        errno = e;
        return NULL;
    }
    close(ring_fd); /* the other end holds it now; our mapping stays */
    s->c.ops = &shm_ops;
    s->c.fd = fd;
    s->c.polled = true;
    s->c.write_events = EPOLLIN;
    strcpy(s->c.peer, "a process of this machine (shared memory)");
    return &s->c;
}
