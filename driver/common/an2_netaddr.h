/* an2_netaddr.h — the addresses links run over: "HOST:PORT", "[IPv6]:PORT" (TCP, names
 * resolved with getaddrinfo), "unix:PATH" (one machine), "shm:PATH" (one machine, the link's
 * bytes in shared memory: a Unix socket at PATH hands the memory over, then carries only
 * wake-ups) or "ofi:HOST:PORT" (a TCP connection that sets up the link's libfabric
 * endpoints); listening and connecting. Which carrier an address names: an2_carrier_for(). */
#ifndef AN2_NETADDR_H
#define AN2_NETADDR_H

#include <stdbool.h>
#include <stddef.h>

/* Whether spec names a Unix socket (unix:PATH or shm:PATH). */
bool an2_net_is_unix(const char *spec);

/* A listening socket (non-blocking, close-on-exec) for spec. fd, or -1 with the reason in
 * err. A Unix path must not exist yet, or be a socket of
 * our uid that nobody listens on any more (a killed daemon's: it is removed). */
int an2_net_listen(const char *spec, char *err, size_t errlen);
/* A connected stream socket (non-blocking, TCP_NODELAY) to spec, waiting at most timeout_ms.
 * For a Unix socket the server must run as our uid or root (SO_PEERCRED). fd, or -1 with
 * the reason in err. */
int an2_net_connect(const char *spec, int timeout_ms, char *err, size_t errlen);
/* Accepts one connection on a listening socket from an2_net_listen: non-blocking,
 * TCP_NODELAY; a Unix peer must be our uid or root. fd, -1 with errno EAGAIN when none
 * waits, or -1 with the reason in err (the connection is closed). */
int an2_net_accept(int listen_fd, char *err, size_t errlen);

#endif
