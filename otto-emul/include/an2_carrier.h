/* an2_carrier.h — what carries a link's records (an2_fiber.h) between its two ends: an ordered,
 * reliable flow of bytes behind a few calls, so that the link protocol and the handshake before
 * it (an2_link.c, an2_handshake.c) are one piece of code whatever carries them. The carrier
 * knows nothing of records; every byte it delivers is untrusted input to the link's reader.
 *
 * Carriers:
 *   stream   a connected stream socket (TCP between hosts, a Unix socket on one machine):
 *            an2_carrier_stream().
 *   shm      two processes of one machine: a ring of shared memory per direction, handed over
 *            on a Unix socket that is left for wake-ups and the end (an2_carrier_shm.c):
 *            an2_carrier_shm().
 *   ofi      between machines: the messages of a libfabric connected endpoint (tcp, verbs:
 *            fi_getinfo picks, FI_PROVIDER overrides), set up over a TCP connection that is
 *            then left for the end (an2_carrier_ofi.c): an2_carrier_ofi().
 * A link address ("HOST:PORT", "unix:PATH", "shm:PATH", "ofi:HOST:PORT") names its carrier:
 * an2_carrier_for().
 */
#ifndef AN2_CARRIER_H
#define AN2_CARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct an2_carrier;

struct an2_carrier_ops {
    /* Takes up to len bytes, in order after those taken before; never blocks. The count
     * taken (> 0), or -1 with errno: EAGAIN when it has no room now (it makes its fd
     * writable when it has), EPIPE or ECONNRESET when the other end has gone, another errno
     * when the carrier failed. */
    ssize_t (*write)(struct an2_carrier *c, const void *buf, size_t len);
    /* Up to cap of the bytes that came, in order; never blocks. The count (> 0), 0 once the
     * other end has closed and every byte it sent has been read, or -1 with errno: EAGAIN
     * when nothing waits (its fd becomes readable when something does), another errno when
     * the carrier failed. */
    ssize_t (*read)(struct an2_carrier *c, void *buf, size_t cap);
    /* Ends the carrier (the other end sees its end after the bytes already taken) and frees
     * it. */
    void (*close)(struct an2_carrier *c);
    /* Optional. Its fd was readable, or a deadline came: the carrier takes what its fd holds
     * (wake-ups, its end), bounded; what it means shows in read and write. */
    void (*event)(struct an2_carrier *c);
    /* Optional. The owner is about to sleep until the fd is readable: the carrier asks the
     * other end to wake it when bytes come, or (want_room > 0: output of that many bytes
     * waits) when room comes. False if it need not sleep (bytes wait, that much room came,
     * an error or the end). */
    bool (*arm)(struct an2_carrier *c, size_t want_room);
    /* Optional, with commit: where the bytes to send next can be written in place, without
     * the copy of write. The window is contiguous, *room bytes long (0 when the carrier has
     * none now: full, failed or ended), and stays where it is until the next commit; more
     * room may come meanwhile (call again). NULL if the carrier has no window. */
    uint8_t *(*window)(struct an2_carrier *c, size_t *room);
    /* Sends the first n bytes written into the window (n at most its room). 0, or -1 with
     * errno as write's. */
    int (*commit)(struct an2_carrier *c, size_t n);
};

struct an2_carrier {
    const struct an2_carrier_ops *ops;
    /* What the owner's event loop polls: readable when read may find bytes or the end,
     * writable when write may take more. The carrier's own; the owner never closes it. */
    int fd;
    /* Who is at the other end, for logs ("10.0.0.2:40102", "a local socket"). */
    char peer[64];
    /* Whether read may find bytes when the fd did not say so: the owner then reads on every
     * pass while it is awake, and arms before it sleeps. In shared memory such a read costs no
     * system call; through libfabric it drives the provider (a look at its queues), which
     * measured cheaper per message than reading only when the fd says so. */
    bool polled;
    /* The poll events (EPOLLIN/EPOLLOUT bits) that say write has room again. */
    uint32_t write_events;
};

static inline ssize_t an2_carrier_write(struct an2_carrier *c, const void *buf, size_t len)
{
    return c->ops->write(c, buf, len);
}
static inline ssize_t an2_carrier_read(struct an2_carrier *c, void *buf, size_t cap)
{
    return c->ops->read(c, buf, cap);
}
static inline void an2_carrier_close(struct an2_carrier *c)
{
    if (c)
        c->ops->close(c);
}
static inline void an2_carrier_event(struct an2_carrier *c)
{
    if (c->ops->event)
        c->ops->event(c);
}
static inline bool an2_carrier_arm(struct an2_carrier *c, size_t want_room)
{
    return c->ops->arm ? c->ops->arm(c, want_room) : true;
}
static inline uint8_t *an2_carrier_window(struct an2_carrier *c, size_t *room)
{
    *room = 0;
    return c->ops->window ? c->ops->window(c, room) : NULL;
}
static inline int an2_carrier_commit(struct an2_carrier *c, size_t n)
{
    return c->ops->commit(c, n);
}

/* The stream carrier on a connected, non-blocking stream socket fd, which it owns from now
 * on. NULL with errno set (the fd is closed then too). */
struct an2_carrier *an2_carrier_stream(int fd);
/* The shared-memory carrier on a connected, non-blocking Unix stream socket fd (whose peer's
 * credentials the caller has checked), which it owns from now on: it makes our ring and sends
 * it; the other end's comes with its first event. NULL with errno set (the fd is closed then
 * too). */
struct an2_carrier *an2_carrier_shm(int fd);

/* The network carrier on a connected, non-blocking TCP socket fd, which it owns from now on.
 * The end that accepted the TCP connection (accepted) listens on a libfabric endpoint of the
 * first provider that serves at the socket's local address and sends its address; the other
 * connects to it once that comes (with its first events); bytes flow once connected. NULL
 * with errno set (the fd is closed then too): EPROTONOSUPPORT when no provider serves. */
struct an2_carrier *an2_carrier_ofi(int fd, bool accepted);

/* Loads libfabric's providers now. Its first fi_getinfo in a process probes them all (85 ms on
 * a quiet machine here, more under load): a switch that did it when its first link arrived
 * would stall every other link meanwhile. */
void an2_carrier_ofi_warm_up(void);

/* Who is at the other end of a connected socket, for a carrier's peer: "10.0.0.2:40102",
 * "[fd00::2]:40102" or "a local socket". */
void an2_carrier_peer_text(int fd, char *out, size_t len);

/* The carrier that the link address spec names, on fd, a connection we made to spec or
 * (accepted) one that came to us there. */
struct an2_carrier *an2_carrier_for(const char *spec, int fd, bool accepted);
/* What an event loop that will serve links at spec does before it starts: for "ofi:", loads
 * libfabric (an2_carrier_ofi_warm_up). */
void an2_carrier_prepare(const char *spec);

#endif
