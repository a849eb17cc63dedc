/* t_fake_an2d.c — a server posing as an2d, for the impersonation test: t_fake_an2d PATH
 * SECONDS binds PATH (run it as another user), accepts until SIGTERM (at most SECONDS) and
 * counts every byte a client sends it, which must stay 0: a client checks who serves before
 * it sends. Prints "listening" once clients can connect. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: t_fake_an2d PATH SECONDS\n");
        return 2;
    }
    int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", argv[1]);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 16) != 0) {
        fprintf(stderr, "t_fake_an2d: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct sigaction sa_term = {.sa_handler = on_term}; /* no SA_RESTART: poll() ends */
    sigaction(SIGTERM, &sa_term, NULL);
    printf("listening\n");
    fflush(stdout);
    struct pollfd p[17] = {{.fd = lfd, .events = POLLIN}};
    int n = 1, conns = 0;
    long bytes = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long limit_ms = atol(argv[2]) * 1000;
    for (long waited = 0; waited < limit_ms && !stop;) {
        if (poll(p, (nfds_t)n, 50) > 0) {
            if ((p[0].revents & POLLIN) && n < 17) {
                int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd >= 0) {
                    p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
                    conns++;
                }
            }
            for (int i = 1; i < n; i++) {
                char buf[4096];
                ssize_t r = (p[i].revents & POLLIN) ? recv(p[i].fd, buf, sizeof buf, 0) : 0;
                if (r > 0)
                    bytes += r;
                if (p[i].revents & (POLLIN | POLLHUP) && r <= 0)
                    p[i].events = 0; /* done with it; keep the slot */
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        waited = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    }
    printf("fake: %d connections, %ld bytes received\n", conns, bytes);
    for (int i = 0; i < n; i++)
        close(p[i].fd);
    unlink(argv[1]);
    return 0;
}
