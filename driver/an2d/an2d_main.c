/* an2d_main.c — the AN2 daemon: daemonising, descriptor budget; builds the switch,
 * the controller and the driver around the control socket (its own, or one passed by socket
 * activation), then runs the loop. One per user by default, or the system one for all. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "an2.h"
#include "an2_capture.h"
#include "an2_credit_window.h"
#include "an2_log.h"
#include "an2_sockpath.h"
#include "an2_switch.h"
#include "an2d_activation.h"
#include "an2d_files.h"
#include "an2d_loop.h"
#include "an2d_options.h"
#include "an2d_stop.h"
#include "an2d_uplink.h"
#include "an2_link_auth.h"
#include "driver.h"
#include "otto.h"

#define EXIT_ALREADY_RUNNING 3 /* the starter treats this as success: an an2d is there */

#define FDS_PER_CLIENT 3    /* control socket, kick and interrupt eventfds */
#define FDS_RESERVED 32     /* an2d's own: stdio, epoll, signalfd, lock, log, capture, ... */


/* Every client holds FDS_PER_CLIENT descriptors: raise the soft RLIMIT_NOFILE to the hard
 * one, then fit the client limit in it (or refuse a --max-clients that does not fit), so
 * that an2d never runs out of descriptors before it refuses a client. */
static int fit_descriptor_budget(struct an2d_options *o)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit raised = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl = raised;
    }
    uint64_t fit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > UINT32_MAX
                       ? UINT32_MAX
                       : rl.rlim_cur > FDS_RESERVED ? (rl.rlim_cur - FDS_RESERVED) / FDS_PER_CLIENT
                                                    : 0;
    uint32_t *max = &o->limits.max_clients;
    if (*max <= fit)
        return 0;
    if (o->max_clients_given || fit == 0) {
        fprintf(stderr,
                "an2d: --max-clients %u needs %u descriptors; RLIMIT_NOFILE allows %llu "
                "(raise it with ulimit -n, or lower --max-clients)\n",
                *max, *max * FDS_PER_CLIENT + FDS_RESERVED, (unsigned long long)rl.rlim_cur);
        return -1;
    }
    *max = (uint32_t)fit;
    return 0;
}

static int add_fd(int epfd, int fd, uint64_t tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = tag};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Builds everything and runs; returns the exit status. ready_fd (or -1) gets one status
 * byte once the daemon serves, for the process that started it. */
static int serve(struct an2d_options *o, int listen_fd, int ready_fd)
{
    int status = 1;
    struct an2_switch *sw = NULL;
    struct an2_capture *cap = NULL;
    struct otto *otto = NULL;
    struct an2_driver *drv = NULL;
    struct an2_auth *auth = NULL;
    struct an2d_uplink up = {.spec = o->switch_addr, .epoll_tag = AN2D_EV_UPLINK,
                             .window = o->vc_credits, .keepalive_ms = 200,
                             .derive_window = o->derive_window,
                             .cells_per_second = o->cells_per_second};
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct an2d_loop L = {.listen_fd = listen_fd, .ctl_period_ns = 100000,
                          .spin_ns = o->spin_us * 1000, .yield_ns = o->yield_us * 1000,
                          .pace_spin_ns = o->pace_spin_us * 1000, .hold_ns = o->hold_us * 1000};
    L.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    L.signal_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (L.epoll_fd < 0 || L.signal_fd < 0 || add_fd(L.epoll_fd, listen_fd, AN2D_EV_LISTEN) ||
        add_fd(L.epoll_fd, L.signal_fd, AN2D_EV_SIGNAL)) {
        an2_log("setup: %s", strerror(errno));
        goto out;
    }
    drv = an2_driver_create(&o->limits, L.epoll_fd, o->cells_per_second);
    /* On a fabric the host's link is the one between its OTTO and the switch: the
     * controller paces what the host sends, the switch's port what it receives; the
     * in-process switch between controller and uplink is no link and paces nothing. */
    struct an2_switch_config sc = {.nports = o->switch_addr ? 2 : 1,
                                   .vc_credit_cells = o->vc_credits,
                                   .cells_per_second = o->switch_addr ? 0 : o->cells_per_second};
    sw = drv ? an2_switch_create(&sc) : NULL;
    if (!sw) {
        an2_log("cannot create the switch: %s", strerror(errno));
        goto out;
    }
    if (o->capture && !(cap = an2_capture_open(o->capture))) {
        an2_log("--capture %s: %s", o->capture, strerror(errno));
        goto out;
    }
    struct otto_config oc = {.cells_per_second = o->cells_per_second, .bit_error_rate = o->ber,
                             .cell_loss_rate = o->cell_loss, .fault_seed = o->fault_seed,
                             .capture = cap, .interrupt = an2_driver_interrupt,
                             .interrupt_ctx = drv};
    otto = otto_create(&oc, sw, 0);
    if (!otto) {
        an2_log("cannot create the controller: %s", strerror(errno));
        goto out;
    }
    an2_driver_set_hardware(drv, otto, sw);
    L.otto = otto;
    L.drv = drv;
    if (o->switch_addr) {
        char err[300];
        if (!(auth = an2_auth_open(o->auth, err, sizeof err))) {
            an2_log("--auth %s", err);
            goto out;
        }
        up.auth = auth;
        up.sw = sw;
        up.drv = drv;
        up.epoll_fd = L.epoll_fd;
        if (an2d_uplink_start(&up, 3000, err, sizeof err) != 0) {
            an2_log("--switch %s", err);
            goto out;
        }
        L.uplink = &up;
    }

    /* (a passed socket is its passer's: no pid file, and its path is not ours to watch) */
    int rc = o->activated_fd >= 0 ? 0 : an2d_files_write_pid(&o->files);
    if (rc != 0) {
        an2_log("pid file %s: %s", o->files.pid.path,
                 rc == -EPERM ? "not a regular file of ours with one link" : strerror(-rc));
        goto out;
    }
    L.files = o->activated_fd >= 0 ? NULL : &o->files;
    L.idle_exit_ns = o->idle_exit_s * 1000000000u;
    if (o->cells_per_second > 0)
        an2_log("serving at %s, link rate %.1f cells/s", o->files.sock.path,
                 o->cells_per_second);
    else
        an2_log("serving at %s, link unpaced", o->files.sock.path);
    if (o->system)
        an2_log("the system an2d: serving every user; a VC joins endpoints of one uid%s",
                 o->limits.nallow ? " (or of a pair --allow-vc names)" : "");
    if (ready_fd >= 0) {
        char ok = 0;
        ssize_t w = write(ready_fd, &ok, 1);
        (void)w;
        close(ready_fd);
        ready_fd = -1;
    }
    an2d_loop_run(&L);
    status = 0;
out:
    an2d_uplink_stop(&up);   /* VCs across it are gone; the switch releases their far ends */
    an2_auth_close(auth);
    an2_driver_destroy(drv); /* every task's VCs and portion go before the hardware */
    if (otto)
        otto_destroy(otto);
    if (sw)
        an2_switch_destroy(sw);
    if (cap && an2_capture_close(cap) != 0)
        an2_log("capture %s: close failed", o->capture);
    if (ready_fd >= 0) {
        char bad = 1;
        ssize_t w = write(ready_fd, &bad, 1);
        (void)w;
        close(ready_fd);
    }
    if (L.signal_fd >= 0)
        close(L.signal_fd);
    if (L.epoll_fd >= 0)
        close(L.epoll_fd);
    an2_log("stopped");
    return status;
}

/* Forks; the parent waits for the child's readiness byte and exits with its verdict. */
static int daemonise(struct an2d_options *o, int *ready_fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid > 0) {
        close(p[1]);
        char verdict = 1;
        ssize_t n = read(p[0], &verdict, 1);
        _exit(n == 1 && verdict == 0 ? 0 : 1);
    }
    close(p[0]);
    *ready_fd = p[1];
    /* Out of the terminal's foreground process group (no ^C, no hangup), but in the session
     * of the task that started us: Linux's autogroup scheduler gives each session a group of
     * its own, and sched_yield hands the CPU over well only within a group (PVM ping-pong,
     * 8 B, an2d sharing a core with a task of another session: 5-6.6 us one-way; of the same
     * session: 2.7-3.5 us). */
    setpgid(0, 0);
    if (chdir("/") != 0)
        return -1;
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    int log_fd = an2d_files_open_log(&o->files);
    if (null_fd < 0 || log_fd < 0)
        return -1;
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(log_fd, 2);
    close(null_fd);
    close(log_fd);
    return 0;
}

/* Serves on the socket systemd (or whoever follows its protocol) passed: no lock, pid file
 * or socket of our own to make or remove, the log on stderr (the journal). */
static int serve_activated(struct an2d_options *o)
{
    struct sockaddr_un sa;
    socklen_t sl = sizeof sa;
    if (getsockname(o->activated_fd, (struct sockaddr *)&sa, &sl) == 0 &&
        sl > offsetof(struct sockaddr_un, sun_path) && sa.sun_path[0])
        snprintf(o->files.sock.path, sizeof o->files.sock.path, "%.*s",
                 (int)(sl - offsetof(struct sockaddr_un, sun_path)), sa.sun_path);
    if (o->files.log.path[0]) {
        int log_fd = an2d_files_open_log(&o->files);
        if (log_fd < 0)
            return 1;
        an2_log_set_fd(log_fd);
    }
    an2_log("socket activation: listening socket passed as descriptor %d", o->activated_fd);
    int status = serve(o, o->activated_fd, -1);
    close(o->activated_fd);
    return status;
}

int main(int argc, char **argv)
{
    char why[160];
    int activated = an2d_activation_fd(why, sizeof why);
    /* A task that starts us may leak descriptors (PVM sockets, pipes): hold none of them. */
    close_range(activated >= 0 ? AN2D_ACTIVATION_FD + 1 : 3, ~0u, 0);
    if (activated == -2) {
        fprintf(stderr, "an2d: %s\n", why);
        return 1;
    }
    struct an2d_options o;
    if (an2d_parse_options(argc, argv, &o) != 0)
        return 2;
    o.activated_fd = activated;
    if (activated >= 0 && (!o.system || o.daemonise || o.stop)) {
        fprintf(stderr, "an2d: a socket passed by socket activation is served by an2d "
                        "--system in the foreground\n");
        return 2;
    }
    if (o.stop) {
        int rc = an2d_stop(o.files.sock.path, o.system, 10000);
        if (rc == -ENOENT || rc == -ECONNREFUSED) {
            fprintf(stderr, "an2d: no an2d listening at %s\n", o.files.sock.path);
            return 1;
        }
        if (rc != 0) {
            const char *why_not = rc == -EPERM ? an2_error_detail() : "";
            fprintf(stderr, "an2d: stopping the an2d at %s: %s\n", o.files.sock.path,
                    *why_not ? why_not : strerror(-rc));
            return 1;
        }
        return 0;
    }
    if (fit_descriptor_budget(&o) != 0)
        return 2;
    if (activated >= 0)
        return serve_activated(&o);
    int listen_fd = an2d_files_claim(&o.files);
    if (listen_fd < 0) {
        if (errno == EWOULDBLOCK) {
            fprintf(stderr, "an2d: an an2d already serves %s\n", o.files.sock.path);
            return EXIT_ALREADY_RUNNING;
        }
        return 1;
    }
    int ready_fd = -1;
    if (o.daemonise && daemonise(&o, &ready_fd) != 0) {
        fprintf(stderr, "an2d: cannot daemonise: %s\n", strerror(errno));
        an2d_files_release(&o.files, listen_fd, false);
        return 1;
    }
    if (!o.daemonise && o.files.log.path[0]) {
        int log_fd = an2d_files_open_log(&o.files);
        if (log_fd < 0) {
            an2d_files_release(&o.files, listen_fd, false);
            return 1;
        }
        an2_log_set_fd(log_fd);
    }
    int status = serve(&o, listen_fd, ready_fd);
    /* the default log goes with a clean stop: an an2d that failed leaves it to be read */
    an2d_files_release(&o.files, listen_fd, status == 0 && o.log_derived && !o.keep_log);
    return status;
}
