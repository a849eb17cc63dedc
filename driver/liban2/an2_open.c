/* an2_open.c — opening an endpoint: connect to an2d (starting it if none answers), receive
 * the portion and kick descriptors, map the portion and check its geometry. */
#include "an2_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AN2D_DEFAULT_PATH
#define AN2D_DEFAULT_PATH "an2d"
#endif

extern char **environ;

/* Starts `an2d --daemon --socket path` and waits for it to report. Two tasks doing this at
 * once is fine: an2d takes a lock, the loser exits 3 ("already running"). */
static int start_an2d(const char *path)
{
    const char *prog = getenv("AN2D_PATH");
    if (!prog || !*prog)
        prog = AN2D_DEFAULT_PATH;
    /* an autostarted an2d goes when it has had no client for AN2D_IDLE_EXIT seconds */
    const char *idle = getenv("AN2D_IDLE_EXIT");
    char idle_arg[40];
    snprintf(idle_arg, sizeof idle_arg, "--idle-exit=%.20s", idle && *idle ? idle : "60");
    const char *keep_log = getenv("AN2D_KEEP_LOG");
    char *argv[] = {(char *)prog, "--daemon", "--socket", (char *)path, idle_arg,
                    keep_log && *keep_log ? "--keep-log" : NULL, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, prog, NULL, NULL, argv, environ);
    if (rc != 0) {
        char text[128];
        snprintf(text, sizeof text, "cannot start %.70s: %s", prog, strerror(rc));
        an2_set_detail(text);
        return -rc;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 0; /* SIGCHLD ignored: the child was reaped for us; just try to connect */
    }
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3))
        return 0;
    char text[128];
    /* (the path last: a long one is cut, never the reason) */
    snprintf(text, sizeof text, "an2d could not start (status %d; see its log): %.70s", status,
             prog);
    an2_set_detail(text);
    return -ECONNREFUSED;
}

static int connect_or_start(const char *path, bool system, bool autostart)
{
    if (system) { /* root runs it (a systemd socket, or on demand): never started here */
        int fd = an2_ctl_connect_system(path);
        if (fd == -ECONNREFUSED) {
            char text[128];
            snprintf(text, sizeof text, "the system an2d at %.80s does not answer", path);
            an2_set_detail(text);
        }
        return fd;
    }
    int fd = an2_ctl_connect(path);
    if (fd >= 0 || !autostart || (fd != -ENOENT && fd != -ECONNREFUSED))
        return fd;
    int rc = start_an2d(path);
    if (rc < 0)
        return rc;
    /* An an2d that lost the start race may still be binding: retry for a while. */
    for (int i = 0; i < 500; i++) {
        fd = an2_ctl_connect(path);
        if (fd >= 0 || (fd != -ENOENT && fd != -ECONNREFUSED))
            return fd;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return fd;
}

/* The descriptors an2d hands over are checked before use: the portion must be sealed
 * against shrinking (else an2d's own mapping could fault), and the kick and interrupt
 * descriptors must never block us, whatever the server made of them. */
static int check_handed_fds(const int fds[3])
{
    int seals = fcntl(fds[0], F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
        an2_set_detail("an2d's portion is not a sealed memfd");
        return -EPROTO;
    }
    for (int i = 1; i < 3; i++) {
        int fl = fcntl(fds[i], F_GETFL);
        if (fl < 0 || fcntl(fds[i], F_SETFL, fl | O_NONBLOCK) != 0) {
            an2_set_detail("an2d's kick or interrupt descriptor is unusable");
            return -EPROTO;
        }
    }
    return 0;
}

/* Reads the OPEN reply and its three descriptors. */
static int recv_open_reply(int fd, struct an2_ctl_reply *r, int fds[3])
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int pr = poll(&p, 1, 10000);
    if (pr <= 0)
        return pr == 0 ? -ETIMEDOUT : -errno;
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = r, .iov_len = sizeof *r};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof ctl.buf};
    ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
    /* an2d that refused us and closed while our request was unread: the reset comes first,
     * its reason after it */
    if (n < 0 && errno == ECONNRESET)
        n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0 && (errno == ECONNRESET || errno == EAGAIN))
        n = 0; /* closed without a word */
    if (n < 0)
        return -errno;
    int got = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k; i++) {
            int f;
            memcpy(&f, CMSG_DATA(cm) + (size_t)i * sizeof(int), sizeof f);
            if (got < 3)
                fds[got++] = f;
            else
                close(f);
        }
    }
    if (n != (ssize_t)sizeof *r || r->magic != AN2_CTL_MAGIC ||
        (r->op != AN2_CTL_R_OPEN && r->op != AN2_CTL_R_ERROR)) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        an2_set_detail(n == 0 ? "an2d closed the connection" : "garbled reply from an2d");
        return n == 0 ? -ECONNRESET : -EPROTO;
    }
    r->detail[sizeof r->detail - 1] = 0;
    if (r->status != 0 || got != 3) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        an2_set_detail(r->detail[0] ? r->detail : "an2d sent no portion");
        /* an2d's refusal is a negative errno; anything else is no answer to trust */
        return r->status < 0 && r->status > -4096 ? r->status : -EPROTO;
    }
    int rc = check_handed_fds(fds);
    if (rc != 0)
        for (int i = 0; i < 3; i++)
            close(fds[i]);
    return rc;
}

/* Points the ring pointers into the mapping after checking the geometry fits it. */
static int setup_rings(an2_ep *ep)
{
    const struct otto_geometry *g = &ep->geo;
    memcpy(&ep->geo, &ep->hdr->geo, sizeof ep->geo);
    bool pow2 = g->tx_slots && !(g->tx_slots & (g->tx_slots - 1)) && g->rx_slots &&
                !(g->rx_slots & (g->rx_slots - 1)) && g->report_slots &&
                !(g->report_slots & (g->report_slots - 1));
    uint64_t rx_bytes = (uint64_t)g->max_vcs * g->rx_slots * sizeof(struct otto_rx_desc);
    if (g->magic != OTTO_HW_MAGIC || g->version != OTTO_HW_VERSION || !pow2 ||
        g->max_vcs == 0 || g->max_vcs > 65536 || g->portion_size != ep->size ||
        g->tx_ring_off + (uint64_t)g->tx_slots * sizeof(struct otto_tx_desc) > ep->size ||
        g->rx_ring_off + rx_bytes > ep->size ||
        g->rx_index_off + (uint64_t)g->max_vcs * sizeof(struct otto_ring_index) > ep->size ||
        g->host_stats_off + (uint64_t)g->max_vcs * sizeof(struct otto_host_vc_stats) > ep->size ||
        g->host_stats_off % alignof(struct otto_host_vc_stats) != 0 ||
        g->report_ring_off + (uint64_t)g->report_slots * sizeof(struct otto_report) > ep->size ||
        g->buf_off + g->buf_size > ep->size || g->buf_size > UINT32_MAX) {
        an2_set_detail("the portion's geometry does not fit its mapping");
        return -EPROTO;
    }
    uint8_t *b = ep->base;
    ep->tx = (struct otto_tx_desc *)(b + g->tx_ring_off);
    ep->rx = (struct otto_rx_desc *)(b + g->rx_ring_off);
    ep->rx_index = (struct otto_ring_index *)(b + g->rx_index_off);
    ep->host_stats = (struct otto_host_vc_stats *)(b + g->host_stats_off);
    ep->reports = (struct otto_report *)(b + g->report_ring_off);
    ep->buf = b + g->buf_off;
    ep->rx_prod = calloc(g->max_vcs, sizeof *ep->rx_prod);
    ep->vcs = calloc(g->max_vcs, sizeof *ep->vcs);
    return ep->rx_prod && ep->vcs ? 0 : -ENOMEM;
}

/* an2_open on the control socket at path. */
static int open_at(const struct an2_open_params *p, const char *path, bool system,
                   bool autostart, an2_ep **out)
{
    int fd = connect_or_start(path, system, autostart);
    if (fd < 0) {
        if (!an2_error_detail()[0]) {
            char text[128];
            snprintf(text, sizeof text, "no an2d at %.90s", path);
            an2_set_detail(text);
        }
        return fd;
    }
    an2_ep *ep = calloc(1, sizeof *ep);
    if (!ep) {
        close(fd);
        return -ENOMEM;
    }
    ep->ctl_fd = fd;
    ep->kick_fd = ep->irq_fd = -1;
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_OPEN, .buf_size = p->buf_size,
                            .max_vcs = p->max_vcs, .tx_slots = p->tx_slots,
                            .rx_slots = p->rx_slots};
    struct an2_ctl_reply r;
    int fds[3] = {-1, -1, -1};
    int rc = an2_ctl_send(ep, &q);
    if (rc == 0 || rc == -EPIPE || rc == -ECONNRESET) /* an2d may have refused us at once */
        rc = recv_open_reply(fd, &r, fds);
    if (rc == 0) {
        ep->kick_fd = fds[1];
        ep->irq_fd = fds[2];
        ep->id = r.endpoint_id;
        ep->controller_apart = an2_sched_group_apart((pid_t)r.pid);
        ep->controller_pid = an2_sched_group_movable((pid_t)r.pid);
        struct stat st;
        if (fstat(fds[0], &st) != 0 || (uint64_t)st.st_size != r.portion_size) {
            an2_set_detail("the portion's size is not what an2d announced");
            rc = -EPROTO;
        } else {
            ep->size = r.portion_size;
            ep->base = mmap(NULL, ep->size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
            if (ep->base == MAP_FAILED) {
                ep->base = NULL;
                rc = -errno;
            } else {
                ep->hdr = ep->base;
                rc = setup_rings(ep);
            }
        }
        close(fds[0]);
    }
    if (rc != 0) {
        an2_close(ep);
        return rc;
    }
    an2_fork_track(ep);
    *out = ep;
    return 0;
}

int an2_open(const struct an2_open_params *params, an2_ep **out)
{
    static const struct an2_open_params none;
    const struct an2_open_params *p = params ? params : &none;
    an2_set_detail("");
    char path[108];
    bool system;
    if (an2_ctl_target(path, sizeof path, &system) != 0) {
        an2_set_detail("control socket path too long (set AN2_SOCKET)");
        return -ENAMETOOLONG;
    }
    bool autostart = !p->no_autostart && !getenv("AN2_NO_AUTOSTART");
    int rc = open_at(p, path, system, autostart, out);
    /* the system an2d's socket went as we came (its an2d stopped): our own, as without one */
    if (rc == -ENOENT && system) {
        an2_set_detail("");
        system = false;
        if (an2_socket_path(path, sizeof path) != 0)
            return -ENAMETOOLONG;
        rc = open_at(p, path, system, autostart, out);
    }
    /* -ECONNRESET: closed without a word, as by an an2d that was stopping (no client for a
     * while) as we came: once more, starting another */
    if (rc == -ECONNRESET && autostart && !system) {
        an2_set_detail("");
        rc = open_at(p, path, system, autostart, out);
    }
    return rc;
}

void an2_close(an2_ep *ep)
{
    if (!ep)
        return;
    an2_fork_untrack(ep);
    /* Closing the connection is the whole protocol: an2d reclaims everything. */
    if (ep->base)
        munmap(ep->base, ep->size);
    if (ep->kick_fd >= 0)
        close(ep->kick_fd);
    if (ep->irq_fd >= 0)
        close(ep->irq_fd);
    if (ep->ctl_fd >= 0)
        close(ep->ctl_fd);
    free(ep->rx_prod);
    free(ep->vcs);
    free(ep->done);
    free(ep);
}

uint32_t an2_endpoint_id(const an2_ep *ep) { return ep->id; }
void *an2_buf_base(const an2_ep *ep) { return ep->buf; }
size_t an2_buf_size(const an2_ep *ep) { return ep->geo.buf_size; }

static_assert(sizeof(struct an2_vc_host_stats) == sizeof(struct otto_host_vc_stats) &&
              offsetof(struct an2_vc_host_stats, recoveries) ==
                  offsetof(struct otto_host_vc_stats, recoveries),
              "an2_vc_host_stats is the portion's otto_host_vc_stats");

struct an2_vc_host_stats *an2_vc_host_stats(an2_ep *ep, uint16_t vc)
{
    return vc < ep->geo.max_vcs ? (struct an2_vc_host_stats *)&ep->host_stats[vc] : NULL;
}
uint32_t an2_max_vcs(const an2_ep *ep) { return ep->geo.max_vcs; }
uint32_t an2_tx_slots(const an2_ep *ep) { return ep->geo.tx_slots; }
uint32_t an2_rx_slots(const an2_ep *ep) { return ep->geo.rx_slots; }
int an2_ctl_fd(const an2_ep *ep) { return ep->ctl_fd; }
int an2_irq_fd(const an2_ep *ep) { return ep->irq_fd; }
