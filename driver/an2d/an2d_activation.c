/* an2d_activation.c — systemd's socket activation, done by hand rather than with libsystemd
 * (a dozen lines of a documented protocol): systemd (or a test) binds the socket, then
 * starts us with it as descriptor 3 and LISTEN_PID=<our pid>, LISTEN_FDS=1. */
#include "an2d_activation.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int sockopt(int fd, int opt)
{
    int v = -1;
    socklen_t l = sizeof v;
    return getsockopt(fd, SOL_SOCKET, opt, &v, &l) == 0 ? v : -1;
}

int an2d_activation_fd(char *err, size_t len)
{
    const char *pid_text = getenv("LISTEN_PID"), *fds_text = getenv("LISTEN_FDS");
    char *end;
    long pid = pid_text ? strtol(pid_text, &end, 10) : 0;
    bool ours = pid_text && *pid_text && !*end && pid == (long)getpid();
    long nfds = fds_text ? strtol(fds_text, &end, 10) : 0;
    bool nfds_ok = fds_text && *fds_text && !*end;
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    if (!ours || !nfds_ok || nfds == 0)
        return -1;
    int fd = AN2D_ACTIVATION_FD;
    if (nfds != 1) {
        snprintf(err, len, "socket activation passed %ld descriptors; an2d takes one", nfds);
        return -2;
    }
    if (sockopt(fd, SO_DOMAIN) != AF_UNIX || sockopt(fd, SO_TYPE) != SOCK_SEQPACKET ||
        sockopt(fd, SO_ACCEPTCONN) != 1) {
        snprintf(err, len, "socket activation: descriptor %d is not a listening Unix "
                 "SOCK_SEQPACKET socket (ListenSequentialPacket=)", fd);
        return -2;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC)) {
        snprintf(err, len, "socket activation: descriptor %d: cannot make it non-blocking", fd);
        return -2;
    }
    return fd;
}
