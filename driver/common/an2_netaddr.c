/* an2_netaddr.c — listening on and connecting to link addresses (TCP, or a Unix socket, for
 * the stream carrier, the shared-memory one or the libfabric one). */
#include "an2_netaddr.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct parsed {
    bool is_unix;
    char host[256];
    char port[16];
    struct sockaddr_un sun;
};

bool an2_net_is_unix(const char *spec)
{
    return !strncmp(spec, "unix:", 5) || !strncmp(spec, "shm:", 4);
}

static int parse(const char *spec, struct parsed *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    const char *whole = spec;
    if (!strncmp(spec, "ofi:", 4))
        spec += 4;   /* the TCP connection that sets the libfabric endpoints up */
    if (an2_net_is_unix(spec) && whole != spec) {
        snprintf(err, errlen, "%s: the libfabric carrier runs over TCP: ofi:HOST:PORT", whole);
        return -1;
    }
    if (an2_net_is_unix(spec)) {
        const char *path = spec + (spec[0] == 'u' ? 5 : 4);
        if (!*path || strlen(path) >= sizeof p->sun.sun_path) {
            snprintf(err, errlen, "%s: empty or too long a socket path", whole);
            return -1;
        }
        p->is_unix = true;
        p->sun.sun_family = AF_UNIX;
        snprintf(p->sun.sun_path, sizeof p->sun.sun_path, "%s", path);
        return 0;
    }
    const char *colon;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof p->host) {
            snprintf(err, errlen, "%s: not [IPv6]:PORT", whole);
            return -1;
        }
        memcpy(p->host, spec + 1, (size_t)(close - spec - 1));
        colon = close + 1;
    } else {
        colon = strrchr(spec, ':');
        if (!colon || (size_t)(colon - spec) >= sizeof p->host || strchr(spec, ':') != colon) {
            snprintf(err, errlen,
                     "%s: not HOST:PORT, [IPv6]:PORT, unix:PATH, shm:PATH or ofi:HOST:PORT",
                     whole);
            return -1;
        }
        memcpy(p->host, spec, (size_t)(colon - spec));
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || port < 0 || port > 65535) {
        snprintf(err, errlen, "%s: bad port", whole);
        return -1;
    }
    snprintf(p->port, sizeof p->port, "%ld", port);
    return 0;
}

static void tune(int fd, bool tcp)
{
    int one = 1;
    if (tcp)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static bool unix_peer_ok(int fd)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
           (cr.uid == getuid() || cr.uid == 0);
}

/* A socket at the path that nobody listens on any more (its daemon was killed): removed, so
 * that a daemon restarted at the same address can listen there. Only a socket of our uid. */
static bool unix_stale(const struct sockaddr_un *sun)
{
    struct stat st;
    if (lstat(sun->sun_path, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
        return false;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool stale = fd >= 0 && connect(fd, (const struct sockaddr *)sun, sizeof *sun) != 0 &&
                 errno == ECONNREFUSED;
    if (fd >= 0)
        close(fd);
    return stale && unlink(sun->sun_path) == 0;
}

int an2_net_listen(const char *spec, char *err, size_t errlen)
{
    struct parsed p;
    if (parse(spec, &p, err, errlen))
        return -1;
    if (p.is_unix) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&p.sun, sizeof p.sun);
        if (rc != 0 && fd >= 0 && errno == EADDRINUSE && unix_stale(&p.sun))
            rc = bind(fd, (struct sockaddr *)&p.sun, sizeof p.sun);
        if (fd < 0 || rc != 0 || listen(fd, 64)) {
            snprintf(err, errlen, "%s: %s", spec, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    /* no host: every address, IPv6 and IPv4 on one socket where the system allows */
    struct addrinfo hints = {.ai_family = p.host[0] ? AF_UNSPEC : AF_INET6,
                             .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res;
    int rc = getaddrinfo(p.host[0] ? p.host : NULL, p.port, &hints, &res);
    if (rc && !p.host[0]) {
        hints.ai_family = AF_INET;
        rc = getaddrinfo(NULL, p.port, &hints, &res);
    }
    if (rc) {
        snprintf(err, errlen, "%s: %s", spec, gai_strerror(rc));
        return -1;
    }
    int fd = -1, saved = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int one = 1, zero = 0;
        if (fd >= 0)
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (fd >= 0 && a->ai_family == AF_INET6 && !p.host[0])
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        if (fd >= 0 && (bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 64))) {
            saved = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(err, errlen, "%s: %s", spec, strerror(saved ? saved : errno));
    return fd;
}

static int wait_connected(int fd, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int n;
    do
        n = poll(&pfd, 1, timeout_ms);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return ETIMEDOUT;
    int e = 0;
    socklen_t len = sizeof e;
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len))
        return errno;
    return e;
}

int an2_net_connect(const char *spec, int timeout_ms, char *err, size_t errlen)
{
    struct parsed p;
    if (parse(spec, &p, err, errlen))
        return -1;
    if (p.is_unix) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int e = fd < 0 ? errno : 0;
        if (!e && connect(fd, (struct sockaddr *)&p.sun, sizeof p.sun))
            e = errno == EINPROGRESS || errno == EAGAIN ? wait_connected(fd, timeout_ms) : errno;
        if (!e && !unix_peer_ok(fd))
            e = EPERM;
        if (e) {
            snprintf(err, errlen, "%s: %s", spec,
                     e == EPERM ? "served by another user" : strerror(e));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(p.host, p.port, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "%s: %s", spec, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            e = errno;
            continue;
        }
        e = connect(fd, a->ai_addr, a->ai_addrlen) ? errno : 0;
        if (e == EINPROGRESS)
            e = wait_connected(fd, timeout_ms);
        if (e) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", spec, strerror(e));
        return -1;
    }
    tune(fd, true);
    return fd;
}

int an2_net_accept(int listen_fd, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "accept: %s", strerror(errno));
        return -1;
    }
    if (ss.ss_family == AF_UNIX && !unix_peer_ok(fd)) {
        snprintf(err, errlen, "a link from another user refused");
        close(fd);
        errno = EPERM;
        return -1;
    }
    tune(fd, ss.ss_family != AF_UNIX);
    return fd;
}
