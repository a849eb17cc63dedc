/* an2_carrier_stream.c — the stream carrier (an2_carrier.h): a link's bytes over a connected
 * stream socket, TCP between hosts or a Unix socket on one machine. */
#include "an2_carrier.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static ssize_t stream_write(struct an2_carrier *c, const void *buf, size_t len)
{
    ssize_t n;
    do
        n = send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EWOULDBLOCK)
        errno = EAGAIN;
    return n;
}

static ssize_t stream_read(struct an2_carrier *c, void *buf, size_t cap)
{
    ssize_t n;
    do
        n = recv(c->fd, buf, cap, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EWOULDBLOCK)
        errno = EAGAIN;
    return n;
}

static void stream_close(struct an2_carrier *c)
{
    close(c->fd);
    free(c);
}

static const struct an2_carrier_ops stream_ops = {
    .write = stream_write, .read = stream_read, .close = stream_close};

void an2_carrier_peer_text(int fd, char *out, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0 || ss.ss_family == AF_UNIX) {
        snprintf(out, len, "a local socket");
    } else if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        snprintf(out, len, "%s:%u", host, ntohs(a->sin_port));
    } else {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        snprintf(out, len, "[%s]:%u", host, ntohs(a->sin6_port));
    }
}

struct an2_carrier *an2_carrier_stream(int fd)
{
    struct an2_carrier *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    c->ops = &stream_ops;
    c->fd = fd;
    c->write_events = EPOLLOUT;
    an2_carrier_peer_text(fd, c->peer, sizeof c->peer);
    return c;
}
