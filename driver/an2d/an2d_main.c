/* an2d_main.c — the AN2 daemon: options, daemonising, descriptor budget; builds the switch,
 * the controller and the driver around the control socket (its own, or one passed by socket
 * activation), then runs the loop. One per user by default, or the system one for all. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "an2d_stop.h"
#include "an2d_uplink.h"
#include "driver.h"
#include "link_rate.h"
#include "number_parse.h"
#include "otto.h"

#define EXIT_ALREADY_RUNNING 3 /* the starter treats this as success: an an2d is there */

#define FDS_PER_CLIENT 3    /* control socket, kick and interrupt eventfds */
#define FDS_RESERVED 32     /* an2d's own: stdio, epoll, signalfd, lock, log, capture, ... */
#define DEFAULT_MAX_CLIENTS 1024u
#define AN2_FABRIC_CREDITS AN2_WINDOW_FLOOR /* --switch: the uplink's window to start with */

struct options {
    struct an2d_files files;  /* socket, pid and log paths */
    bool log_derived;         /* the log is the default one beside the socket */
    bool keep_log;            /* ... and stays after a clean stop */
    uint64_t idle_exit_s;     /* stop after this long without a client; 0: never */
    bool max_clients_given;
    const char *capture;
    double cells_per_second;
    double ber, cell_loss;
    uint64_t fault_seed;
    uint32_t vc_credits;
    bool derive_window;           /* the uplink's window from its round trip (no --vc-credits) */
    bool daemonise, stop;
    bool system;              /* --system: serves every uid (limits.multiuser) */
    int activated_fd;         /* the listening socket socket activation passed, or -1 */
    struct an2_driver_limits limits;
    uint64_t spin_us, yield_us, pace_spin_us, hold_us;
    const char *switch_addr;  /* the fabric's switch, or NULL: this host alone */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: an2d [options]      the AN2 fabric daemon (driver, OTTO controller, switch)\n"
            "  -d, --daemon             detach and run in the background (default: foreground)\n"
            "      --stop               stop the an2d at the socket and wait until it is gone\n"
            "      --system             the system an2d, serving every user (root only): at\n"
            "                           DIR/an2d.sock, or on the socket passed by systemd's\n"
            "                           socket activation (LISTEN_FDS)\n"
            "      --socket-dir DIR     the system an2d's directory (default $AN2_SYSTEM_DIR,\n"
            "                           else /run/an2d); root's, writable by root alone\n"
            "      --allow-vc UID:UID   system an2d: these two uids may open VCs to each\n"
            "                           other (repeatable; default: a VC joins one uid)\n"
            "      --max-user-clients N, --max-user-endpoints N, --max-user-vcs N (VC ends),\n"
            "      --max-user-mem BYTES  system an2d: limits of each uid (default 256, 256,\n"
            "                           4096, 1G)\n"
            "  -s, --socket PATH        control socket (default: $AN2_SOCKET, else\n"
            "                           ${PVM_TMP:-/tmp}/an2d.<uid>[.<PVM_VMID>]/an2d.sock)\n"
            "      --pid-file PATH      default: socket path with .pid for .sock\n"
            "      --log-file PATH      default: stderr in the foreground, .log when daemonised\n"
            "      --keep-log           keep the daemon's default log after a clean stop\n"
            "      --idle-exit SECONDS  stop after SECONDS with no client (default 0: never;\n"
            "                           an an2d a task starts gets $AN2D_IDLE_EXIT, else 60)\n"
            "  -r, --rate RATE          link rate: unpaced (default), oc3, oc12, or linux-atm QoS\n"
            "                           text, e.g. cbr:pcr=100000 or ubr:max_pcr=100Mbps\n"
            "      --switch ADDR        attach this host to the AN2 switch at ADDR (HOST:PORT,\n"
            "                           [IPv6]:PORT or unix:PATH; default $AN2_SWITCH, else\n"
            "                           none: this host alone, with its own switch)\n"
            "      --capture FILE       write every AAL5 PDU to FILE (gzip pcap, SunATM)\n"
            "      --ber RATE           inject bit errors (per payload bit; default 0)\n"
            "      --cell-loss RATE     inject cell loss (per cell; default 0)\n"
            "      --fault-seed N       seed of the fault injector (default 1)\n"
            "      --buf-size BYTES     default buffer area per task (default 4M)\n"
            "      --max-buf-size BYTES per-task buffer area limit (default 256M)\n"
            "      --max-desc-mem BYTES per-task descriptor memory limit (default 16M)\n"
            "      --vcs N              default VCs per task (default 64)\n"
            "      --max-vcs N          per-task VC limit (default 1024)\n"
            "      --max-clients N      control connections at once (default 1024, fewer if\n"
            "                           RLIMIT_NOFILE does not allow 3 descriptors each)\n"
            "      --vc-credits N       switch credit window per VC, in cells (default 64; with\n"
            "                           --switch the uplink's, from its round trip times its\n"
            "                           rate, 2048 to 16384)\n"
            "      --spin-us N, --yield-us N   idle: spin N us (default 0), then yield the\n"
            "                           CPU up to N us (default 3000), then sleep\n"
            "      --pace-spin-us N     spin when paced cells are due within N us (default 50)\n"
            "      --hold-us N          idle: keep the CPU for a task polling on it at most N\n"
            "                           us after the last work, then yield (default 50)\n");
}

static int parse_options(int argc, char **argv, struct options *o)
{
    enum { O_STOP = 256, O_PID, O_LOG, O_CAPTURE, O_BER, O_LOSS, O_SEED, O_BUF, O_MAXBUF,
           O_DESC, O_VCS, O_MAXVCS, O_CLIENTS, O_CREDITS, O_SPIN, O_YIELD, O_PACE_SPIN, O_HOLD,
           O_IDLE_EXIT, O_KEEP_LOG, O_SWITCH, O_SYSTEM, O_SOCKET_DIR, O_ALLOW_VC,
           O_USER_CLIENTS, O_USER_EPS, O_USER_VCS, O_USER_MEM };
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
        {"hold-us", required_argument, 0, O_HOLD},
        {"idle-exit", required_argument, 0, O_IDLE_EXIT},
        {"keep-log", no_argument, 0, O_KEEP_LOG},
        {"switch", required_argument, 0, O_SWITCH},
        {"system", no_argument, 0, O_SYSTEM},
        {"socket-dir", required_argument, 0, O_SOCKET_DIR},
        {"allow-vc", required_argument, 0, O_ALLOW_VC},
        {"max-user-clients", required_argument, 0, O_USER_CLIENTS},
        {"max-user-endpoints", required_argument, 0, O_USER_EPS},
        {"max-user-vcs", required_argument, 0, O_USER_VCS},
        {"max-user-mem", required_argument, 0, O_USER_MEM},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (struct options){
        .fault_seed = 1, .vc_credits = 64, .spin_us = 0, .yield_us = 3000,
        .pace_spin_us = 50, .hold_us = 50,
        .limits = {.default_buf_size = 4u << 20, .max_buf_size = 256u << 20,
                   .max_desc_mem = 16u << 20, .default_vcs = 64, .max_vcs = 1024,
                   .default_tx_slots = 256, .max_tx_slots = 4096, .default_rx_slots = 64,
                   .max_rx_slots = 1024, .max_clients = DEFAULT_MAX_CLIENTS,
                   .max_user_clients = 256, .max_user_endpoints = 256,
                   .max_user_vc_ends = 4096, .max_user_mem = 1ull << 30},
        .activated_fd = -1,
    };
    const char *socket_opt = NULL, *pid_opt = NULL, *log_opt = NULL, *dir_opt = NULL;
    bool vcs_given = false, buf_given = false, credits_given = false;
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
            if (an2_parse_rate(optarg, &o->cells_per_second) != 0) {
                fprintf(stderr, "an2d: --rate %s: not unpaced, oc3, oc12 or linux-atm QoS text\n",
                        optarg);
                return -1;
            }
            break;
        case O_CAPTURE: o->capture = optarg; break;
        case O_BER: ok = an2_parse_probability(optarg, &o->ber) == 0; break;
        case O_LOSS: ok = an2_parse_probability(optarg, &o->cell_loss) == 0; break;
        case O_SEED: ok = parse_quantity_u64(optarg, &o->fault_seed); break;
        case O_BUF:
            ok = parse_quantity_u64(optarg, &o->limits.default_buf_size);
            buf_given = true;
            break;
        case O_MAXBUF: ok = parse_quantity_u64(optarg, &o->limits.max_buf_size); break;
        case O_DESC: ok = parse_quantity_u64(optarg, &o->limits.max_desc_mem); break;
        case O_VCS:
            ok = parse_quantity_u32(optarg, &o->limits.default_vcs);
            vcs_given = true;
            break;
        case O_MAXVCS: ok = parse_quantity_u32(optarg, &o->limits.max_vcs); break;
        case O_CLIENTS:
            ok = parse_quantity_u32(optarg, &o->limits.max_clients);
            o->max_clients_given = true;
            break;
        case O_CREDITS:
            ok = parse_quantity_u32(optarg, &o->vc_credits);
            credits_given = true;
            break;
        case O_SPIN: ok = parse_quantity_u64(optarg, &o->spin_us); break;
        case O_YIELD: ok = parse_quantity_u64(optarg, &o->yield_us); break;
        case O_PACE_SPIN: ok = parse_quantity_u64(optarg, &o->pace_spin_us); break;
        case O_HOLD: ok = parse_quantity_u64(optarg, &o->hold_us); break;
        case O_IDLE_EXIT:
            ok = parse_quantity_u64(optarg, &o->idle_exit_s) && o->idle_exit_s < 1u << 30;
            break;
        case O_KEEP_LOG: o->keep_log = true; break;
        case O_SWITCH: o->switch_addr = optarg; break;
        case O_SYSTEM: o->system = true; break;
        case O_SOCKET_DIR: dir_opt = optarg; break;
        case O_ALLOW_VC: {
            struct an2_driver_limits *L = &o->limits;
            unsigned a, b;
            char tail;
            ok = L->nallow < sizeof L->allow_vc / sizeof L->allow_vc[0] &&
                 sscanf(optarg, "%u:%u%c", &a, &b, &tail) == 2;
            if (ok) {
                L->allow_vc[L->nallow].a = a;
                L->allow_vc[L->nallow++].b = b;
            }
            break;
        }
        case O_USER_CLIENTS: ok = parse_quantity_u32(optarg, &o->limits.max_user_clients); break;
        case O_USER_EPS: ok = parse_quantity_u32(optarg, &o->limits.max_user_endpoints); break;
        case O_USER_VCS: ok = parse_quantity_u32(optarg, &o->limits.max_user_vc_ends); break;
        case O_USER_MEM: ok = parse_quantity_u64(optarg, &o->limits.max_user_mem); break;
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
    if (!o->switch_addr && getenv("AN2_SWITCH") && *getenv("AN2_SWITCH") && !o->system)
        o->switch_addr = getenv("AN2_SWITCH");
    if (o->system && (socket_opt || o->switch_addr)) {
        /* (the fabric's signalling carries no uid: across hosts nothing could be checked) */
        fprintf(stderr, "an2d: --system takes --socket-dir, not --socket; and no --switch: "
                        "VCs across hosts would carry no uid to check\n");
        return -1;
    }
    if (!o->system && (dir_opt || o->limits.nallow)) {
        fprintf(stderr, "an2d: --socket-dir and --allow-vc are for the system an2d (--system)\n");
        return -1;
    }
    if (o->system && !o->stop && geteuid() != 0) {
        fprintf(stderr, "an2d: --system serves every user and must run as root\n");
        return -1;
    }
    o->limits.multiuser = o->system;
    o->files.system = o->system;
    /* across hosts a VC's credits must cover a link's round trip (hundreds of microseconds
     * here, with the processes' wake-ups) at its rate, and a whole 64 KiB PDU (1366 cells):
     * the uplink's window is derived from its measured round trip (an2_credit_window.h) */
    if (o->switch_addr && !credits_given) {
        o->vc_credits = AN2_FABRIC_CREDITS;
        o->derive_window = true;
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
    struct an2d_files *f = &o->files;
    if (o->system) {
        if (dir_opt)
            snprintf(f->sock.path, sizeof f->sock.path, "%s/an2d.sock", dir_opt);
        if (dir_opt ? strlen(dir_opt) + 10 >= sizeof(((struct sockaddr_un *)0)->sun_path)
                    : an2_system_socket_path(f->sock.path, sizeof f->sock.path) != 0) {
            fprintf(stderr, "an2d: --socket-dir: path too long\n");
            return -1;
        }
    } else if (socket_opt) {
        if (strlen(socket_opt) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
            fprintf(stderr, "an2d: socket path too long\n");
            return -1;
        }
        snprintf(f->sock.path, sizeof f->sock.path, "%s", socket_opt);
    } else if (an2_socket_path(f->sock.path, sizeof f->sock.path) != 0) {
        fprintf(stderr, "an2d: control socket path too long (set AN2_SOCKET)\n");
        return -1;
    }
    if (pid_opt)
        snprintf(f->pid.path, sizeof f->pid.path, "%s", pid_opt);
    else
        an2d_derived_path(f->pid.path, sizeof f->pid.path, f->sock.path, ".pid");
    if (log_opt)
        snprintf(f->log.path, sizeof f->log.path, "%s", log_opt);
    else if (o->daemonise)
        an2d_derived_path(f->log.path, sizeof f->log.path, f->sock.path, ".log");
    o->log_derived = !log_opt && o->daemonise;
    return 0;
}

/* Every client holds FDS_PER_CLIENT descriptors: raise the soft RLIMIT_NOFILE to the hard
 * one, then fit the client limit in it (or refuse a --max-clients that does not fit), so
 * that an2d never runs out of descriptors before it refuses a client. */
static int fit_descriptor_budget(struct options *o)
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
static int serve(struct options *o, int listen_fd, int ready_fd)
{
    int status = 1;
    struct an2_switch *sw = NULL;
    struct an2_capture *cap = NULL;
    struct otto *otto = NULL;
    struct an2_driver *drv = NULL;
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
static int daemonise(struct options *o, int *ready_fd)
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
static int serve_activated(struct options *o)
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
    struct options o;
    if (parse_options(argc, argv, &o) != 0)
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
