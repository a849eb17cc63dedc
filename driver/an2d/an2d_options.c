/* an2d_options.c — an2d's command line: its usage text, and the options parsed and checked
 * into struct an2d_options (limits, rates and faults, paths, the system an2d's rules). */
#include "an2d_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "an2.h"
#include "an2_credit_window.h"
#include "an2_sockpath.h"
#include "link_rate.h"
#include "number_parse.h"

#define DEFAULT_MAX_CLIENTS 1024u
#define AN2_FABRIC_CREDITS AN2_WINDOW_FLOOR /* --switch: the uplink's window to start with */

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
            "                           [IPv6]:PORT, unix:PATH; shm:PATH, the link in shared\n"
            "                           memory; ofi:HOST:PORT, the link over libfabric;\n"
            "                           default $AN2_SWITCH, else\n"
            "                           none: this host alone, with its own switch)\n"
            "      --auth SPEC          how the uplink proves itself to the switch and checks\n"
            "                           it: key:FILE or munge[:SOCKET], as the switch's --auth\n"
            "                           (default $AN2_AUTH; required with --switch)\n"
            "      --lookup-ms MS       on a fabric, how long a name's look-up waits for its\n"
            "                           holder's answer (1 to 60000; default 300)\n"
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

int an2d_parse_options(int argc, char **argv, struct an2d_options *o)
{
    enum { O_STOP = 256, O_PID, O_LOG, O_CAPTURE, O_BER, O_LOSS, O_SEED, O_BUF, O_MAXBUF,
           O_DESC, O_VCS, O_MAXVCS, O_CLIENTS, O_CREDITS, O_SPIN, O_YIELD, O_PACE_SPIN, O_HOLD,
           O_IDLE_EXIT, O_KEEP_LOG, O_SWITCH, O_SYSTEM, O_SOCKET_DIR, O_ALLOW_VC,
           O_USER_CLIENTS, O_USER_EPS, O_USER_VCS, O_USER_MEM, O_LOOKUP, O_AUTH };
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
        {"lookup-ms", required_argument, 0, O_LOOKUP},
        {"auth", required_argument, 0, O_AUTH},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (struct an2d_options){
        .fault_seed = 1, .vc_credits = 64, .spin_us = 0, .yield_us = 3000,
        .pace_spin_us = 50, .hold_us = 50,
        .limits = {.default_buf_size = 4u << 20, .max_buf_size = 256u << 20,
                   .max_desc_mem = 16u << 20, .default_vcs = 64, .max_vcs = 1024,
                   .default_tx_slots = 256, .max_tx_slots = 4096, .default_rx_slots = 64,
                   .max_rx_slots = 1024, .max_clients = DEFAULT_MAX_CLIENTS,
                   .max_user_clients = 256, .max_user_endpoints = 256,
                   .max_user_vc_ends = 4096, .max_user_mem = 1ull << 30, .lookup_ms = 300},
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
        case O_AUTH: o->auth = optarg; break;
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
        case O_LOOKUP:
            ok = parse_quantity_u32(optarg, &o->limits.lookup_ms) && o->limits.lookup_ms >= 1 &&
                 o->limits.lookup_ms <= 60000;
            break;
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
    if (!o->auth && getenv("AN2_AUTH") && *getenv("AN2_AUTH"))
        o->auth = getenv("AN2_AUTH");
    if (o->switch_addr && !o->auth && !o->stop) {
        fprintf(stderr, "an2d: --switch: the link must authenticate: give --auth key:FILE or "
                        "--auth munge (or set AN2_AUTH)\n");
        return -1;
    }
    if (o->system && socket_opt) {
        fprintf(stderr, "an2d: --system takes --socket-dir, not --socket\n");
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
