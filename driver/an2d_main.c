/* an2d_main.c — the AN2 daemon: options, single-instance lock, control socket, daemonising,
 * pid and log files; builds the switch, the controller and the driver, then runs the loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "an2.h"
#include "an2_capture.h"
#include "an2_switch.h"
#include "an2d_log.h"
#include "an2d_loop.h"
#include "an2d_rate.h"
#include "an2d_stop.h"
#include "driver.h"
#include "otto.h"

#define EXIT_ALREADY_RUNNING 3 /* the starter treats this as success: an an2d is there */

struct options {
    char socket_path[108];
    char pid_file[PATH_MAX], log_file[PATH_MAX];
    const char *capture;
    double cells_per_second;
    double ber, cell_loss;
    uint64_t fault_seed;
    uint32_t vc_credits;
    bool daemonise, stop;
    struct an2_driver_limits limits;
    uint64_t spin_us, yield_us, pace_spin_us;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: an2d [options]      the AN2 fabric daemon (driver, OTTO controller, switch)\n"
            "  -d, --daemon             detach and run in the background (default: foreground)\n"
            "      --stop               stop the an2d at the socket and wait until it is gone\n"
            "  -s, --socket PATH        control socket (default: $AN2_SOCKET, else\n"
            "                           ${PVM_TMP:-/tmp}/an2d.<uid>[.<PVM_VMID>].sock)\n"
            "      --pid-file PATH      default: socket path with .pid for .sock\n"
            "      --log-file PATH      default: stderr in the foreground, .log when daemonised\n"
            "  -r, --rate RATE          link rate: unpaced (default), oc3, oc12, or linux-atm QoS\n"
            "                           text, e.g. cbr:pcr=100000 or ubr:max_pcr=100Mbps\n"
            "      --capture FILE       write every AAL5 PDU to FILE (gzip pcap, SunATM)\n"
            "      --ber RATE           inject bit errors (per payload bit; default 0)\n"
            "      --cell-loss RATE     inject cell loss (per cell; default 0)\n"
            "      --fault-seed N       seed of the fault injector (default 1)\n"
            "      --buf-size BYTES     default buffer area per task (default 4M)\n"
            "      --max-buf-size BYTES per-task buffer area limit (default 256M)\n"
            "      --max-desc-mem BYTES per-task descriptor memory limit (default 16M)\n"
            "      --vcs N              default VCs per task (default 64)\n"
            "      --max-vcs N          per-task VC limit (default 1024)\n"
            "      --max-clients N      control connections at once (default 1024)\n"
            "      --vc-credits N       switch credit window per VC, in cells (default 64)\n"
            "      --spin-us N, --yield-us N   idle: spin N us (default 0), then yield the\n"
            "                           CPU up to N us (default 3000), then sleep\n"
            "      --pace-spin-us N     spin when paced cells are due within N us (default 50)\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *s == '-')
        return false;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (*end || (shift && v > (ULLONG_MAX >> shift)))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_prob(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= 1))
        return false;
    *out = v;
    return true;
}

static void derived_path(char *out, size_t len, const char *sock, const char *ext)
{
    size_t n = strlen(sock);
    if (n > 5 && strcmp(sock + n - 5, ".sock") == 0)
        n -= 5;
    snprintf(out, len, "%.*s%s", (int)n, sock, ext);
}

static int parse_options(int argc, char **argv, struct options *o)
{
    enum { O_STOP = 256, O_PID, O_LOG, O_CAPTURE, O_BER, O_LOSS, O_SEED, O_BUF, O_MAXBUF,
           O_DESC, O_VCS, O_MAXVCS, O_CLIENTS, O_CREDITS, O_SPIN, O_YIELD, O_PACE_SPIN };
    static const struct option longopts[] = {
        {"daemon", no_argument, 0, 'd'},       {"stop", no_argument, 0, O_STOP},
        {"socket", required_argument, 0, 's'}, {"pid-file", required_argument, 0, O_PID},
        {"log-file", required_argument, 0, O_LOG}, {"rate", required_argument, 0, 'r'},
        {"capture", required_argument, 0, O_CAPTURE}, {"ber", required_argument, 0, O_BER},
        {"cell-loss", required_argument, 0, O_LOSS}, {"fault-seed", required_argument, 0, O_SEED},
        {"buf-size", required_argument, 0, O_BUF}, {"max-buf-size", required_argument, 0, O_MAXBUF},
        {"max-desc-mem", required_argument, 0, O_DESC}, {"vcs", required_argument, 0, O_VCS},
        {"max-vcs", required_argument, 0, O_MAXVCS},
        {"max-clients", required_argument, 0, O_CLIENTS},
        {"vc-credits", required_argument, 0, O_CREDITS},
        {"spin-us", required_argument, 0, O_SPIN}, {"yield-us", required_argument, 0, O_YIELD},
        {"pace-spin-us", required_argument, 0, O_PACE_SPIN},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (struct options){
        .fault_seed = 1, .vc_credits = 64, .spin_us = 0, .yield_us = 3000,
        .pace_spin_us = 50,
        .limits = {.default_buf_size = 4u << 20, .max_buf_size = 256u << 20,
                   .max_desc_mem = 16u << 20, .default_vcs = 64, .max_vcs = 1024,
                   .default_tx_slots = 256, .max_tx_slots = 4096, .default_rx_slots = 64,
                   .max_rx_slots = 1024, .max_clients = 1024},
    };
    const char *socket_opt = NULL, *pid_opt = NULL, *log_opt = NULL;
    bool vcs_given = false, buf_given = false;
    int c;
    while ((c = getopt_long(argc, argv, "ds:r:h", longopts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'd': o->daemonise = true; break;
        case O_STOP: o->stop = true; break;
        case 's': socket_opt = optarg; break;
        case O_PID: pid_opt = optarg; break;
        case O_LOG: log_opt = optarg; break;
        case 'r':
            if (an2d_parse_rate(optarg, &o->cells_per_second) != 0) {
                fprintf(stderr, "an2d: --rate %s: not unpaced, oc3, oc12 or linux-atm QoS text\n",
                        optarg);
                return -1;
            }
            break;
        case O_CAPTURE: o->capture = optarg; break;
        case O_BER: ok = parse_prob(optarg, &o->ber); break;
        case O_LOSS: ok = parse_prob(optarg, &o->cell_loss); break;
        case O_SEED: ok = parse_u64(optarg, &o->fault_seed); break;
        case O_BUF:
            ok = parse_u64(optarg, &o->limits.default_buf_size);
            buf_given = true;
            break;
        case O_MAXBUF: ok = parse_u64(optarg, &o->limits.max_buf_size); break;
        case O_DESC: ok = parse_u64(optarg, &o->limits.max_desc_mem); break;
        case O_VCS:
            ok = parse_u32(optarg, &o->limits.default_vcs);
            vcs_given = true;
            break;
        case O_MAXVCS: ok = parse_u32(optarg, &o->limits.max_vcs); break;
        case O_CLIENTS: ok = parse_u32(optarg, &o->limits.max_clients); break;
        case O_CREDITS: ok = parse_u32(optarg, &o->vc_credits); break;
        case O_SPIN: ok = parse_u64(optarg, &o->spin_us); break;
        case O_YIELD: ok = parse_u64(optarg, &o->yield_us); break;
        case O_PACE_SPIN: ok = parse_u64(optarg, &o->pace_spin_us); break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
        if (!ok) {
            fprintf(stderr, "an2d: bad value '%s' for an option\n", optarg);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "an2d: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    struct an2_driver_limits *L = &o->limits;
    /* a lowered limit lowers the default with it, unless the default was given too */
    if (!vcs_given && L->default_vcs > L->max_vcs)
        L->default_vcs = L->max_vcs;
    if (!buf_given && L->default_buf_size > L->max_buf_size)
        L->default_buf_size = L->max_buf_size;
    if (L->max_clients == 0 || L->max_clients > 65536 || L->default_vcs == 0 ||
        L->default_vcs > L->max_vcs || L->max_vcs > 65535 ||
        L->default_buf_size > L->max_buf_size || o->vc_credits == 0) {
        fprintf(stderr, "an2d: inconsistent limits (defaults must not exceed limits)\n");
        return -1;
    }
    if (socket_opt) {
        if (strlen(socket_opt) >= sizeof o->socket_path) {
            fprintf(stderr, "an2d: socket path too long\n");
            return -1;
        }
        snprintf(o->socket_path, sizeof o->socket_path, "%s", socket_opt);
    } else if (an2_socket_path(o->socket_path, sizeof o->socket_path) != 0) {
        fprintf(stderr, "an2d: control socket path too long (set AN2_SOCKET)\n");
        return -1;
    }
    if (pid_opt)
        snprintf(o->pid_file, sizeof o->pid_file, "%s", pid_opt);
    else
        derived_path(o->pid_file, sizeof o->pid_file, o->socket_path, ".pid");
    if (log_opt)
        snprintf(o->log_file, sizeof o->log_file, "%s", log_opt);
    else if (o->daemonise)
        derived_path(o->log_file, sizeof o->log_file, o->socket_path, ".log");
    return 0;
}

/* Takes the single-instance lock and binds the socket. Returns the listening fd, or -1
 * (errno EWOULDBLOCK: another an2d holds the lock). */
static int claim_socket(const struct options *o, int *lock_fd)
{
    char lock_path[PATH_MAX];
    derived_path(lock_path, sizeof lock_path, o->socket_path, ".lock");
    *lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (*lock_fd < 0) {
        fprintf(stderr, "an2d: %s: %s\n", lock_path, strerror(errno));
        return -1;
    }
    if (flock(*lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(*lock_fd);
        errno = e;
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", o->socket_path);
    unlink(o->socket_path); /* a stale socket of a dead an2d: we hold the lock */
    mode_t old = umask(0077);
    int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (rc != 0 || listen(fd, 128) != 0) {
        fprintf(stderr, "an2d: %s: %s\n", o->socket_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        close(*lock_fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

static void release_socket(const struct options *o, int listen_fd, int lock_fd)
{
    char lock_path[PATH_MAX];
    derived_path(lock_path, sizeof lock_path, o->socket_path, ".lock");
    close(listen_fd);
    unlink(o->socket_path);
    unlink(o->pid_file);
    unlink(lock_path); /* still locked: a new an2d makes a fresh lock file */
    close(lock_fd);
}

static int add_fd(int epfd, int fd, uint64_t tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = tag};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Builds everything and runs; returns the exit status. ready_fd (or -1) gets one status
 * byte once the daemon serves, for the process that started it. */
static int serve(const struct options *o, int listen_fd, int ready_fd)
{
    int status = 1;
    struct an2_switch *sw = NULL;
    struct an2_capture *cap = NULL;
    struct otto *otto = NULL;
    struct an2_driver *drv = NULL;
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct an2d_loop L = {.listen_fd = listen_fd, .ctl_period_ns = 100000,
                          .spin_ns = o->spin_us * 1000, .yield_ns = o->yield_us * 1000,
                          .pace_spin_ns = o->pace_spin_us * 1000};
    L.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    L.signal_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (L.epoll_fd < 0 || L.signal_fd < 0 || add_fd(L.epoll_fd, listen_fd, AN2D_EV_LISTEN) ||
        add_fd(L.epoll_fd, L.signal_fd, AN2D_EV_SIGNAL)) {
        an2d_log("setup: %s", strerror(errno));
        goto out;
    }
    drv = an2_driver_create(&o->limits, L.epoll_fd, o->cells_per_second);
    struct an2_switch_config sc = {.nports = 1, .vc_credit_cells = o->vc_credits,
                                   .cells_per_second = o->cells_per_second};
    sw = drv ? an2_switch_create(&sc) : NULL;
    if (!sw) {
        an2d_log("cannot create the switch: %s", strerror(errno));
        goto out;
    }
    if (o->capture && !(cap = an2_capture_open(o->capture))) {
        an2d_log("--capture %s: %s", o->capture, strerror(errno));
        goto out;
    }
    struct otto_config oc = {.cells_per_second = o->cells_per_second, .bit_error_rate = o->ber,
                             .cell_loss_rate = o->cell_loss, .fault_seed = o->fault_seed,
                             .capture = cap, .interrupt = an2_driver_interrupt,
                             .interrupt_ctx = drv};
    otto = otto_create(&oc, sw, 0);
    if (!otto) {
        an2d_log("cannot create the controller: %s", strerror(errno));
        goto out;
    }
    an2_driver_set_hardware(drv, otto, sw);
    L.otto = otto;
    L.drv = drv;

    FILE *pf = fopen(o->pid_file, "w");
    if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf) != 0) {
        an2d_log("pid file %s: %s", o->pid_file, strerror(errno));
        goto out;
    }
    if (o->cells_per_second > 0)
        an2d_log("serving at %s, link rate %.1f cells/s", o->socket_path, o->cells_per_second);
    else
        an2d_log("serving at %s, link unpaced", o->socket_path);
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
    an2_driver_destroy(drv); /* every task's VCs and portion go before the hardware */
    if (otto)
        otto_destroy(otto);
    if (sw)
        an2_switch_destroy(sw);
    if (cap && an2_capture_close(cap) != 0)
        an2d_log("capture %s: close failed", o->capture);
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
    an2d_log("stopped");
    return status;
}

/* Forks; the parent waits for the child's readiness byte and exits with its verdict. */
static int daemonise(const struct options *o, int *ready_fd)
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
    int log_fd = open(o->log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (null_fd < 0 || log_fd < 0)
        return -1;
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(log_fd, 2);
    close(null_fd);
    close(log_fd);
    return 0;
}

int main(int argc, char **argv)
{
    /* A task that starts us may leak descriptors (PVM sockets, pipes): hold none of them. */
    close_range(3, ~0u, 0);
    struct options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    if (o.stop) {
        int rc = an2d_stop(o.socket_path, 10000);
        if (rc == -ENOENT || rc == -ECONNREFUSED) {
            fprintf(stderr, "an2d: no an2d listening at %s\n", o.socket_path);
            return 1;
        }
        if (rc != 0) {
            fprintf(stderr, "an2d: stopping the an2d at %s: %s\n", o.socket_path, strerror(-rc));
            return 1;
        }
        return 0;
    }
    int lock_fd;
    int listen_fd = claim_socket(&o, &lock_fd);
    if (listen_fd < 0) {
        if (errno == EWOULDBLOCK) {
            fprintf(stderr, "an2d: an an2d already serves %s\n", o.socket_path);
            return EXIT_ALREADY_RUNNING;
        }
        return 1;
    }
    int ready_fd = -1;
    if (o.daemonise && daemonise(&o, &ready_fd) != 0) {
        fprintf(stderr, "an2d: cannot daemonise: %s\n", strerror(errno));
        release_socket(&o, listen_fd, lock_fd);
        return 1;
    }
    if (!o.daemonise && o.log_file[0]) {
        int log_fd = open(o.log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (log_fd < 0) {
            fprintf(stderr, "an2d: %s: %s\n", o.log_file, strerror(errno));
            release_socket(&o, listen_fd, lock_fd);
            return 1;
        }
        an2d_log_set_fd(log_fd);
    }
    int status = serve(&o, listen_fd, ready_fd);
    release_socket(&o, listen_fd, lock_fd);
    return status;
}
