/* an2switch_main.c — the standalone AN2 switch's program: --stop, or the switch set up (log,
 * signals, listening sockets, switch, capture, control socket, pid file), run until a signal,
 * and taken down. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "an2_capture.h"
#include "an2_carrier.h"
#include "an2_clock.h"
#include "an2_link.h"
#include "an2_link_auth.h"
#include "an2_log.h"
#include "an2_netaddr.h"
#include "an2_switch.h"
#include "an2switch_daemon.h"
#include "owned_file.h"

static int stop_switch(const char *pid_file)
{
    pid_t pid = owned_file_read_pid(pid_file);
    if (pid < 0 || kill(pid, SIGTERM) != 0) {
        fprintf(stderr, "an2switch: no switch running per %s\n", pid_file);
        return 1;
    }
    for (int i = 0; i < 100; i++) {
        if (kill(pid, 0) != 0)
            return 0;
        usleep(50000);
    }
    fprintf(stderr, "an2switch: pid %d still runs after 5 s\n", (int)pid);
    return 1;
}

int main(int argc, char **argv)
{
    struct an2sw_options o;
    an2_log_set_name("an2switch");
    if (an2sw_parse_options(argc, argv, &o) != 0)
        return 2;
    if (o.stop)
        return stop_switch(o.pid_file);
    if (o.log_file) {
        int fd = open(o.log_file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            fprintf(stderr, "an2switch: --log-file %s: %s\n", o.log_file, strerror(errno));
            return 1;
        }
        an2_log_set_fd(fd);
    }
    signal(SIGPIPE, SIG_IGN);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    int status = 1;
    int lfds[MAX_LISTEN];
    unsigned nl = 0;
    struct an2sw_daemon st = {.o = &o, .control_fd = -1, .start_ns = an2_now_ns()};
    st.epfd = epoll_create1(EPOLL_CLOEXEC);
    int sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_SIGNAL};
    if (st.epfd < 0 || sigfd < 0 || epoll_ctl(st.epfd, EPOLL_CTL_ADD, sigfd, &ev)) {
        fprintf(stderr, "an2switch: %s\n", strerror(errno));
        goto out;
    }
    char auth_err[256];
    if (!(st.auth = an2_auth_open(o.auth, auth_err, sizeof auth_err))) {
        fprintf(stderr, "an2switch: --auth %s\n", auth_err);
        goto out;
    }
    for (unsigned i = 0; i < o.nlisten; i++)
        an2_carrier_prepare(o.listen[i]);
    for (unsigned i = 0; i < o.ntrunks; i++)
        an2_carrier_prepare(o.trunks[i].spec);
    for (; nl < o.nlisten; nl++) {
        char err[256];
        lfds[nl] = an2_net_listen(o.listen[nl], err, sizeof err);
        if (lfds[nl] < 0) {
            fprintf(stderr, "an2switch: --listen %s\n", err);
            goto out;
        }
        struct epoll_event le = {.events = EPOLLIN, .data.u64 = EV_LISTEN + nl};
        epoll_ctl(st.epfd, EPOLL_CTL_ADD, lfds[nl], &le);
    }
    struct an2_switch_config sc = {.nports = o.nports, .vc_credit_cells = o.window,
                                   .cells_per_second = o.rate};
    st.s.sw = an2_switch_create(&sc);
    st.s.id = o.id;
    st.s.nports = o.nports;
    st.s.links = calloc(o.nports, sizeof *st.s.links);
    st.announced = calloc(o.nports, sizeof *st.announced);
    st.writing = calloc(o.nports, sizeof *st.writing);
    st.faults = calloc(o.nports, sizeof *st.faults);
    st.windows = calloc(o.nports, sizeof *st.windows);
    vc_map_init(&st.s.calls);
    for (unsigned id = 0; id < 256; id++)
        st.s.routes[id].port = -1;
    if (!st.s.sw || !st.s.links || !st.announced || !st.writing || !st.faults || !st.windows) {
        fprintf(stderr, "an2switch: out of memory\n");
        goto out;
    }
    if (o.capture && !(st.capture = an2_capture_open(o.capture))) {
        fprintf(stderr, "an2switch: --capture %s: %s\n", o.capture, strerror(errno));
        goto out;
    }
    if (o.control) {
        char err[256], spec[300];
        snprintf(spec, sizeof spec, "unix:%s", o.control);
        mode_t old = umask(077);
        st.control_fd = an2_net_listen(spec, err, sizeof err);
        umask(old);
        struct epoll_event ce = {.events = EPOLLIN, .data.u64 = EV_CONTROL};
        if (st.control_fd < 0 || epoll_ctl(st.epfd, EPOLL_CTL_ADD, st.control_fd, &ce)) {
            fprintf(stderr, "an2switch: --control %s\n", st.control_fd < 0 ? err : strerror(errno));
            goto out;
        }
    }
    struct owned_file pid_file = {0};
    if (o.pid_file)
        snprintf(pid_file.path, sizeof pid_file.path, "%s", o.pid_file);
    if (o.pid_file && owned_file_write_pid(&pid_file, 0644) != 0) {
        fprintf(stderr, "an2switch: --pid-file %s: not a new file or a regular file of ours\n",
                o.pid_file);
        goto out;
    }
    if (o.window_given)
        an2_log("switch %u: %u ports, window %u cells per VC, %s", o.id, o.nports, o.window,
                 o.rate > 0 ? "paced" : "unpaced");
    else
        an2_log("switch %u: %u ports, windows per link from %u to %u cells per VC, %s", o.id,
                 o.nports, AN2_WINDOW_FLOOR, AN2_WINDOW_CAP, o.rate > 0 ? "paced" : "unpaced");
    an2_log("links authenticate with %s", an2_auth_describe(st.auth));
    an2sw_run(&st, sigfd, lfds);
    status = 0;
    owned_file_unlink(&pid_file);
out:
    an2sw_handshakes_free(&st);
    an2_auth_close(st.auth);
    for (unsigned p = 0; st.s.links && p < st.s.nports; p++)
        if (st.s.links[p])
            an2sw_link_remove(&st, p);
    an2sw_calls_free(&st.s);
    an2_switch_destroy(st.s.sw);
    for (unsigned i = 0; i < nl; i++) {
        close(lfds[i]);
        if (an2_net_is_unix(o.listen[i]))
            unlink(o.listen[i] + (o.listen[i][0] == 'u' ? 5 : 4));
    }
    free(st.s.links);
    free(st.announced);
    free(st.writing);
    free(st.faults);
    free(st.windows);
    if (st.control_fd >= 0) {
        close(st.control_fd);
        unlink(o.control);
    }
    if (st.capture && an2_capture_close(st.capture) != 0)
        an2_log("capture %s: close failed", o.capture);
    free(o.port_ber);
    free(o.port_loss);
    free(o.port_rate);
    if (sigfd >= 0)
        close(sigfd);
    if (st.epfd >= 0)
        close(st.epfd);
    return status;
}

