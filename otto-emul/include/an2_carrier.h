/* an2_carrier.h — what carries a link's records (an2_fiber.h) between its two ends: an ordered,
 * reliable flow of bytes behind a few calls, so that the link protocol and the handshake before
 * it (an2_link.c, an2_handshake.c) are one piece of code whatever carries them. The carrier
 * knows nothing of records; every byte it delivers is untrusted input to the link's reader.
 *
 * Carriers:
 *   stream   a connected stream socket (TCP between hosts, a Unix socket on one machine):
 *            an2_carrier_stream().
 */
#ifndef AN2_CARRIER_H
#define AN2_CARRIER_H

#include <stddef.h>
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
};

struct an2_carrier {
    const struct an2_carrier_ops *ops;
    /* What the owner's event loop polls: readable when read may find bytes or the end,
     * writable when write may take more. The carrier's own; the owner never closes it. */
    int fd;
    /* Who is at the other end, for logs ("10.0.0.2:40102", "a local socket"). */
    char peer[64];
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

/* The stream carrier on a connected, non-blocking stream socket fd, which it owns from now
 * on. NULL with errno set (the fd is closed then too). */
struct an2_carrier *an2_carrier_stream(int fd);

#endif
