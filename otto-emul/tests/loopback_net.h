/* loopback_net.h — a network of the process's own for the tests and fuzz targets that drive the
 * network carrier: a new network namespace with only its loopback, up (nothing outside can
 * reach what listens there, and it goes with the process), and connected TCP pairs on it. */
#ifndef LOOPBACK_NET_H
#define LOOPBACK_NET_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Moves the calling thread (and what it starts from now on) into a network namespace of its
 * own with its loopback up. False if it may not (not root). */
static inline bool loopback_net_private(void)
{
    if (unshare(CLONE_NEWNET) != 0)
        return false;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    bool ok = s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
    ifr.ifr_flags |= IFF_UP;
    ok = ok && ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
    if (s >= 0)
        close(s);
    return ok;
}

/* A connected pair of TCP sockets on the loopback: a the connecting end, b the accepted one;
 * both non-blocking. False (nothing left open) if one could not be made. */
static inline bool loopback_net_tcp_pair(int *a, int *b)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    *a = *b = -1;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0)
        return false;
    if (bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 4) == 0 &&
        getsockname(l, (struct sockaddr *)&sin, &sl) == 0 &&
        (*a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
        connect(*a, (struct sockaddr *)&sin, sizeof sin) == 0)
        *b = accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    close(l);
    if (*b >= 0 && fcntl(*a, F_SETFL, O_NONBLOCK) == 0)
        return true;
    if (*a >= 0)
        close(*a);
    if (*b >= 0)
        close(*b);
    *a = *b = -1;
    return false;
}

#endif
