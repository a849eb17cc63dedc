/* t_hold.c — holds control connections to an2d: t_hold N SECONDS|- [open]. Without `open`, N
 * bare connections that never send a byte (as an idle or hostile client would); with it, N
 * endpoints, and an2d must still serve them at the end. Prints what it got and how many
 * connections an2d closed meanwhile. With `-` it holds them until its standard input ends,
 * printing "closed K" each time an2d has closed another (a test waits for those). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "an2_pair.h"

static int bare_connect(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Whether an2d has closed the connection (end of file, or a refusal and then end of file). */
static bool closed_by_peer(int fd)
{
    char buf[256];
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
        if (poll(&p, 1, 0) != 1)
            return false;
        if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
            return true;
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN))
            return true;
        if (n < 0)
            return false;
    }
}

/* Until standard input ends: watches the connections (hang-ups only, nothing read) and
 * prints "closed K" whenever an2d has closed another. */
static void hold_until_eof(const int *fds, int n)
{
    struct pollfd *p = calloc((size_t)n + 1, sizeof *p);
    if (!p)
        FAIL("calloc");
    p[0] = (struct pollfd){.fd = 0, .events = POLLIN};
    for (int i = 0; i < n; i++)
        p[i + 1] = (struct pollfd){.fd = fds[i], .events = POLLRDHUP};
    for (int closed = 0;;) {
        if (poll(p, (nfds_t)n + 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            FAIL("poll: %s", strerror(errno));
        }
        for (int i = 1; i <= n; i++)
            if (p[i].fd >= 0 && p[i].revents) {
                p[i].fd = -1; /* poll() skips it from now on */
                printf("closed %d\n", ++closed);
                fflush(stdout);
            }
        char c[64];
        if (p[0].revents && read(0, c, sizeof c) <= 0)
            break;
    }
    free(p);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        FAIL("usage: t_hold N SECONDS [open]");
    int n = atoi(argv[1]), seconds = atoi(argv[2]);
    bool open_eps = argc > 3 && strcmp(argv[3], "open") == 0;
    char path[108];
    if (n <= 0 || an2_socket_path(path, sizeof path) != 0)
        FAIL("bad arguments or socket path");
    int *fds = calloc((size_t)n, sizeof *fds);
    an2_ep **eps = calloc((size_t)n, sizeof *eps);
    if (!fds || !eps)
        FAIL("calloc");
    int got = 0;
    for (int i = 0; i < n; i++) {
        if (open_eps) {
            int rc = an2_open(NULL, &eps[i]);
            if (rc != 0)
                FAIL("an2_open: %s (%s)", an2_strerror(rc), an2_error_detail());
            fds[i] = an2_ctl_fd(eps[i]);
        } else {
            fds[i] = bare_connect(path);
        }
        got += fds[i] >= 0;
    }
    printf("held %d of %d %s\n", got, n, open_eps ? "endpoints" : "connections");
    fflush(stdout);
    if (strcmp(argv[2], "-") == 0)
        hold_until_eof(fds, n);
    struct timespec ts = {seconds, 0};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    int closed = 0;
    for (int i = 0; i < n; i++)
        closed += fds[i] >= 0 && closed_by_peer(fds[i]);
    printf("closed by an2d: %d\n", closed);
    if (open_eps && closed)
        FAIL("an2d closed %d connections that held endpoints", closed);
    for (int i = 0; i < n; i++) {
        if (open_eps)
            an2_close(eps[i]);
        else if (fds[i] >= 0)
            close(fds[i]);
    }
    free(fds);
    free(eps);
    return 0;
}
