/* an2d_stop.c — `an2d --stop`: asks the an2d at a socket to stop and waits until it is gone. */
#include "an2d_stop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "an2_ctl_proto.h"
#include "an2_detail.h"
#include "an2_sockpath.h"
#include "an2d_proc.h"

int an2d_stop(const char *path, bool system, int timeout_ms)
{
    int fd = system ? an2_ctl_connect_system(path) : an2_ctl_connect(path);
    if (fd < 0)
        return fd;
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_STOP};
    struct an2_ctl_reply r = {0};
    pid_t pid = 0;
    int rc = -ETIMEDOUT;
    if (send(fd, &q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q) {
        rc = -errno;
        goto out;
    }
    /* The reply, then end of file when an2d has let go of every client. */
    for (int waited = 0; waited < timeout_ms; waited += 10) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10) <= 0)
            continue;
        ssize_t n = recv(fd, &r, sizeof r, 0);
        if (n == (ssize_t)sizeof r && r.magic == AN2_CTL_MAGIC && r.op == AN2_CTL_R_STOP &&
            r.status < 0) { /* refused (a system an2d stops for root only) */
            r.detail[sizeof r.detail - 1] = 0;
            an2_set_detail(r.detail);
            rc = -EPERM;
            break;
        }
        if (n == (ssize_t)sizeof r && r.magic == AN2_CTL_MAGIC && r.op == AN2_CTL_R_STOP) {
            pid = r.pid;
            continue;
        }
        if (n <= 0) {
            rc = pid ? 0 : -EPROTO;
            break;
        }
    }
    if (rc == 0) {
        for (int waited = 0; waited < timeout_ms && an2_pid_is_an2d(pid); waited += 10) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (an2_pid_is_an2d(pid))
            rc = -ETIMEDOUT;
    }
out:
    close(fd);
    return rc;
}
