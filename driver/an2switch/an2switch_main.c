/* an2switch_main.c — the standalone AN2 switch: options, its links (hosts' an2d and trunks to
 * other switches, over TCP or Unix sockets), pid/log files, and its event loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
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
#include "an2_clock.h"
#include "an2_credit_window.h"
#include "an2_link.h"
#include "an2_log.h"
#include "an2_netaddr.h"
#include "an2_switch.h"
#include "an2switch.h"
#include "fault_inject.h"
#include "link_rate.h"
#include "number_parse.h"
#include "owned_file.h"

#define MAX_LISTEN 8
#define MAX_TRUNKS 16
#define EV_SIGNAL 1u
#define EV_LISTEN 2u                /* + index */
#define EV_CONTROL 3u
#define EV_LINK 64u                 /* + port */
#define TRUNK_RETRY_NS 1000000000ull
#define SPIN_US 0                   /* after progress, look again without yielding this long
                                     * (none: the an2d that takes what we forwarded may be
                                     * waiting for this very CPU), */
#define YIELD_US 3000               /* then yielding the CPU between looks this long (as an2d:
                                     * a wake-up from epoll is most of a hop's latency here) */

struct trunk {
    const char *spec;
    int port;                       /* -1 while not connected */
    uint64_t next_try_ns;
    bool warned;
};

struct options {
    uint32_t id, nports, window, keepalive_ms;
    uint32_t spin_us, yield_us;     /* idling after progress: spin, then yield, then sleep */
    double rate;
    double *port_rate;              /* by port; < 0: the default */
    double ber, loss;               /* faults on every link (received cells) */
    double *port_ber, *port_loss;   /* by port; < 0: the default */
    uint64_t fault_seed;
    const char *capture;
    const char *listen[MAX_LISTEN];
    unsigned nlisten;
    struct trunk trunks[MAX_TRUNKS];
    unsigned ntrunks;
    const char *pid_file, *log_file, *control;
    bool stop;
    bool window_given;              /* --vc-credits: every link's window, fixed */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: an2switch [options]   a standalone AN2 switch joining hosts' an2d and other\n"
            "                             switches by links over TCP (or Unix sockets)\n"
            "  -l, --listen ADDR      accept links at ADDR: HOST:PORT, [IPv6]:PORT, :PORT (all\n"
            "                         addresses) or unix:PATH; repeatable\n"
            "  -t, --trunk ADDR       keep a trunk to the switch at ADDR (retried every second)\n"
            "  -i, --id N             this switch's id, 1..255 (default 1): hosts on port P get\n"
            "                         the address N.P\n"
            "  -p, --ports N          ports (default 16, at most 255)\n"
            "  -r, --rate RATE        rate of every link out of the switch: unpaced (default),\n"
            "                         oc3, oc12, or linux-atm QoS text (cbr:pcr=..., ubr:max_pcr=...)\n"
            "      --port-rate P=RATE the rate of port P's link\n"
            "      --ber RATE         inject bit errors into the cells received on every link\n"
            "                         (per payload bit; default 0)\n"
            "      --cell-loss RATE   inject loss of received cells on every link (per cell)\n"
            "      --port-faults P=BER,LOSS  the faults of port P's link\n"
            "      --fault-seed N     seed of the fault injectors (default 1)\n"
            "      --capture FILE     write every PDU the switch receives to FILE (gzip pcap,\n"
            "                         SunATM: tshark -r FILE), with its VPI/VCI on that link\n"
            "      --vc-credits N     cells buffered per VC and link: the credit window, fixed\n"
            "                         (default: each link's, from its measured round trip times\n"
            "                         its rate, 2048 (a 64 KiB PDU and half) to 16384 cells)\n"
            "      --keepalive-ms N   keepalive period (default 200; a link silent 3 periods is\n"
            "                         down)\n"
            "      --spin-us N        after traffic, poll without yielding the CPU this long\n"
            "                         (default %u)\n"
            "      --yield-us N       then poll yielding the CPU between looks up to this long\n"
            "                         before sleeping in epoll (default %u)\n"
            "      --control PATH     answer an2stat --switch PATH there (a new Unix socket)\n"
            "      --pid-file PATH    write our pid there (a new file, or one of ours)\n"
            "      --log-file PATH    log there (default stderr)\n"
            "      --stop             stop the switch whose pid file is --pid-file, and wait\n",
            SPIN_US, YIELD_US);
}

static int parse_options(int argc, char **argv, struct options *o)
{
    enum { O_PORT_RATE = 256, O_CREDITS, O_KEEPALIVE, O_PID, O_LOG, O_STOP, O_BER, O_LOSS,
           O_PORT_FAULTS, O_SEED, O_CAPTURE, O_CONTROL, O_SPIN, O_YIELD };
    static const struct option longopts[] = {
        {"listen", required_argument, 0, 'l'}, {"trunk", required_argument, 0, 't'},
        {"id", required_argument, 0, 'i'},     {"ports", required_argument, 0, 'p'},
        {"rate", required_argument, 0, 'r'},   {"port-rate", required_argument, 0, O_PORT_RATE},
        {"vc-credits", required_argument, 0, O_CREDITS},
        {"keepalive-ms", required_argument, 0, O_KEEPALIVE},
        {"pid-file", required_argument, 0, O_PID}, {"log-file", required_argument, 0, O_LOG},
        {"stop", no_argument, 0, O_STOP},      {"help", no_argument, 0, 'h'},
        {"ber", required_argument, 0, O_BER},  {"cell-loss", required_argument, 0, O_LOSS},
        {"port-faults", required_argument, 0, O_PORT_FAULTS},
        {"fault-seed", required_argument, 0, O_SEED},
        {"capture", required_argument, 0, O_CAPTURE},
        {"control", required_argument, 0, O_CONTROL},
        {"spin-us", required_argument, 0, O_SPIN}, {"yield-us", required_argument, 0, O_YIELD},
        {0, 0, 0, 0}};
    *o = (struct options){.id = 1, .nports = 16, .window = AN2_WINDOW_FLOOR, .keepalive_ms = 200,
                          .fault_seed = 1, .spin_us = SPIN_US, .yield_us = YIELD_US};
    const char *port_rates[64], *port_faults[64];
    unsigned nport_rates = 0, nport_faults = 0;
    int c;
    while ((c = getopt_long(argc, argv, "l:t:i:p:r:h", longopts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'l':
            ok = o->nlisten < MAX_LISTEN;
            if (ok)
                o->listen[o->nlisten++] = optarg;
            break;
        case 't':
            ok = o->ntrunks < MAX_TRUNKS;
            if (ok)
                o->trunks[o->ntrunks++] = (struct trunk){.spec = optarg, .port = -1};
            break;
        case 'i': ok = parse_decimal_u32(optarg, 1, 255, &o->id); break;
        case 'p': ok = parse_decimal_u32(optarg, 1, 255, &o->nports); break;
        case 'r': ok = an2_parse_rate(optarg, &o->rate) == 0; break;
        case O_PORT_RATE:
            ok = nport_rates < 64 && strchr(optarg, '=');
            if (ok)
                port_rates[nport_rates++] = optarg;
            break;
        case O_CREDITS:
            ok = parse_decimal_u32(optarg, 1, 1u << 16, &o->window);
            o->window_given = true;
            break;
        case O_BER: ok = an2_parse_probability(optarg, &o->ber) == 0; break;
        case O_LOSS: ok = an2_parse_probability(optarg, &o->loss) == 0; break;
        case O_PORT_FAULTS:
            ok = nport_faults < 64 && strchr(optarg, '=');
            if (ok)
                port_faults[nport_faults++] = optarg;
            break;
        case O_SEED: {
            char *end;
            o->fault_seed = strtoull(optarg, &end, 0);
            ok = *optarg && !*end;
            break;
        }
        case O_CAPTURE: o->capture = optarg; break;
        case O_CONTROL: o->control = optarg; break;
        case O_KEEPALIVE: ok = parse_decimal_u32(optarg, 10, 10000, &o->keepalive_ms); break;
        case O_SPIN: ok = parse_decimal_u32(optarg, 0, 1000000, &o->spin_us); break;
        case O_YIELD: ok = parse_decimal_u32(optarg, 0, 1000000, &o->yield_us); break;
        case O_PID: o->pid_file = optarg; break;
        case O_LOG: o->log_file = optarg; break;
        case O_STOP: o->stop = true; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
        if (!ok) {
            fprintf(stderr, "an2switch: bad value '%s' for -%c%s\n", optarg,
                    c < 256 ? c : '-', c < 256 ? "" : " (see --help)");
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "an2switch: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (o->stop) {
        if (!o->pid_file) {
            fprintf(stderr, "an2switch: --stop needs --pid-file\n");
            return -1;
        }
        return 0;
    }
    if (!o->nlisten && !o->ntrunks) {
        fprintf(stderr, "an2switch: nothing to do: give --listen or --trunk\n");
        return -1;
    }
    if (o->ntrunks > o->nports) {
        fprintf(stderr, "an2switch: more trunks than ports\n");
        return -1;
    }
    o->port_rate = malloc(o->nports * sizeof *o->port_rate);
    o->port_ber = malloc(o->nports * sizeof *o->port_ber);
    o->port_loss = malloc(o->nports * sizeof *o->port_loss);
    if (!o->port_rate || !o->port_ber || !o->port_loss)
        return -1;
    for (unsigned p = 0; p < o->nports; p++)
        o->port_rate[p] = o->port_ber[p] = o->port_loss[p] = -1;
    for (unsigned i = 0; i < nport_faults; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", port_faults[i]);
        char *eq = strchr(buf, '='), *comma = strchr(buf, ',');
        *eq = 0;
        uint32_t port;
        if (!comma || comma < eq || !parse_decimal_u32(buf, 0, o->nports - 1, &port) ||
            (*comma = 0, an2_parse_probability(eq + 1, &o->port_ber[port])) ||
            an2_parse_probability(comma + 1, &o->port_loss[port])) {
            fprintf(stderr, "an2switch: --port-faults %s: not PORT=BER,LOSS with PORT < %u\n",
                    port_faults[i], o->nports);
            return -1;
        }
    }
    for (unsigned i = 0; i < nport_rates; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", port_rates[i]);
        char *eq = strchr(buf, '=');
        *eq = 0;
        uint32_t port;
        double r;
        if (!parse_decimal_u32(buf, 0, o->nports - 1, &port) || an2_parse_rate(eq + 1, &r) != 0) {
            fprintf(stderr, "an2switch: --port-rate %s: not PORT=RATE with PORT < %u\n",
                    port_rates[i], o->nports);
            return -1;
        }
        o->port_rate[port] = r;
    }
    return 0;
}

/* ---- pid file ---- */

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

/* ---- links ---- */

struct state {
    struct an2sw s;
    struct options *o;
    int epfd;
    bool *announced;                /* by port: its link's HELLO was logged */
    bool *writing;                  /* by port: EPOLLOUT is on */
    struct fault_inject *faults;    /* by port */
    struct an2_credit_window *windows;  /* by port: derived from its link's round trip */
    struct an2_capture *capture;
    int control_fd;
    uint64_t start_ns;
    uint64_t accept_paused_until;   /* out of descriptors: not listening until then */
};

static void link_sig(void *ctx, struct an2_link *link, const struct an2_sig_msg *m)
{
    struct state *st = ctx;
    an2sw_on_sig(&st->s, an2_link_port(link), m, an2_now_ns());
}

static void link_down_cb(void *ctx, struct an2_link *link, const char *why)
{
    (void)ctx;
    static struct an2_log_limit limit;
    an2_log_limited(&limit, "port %u: link down: %s", an2_link_port(link), why);
}

static int free_port(const struct state *st)
{
    for (unsigned p = 0; p < st->s.nports; p++)
        if (!st->s.links[p])
            return (int)p;
    return -1;
}

static void add_link(struct state *st, int fd, uint64_t now)
{
    int port = free_port(st);
    if (port < 0) {
        static struct an2_log_limit limit;
        an2_log_limited(&limit, "a link arrived but all %u ports are in use: closed",
                         st->s.nports);
        close(fd);
        return;
    }
    double ber = st->o->port_ber[port] >= 0 ? st->o->port_ber[port] : st->o->ber;
    double loss = st->o->port_loss[port] >= 0 ? st->o->port_loss[port] : st->o->loss;
    struct fault_inject *faults = &st->faults[port];
    fault_inject_init(faults, ber, loss, st->o->fault_seed + (uint64_t)port);
    struct an2_link_config cfg = {
        .faults = fault_inject_enabled(faults) ? faults : NULL, .capture = st->capture,
        .fd = fd, .sw = st->s.sw, .port = (unsigned)port, .role = AN2_FIBER_ROLE_SWITCH,
        .switch_id = st->s.id, .host_addr = an2_host_addr(st->s.id, (uint32_t)port),
        .window = st->o->window_given ? st->o->window : AN2_WINDOW_CAP,
        .window_start = st->o->window_given ? 0 : AN2_WINDOW_FLOOR,
        .keepalive_ms = st->o->keepalive_ms,
        .on_sig = link_sig, .on_down = link_down_cb, .ctx = st};
    struct an2_link *l = an2_link_create(&cfg, now);
    if (!l) {
        an2_log("port %d: cannot start a link: %s", port, strerror(errno));
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_LINK + (unsigned)port};
    if (epoll_ctl(st->epfd, EPOLL_CTL_ADD, an2_link_fd(l), &ev)) {
        an2_log("port %d: epoll: %s", port, strerror(errno));
        an2_link_destroy(l);
        return;
    }
    double rate = st->o->port_rate[port] >= 0 ? st->o->port_rate[port] : st->o->rate;
    an2_switch_port_set_rate(st->s.sw, (unsigned)port, rate);
    st->s.links[port] = l;
    st->announced[port] = st->writing[port] = false;
    an2_credit_window_init(&st->windows[port]);
}

static void remove_link(struct state *st, unsigned port)
{
    struct an2_link *l = st->s.links[port];
    an2sw_port_down(&st->s, port);
    epoll_ctl(st->epfd, EPOLL_CTL_DEL, an2_link_fd(l), NULL);
    an2_link_destroy(l);
    st->s.links[port] = NULL;
    for (unsigned i = 0; i < st->o->ntrunks; i++)
        if (st->o->trunks[i].port == (int)port)
            st->o->trunks[i].port = -1;
}

static void announce(struct state *st, unsigned port)
{
    struct an2_link_info info;
    an2_link_info(st->s.links[port], &info);
    st->announced[port] = true;
    if (info.peer_role == AN2_FIBER_ROLE_HOST)
        an2_log("port %u: host %u.%u up (its window up to %u cells)", port, st->s.id, port,
                 info.peer_window);
    else
        an2_log("port %u: trunk to switch %u (its port %u) up", port, info.peer_switch_id,
                 info.peer_port);
}

static double port_rate(const struct state *st, unsigned port)
{
    return st->o->port_rate[port] >= 0 ? st->o->port_rate[port] : st->o->rate;
}

/* Unless --vc-credits fixed it, port's window follows its link's round trip times its rate
 * (the peer is taken to send at the rate we send at). */
static void window_update(struct state *st, unsigned port)
{
    struct an2_link_info li;
    an2_link_info(st->s.links[port], &li);
    double rate = port_rate(st, port);
    uint32_t w = an2_credit_window_sample(&st->windows[port], li.rtt_ns, rate);
    if (!w)
        return;
    if (an2_link_set_window(st->s.links[port], w) != 0) {
        an2_log("port %u: no memory to grow the credit window to %u cells", port, w);
        return;
    }
    an2_log("port %u: credit window %u cells per VC (median round trip %.0f us at "
             "%s%.0f cells/s)", port, w, st->windows[port].median_ns / 1e3,
             rate > 0 ? "" : "unpaced, taken as ",
             rate > 0 ? rate : AN2_WINDOW_UNPACED_CELLS_PER_S);
}

static void trunks_connect(struct state *st, uint64_t now)
{
    for (unsigned i = 0; i < st->o->ntrunks; i++) {
        struct trunk *t = &st->o->trunks[i];
        if (t->port >= 0 || now < t->next_try_ns)
            continue;
        t->next_try_ns = now + TRUNK_RETRY_NS;
        char err[256];
        int fd = an2_net_connect(t->spec, 20, err, sizeof err);
        if (fd < 0) {
            if (!t->warned)
                an2_log("trunk %s: %s (retrying every second)", t->spec, err);
            t->warned = true;
            continue;
        }
        t->warned = false;
        int port = free_port(st);
        add_link(st, fd, now);
        if (port >= 0 && st->s.links[port])
            t->port = port;
    }
}

/* Listening on, or (out of descriptors: the listening sockets would wake us in a loop) not
 * until a second has passed. */
static void listen_pause(struct state *st, const int *lfds, bool pause, uint64_t now)
{
    for (unsigned i = 0; i < st->o->nlisten; i++) {
        struct epoll_event ev = {.events = pause ? 0u : EPOLLIN, .data.u64 = EV_LISTEN + i};
        epoll_ctl(st->epfd, EPOLL_CTL_MOD, lfds[i], &ev);
    }
    st->accept_paused_until = pause ? now + 1000000000ull : 0;
}

static void accept_links(struct state *st, const int *lfds, int lfd, uint64_t now)
{
    for (int i = 0; i < 16; i++) {
        char err[256];
        int fd = an2_net_accept(lfd, err, sizeof err);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                static struct an2_log_limit limit;
                an2_log_limited(&limit, "%s", err);
            }
            if (errno == EMFILE || errno == ENFILE)
                listen_pause(st, lfds, true, now);
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EMFILE || errno == ENFILE)
                return;
            continue;
        }
        add_link(st, fd, now);
    }
}

/* Cells and signalling that crossed the switch's links so far: what counts as traffic (a
 * keepalive does not keep the switch awake). */
static uint64_t traffic(const struct state *st)
{
    uint64_t t = 0;
    for (unsigned p = 0; p < st->s.nports; p++)
        if (st->s.links[p]) {
            struct an2_link_info li;
            an2_link_info(st->s.links[p], &li);
            t += li.cells_in + li.cells_out + li.sig_in + li.sig_out;
        }
    return t;
}

/* Moves cells until nothing moves (bounded). */
static void pump(struct state *st, uint64_t now)
{
    for (int round = 0; round < 64; round++) {
        bool moved = an2_switch_poll(st->s.sw, now);
        for (unsigned p = 0; p < st->s.nports; p++)
            if (st->s.links[p])
                moved |= an2_link_poll(st->s.links[p], now);
        if (!moved)
            break;
    }
}

static uint64_t next_deadline(const struct state *st, uint64_t now)
{
    uint64_t t = an2_switch_next_deadline(st->s.sw);
    for (unsigned p = 0; p < st->s.nports; p++)
        if (st->s.links[p]) {
            uint64_t d = an2_link_next_deadline(st->s.links[p]);
            if (d < t)
                t = d;
        }
    for (unsigned i = 0; i < st->o->ntrunks; i++)
        if (st->o->trunks[i].port < 0 && st->o->trunks[i].next_try_ns < t)
            t = st->o->trunks[i].next_try_ns;
    if (st->s.next_advert_ns < t)
        t = st->s.next_advert_ns;
    if (an2sw_drains_deadline(&st->s) < t)
        t = an2sw_drains_deadline(&st->s);
    if (st->accept_paused_until && st->accept_paused_until < t)
        t = st->accept_paused_until;
    return t < now ? now : t;
}

/* The switch's ports, links and VCs as text, for an2stat --switch. */
static size_t report(const struct state *st, char *buf, size_t len)
{
    size_t off = 0;
#define OUT(...) (off += (size_t)snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))
    char wtext[48];
    snprintf(wtext, sizeof wtext, st->o->window_given ? "%u cells per VC" : "derived per link",
             st->o->window);
    OUT("an2switch %u, pid %d, up %.1f s: %u ports, window %s, %u VCs, "
        "%llu signalling messages not forwarded\n",
        st->s.id, (int)getpid(), (an2_now_ns() - st->start_ns) / 1e9, st->s.nports, wtext,
        st->s.ncalls, (unsigned long long)st->s.sig_dropped);
    OUT("releases held for buffered cells %llu, given up %llu (no cell left for %u ms), "
        "held now %u\n",
        (unsigned long long)st->s.releases_held, (unsigned long long)st->s.releases_given_up,
        AN2_FIBER_DRAIN_STALL_MS, st->s.ndraining);
    OUT("\n%-4s %-12s %-5s %9s %7s %13s %5s %12s %12s %8s %8s %8s\n", "PORT", "PEER", "STATE",
        "RTT_US", "WINDOW", "RATE_CELLS/S", "VCS", "CELLS_IN", "CELLS_OUT", "DROPS", "LOST",
        "FLIPPED");
    for (unsigned p = 0; p < st->s.nports; p++) {
        struct an2_link *l = st->s.links[p];
        if (!l)
            continue;
        struct an2_link_info li;
        an2_link_info(l, &li);
        struct an2_port_counters pc = {0};
        an2_switch_port_counters(st->s.sw, p, &pc);
        char peer[32];
        if (!li.up)
            snprintf(peer, sizeof peer, "-");
        else if (li.peer_role == AN2_FIBER_ROLE_HOST)
            snprintf(peer, sizeof peer, "host %u.%u", li.host_addr >> 8, li.host_addr & 0xffu);
        else
            snprintf(peer, sizeof peer, "switch %u", li.peer_switch_id);
        double rate = port_rate(st, p);
        char rtext[24];
        snprintf(rtext, sizeof rtext, rate > 0 ? "%.0f" : "unpaced", rate);
        OUT("%-4u %-12s %-5s %9.1f %7u %13s %5u %12llu %12llu %8llu %8llu %8llu\n", p, peer,
            li.up ? "up" : "down", li.rtt_ns / 1e3, li.window, rtext, li.vcs,
            (unsigned long long)li.cells_in, (unsigned long long)li.cells_out,
            (unsigned long long)(pc.drops + li.dropped_unrouted),
            (unsigned long long)li.cells_lost, (unsigned long long)li.bits_flipped);
    }
    for (unsigned id = 1; id < 256; id++)
        if (st->s.routes[id].port >= 0)
            OUT("route to switch %u: port %d, %u trunk%s away\n", id, st->s.routes[id].port,
                st->s.routes[id].hops, st->s.routes[id].hops == 1 ? "" : "s");
    OUT("\n%-4s %6s     %-4s %6s %12s %12s %9s\n", "PORT", "VCI", "PORT", "VCI", "CELLS_IN",
        "CELLS_OUT", "BUFFERED");
    for (size_t i = 0; i < st->s.calls.cap && off < len; i++) {
        const struct an2sw_call *c = vc_map_slot_value(&st->s.calls, i);
        /* each call is in the map under both ends: list it once */
        if (!c || vc_map_slot_value(&st->s.calls, i) != vc_map_get(&st->s.calls,
                                                                     (uint64_t)c->port[0] << 16 | c->vci[0]))
            continue;
        struct an2_vc_switch_counters a = {0}, b = {0};
        an2_switch_vc_counters(st->s.sw, c->port[0], 0, c->vci[0], &a);
        an2_switch_vc_counters(st->s.sw, c->port[1], 0, c->vci[1], &b);
        OUT("%-4u %6u <-> %-4u %6u %12llu %12llu %9u\n", c->port[0], c->vci[0], c->port[1],
            c->vci[1], (unsigned long long)(a.cells_in + b.cells_in),
            (unsigned long long)(a.cells_out + b.cells_out), a.cells_buffered + b.cells_buffered);
    }
#undef OUT
    return off < len ? off : len;
}

static void answer_control(struct state *st)
{
    for (int i = 0; i < 4; i++) {
        char err[128];
        int fd = an2_net_accept(st->control_fd, err, sizeof err);
        if (fd < 0)
            return;
        static char buf[65536];
        size_t n = report(st, buf, sizeof buf);
        ssize_t w = send(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        (void)w;
        close(fd);
    }
}

static void run(struct state *st, int sigfd, const int *lfds)
{
    uint64_t last_progress = 0, last_traffic = 0;
    uint64_t spin_ns = st->o->spin_us * 1000ull, yield_ns = st->o->yield_us * 1000ull;
    for (;;) {
        uint64_t now = an2_now_ns();
        uint64_t deadline = next_deadline(st, now);
        int timeout_ms;
        if (now - last_progress < spin_ns) {
            timeout_ms = 0;
        } else if (now - last_progress < yield_ns) {
            sched_yield();
            timeout_ms = 0;
        } else {
            timeout_ms = deadline == UINT64_MAX ? 1000
                         : (int)((deadline - now + 999999) / 1000000);
        }
        if (timeout_ms > 1000)
            timeout_ms = 1000;
        struct epoll_event ev[64];
        int n = epoll_wait(st->epfd, ev, 64, timeout_ms);
        now = an2_now_ns();
        for (int i = 0; i < n; i++) {
            uint64_t tag = ev[i].data.u64;
            if (tag == EV_SIGNAL) {
                struct signalfd_siginfo si;
                if (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    an2_log("signal %u: stopping", si.ssi_signo);
                    return;
                }
            } else if (tag == EV_CONTROL) {
                answer_control(st);
            } else if (tag >= EV_LINK) {
                unsigned port = (unsigned)(tag - EV_LINK);
                if (port < st->s.nports && st->s.links[port])
                    an2_link_service(st->s.links[port], now);
            } else if (tag >= EV_LISTEN) {
                accept_links(st, lfds, lfds[tag - EV_LISTEN], now);
            }
        }
        an2sw_drains_tick(&st->s, now); /* before pump: a RELEASE it lets go leaves now */
        pump(st, now);
        uint64_t t = traffic(st);
        if (t != last_traffic) {
            last_traffic = t;
            last_progress = now;
        }
        trunks_connect(st, now);
        an2sw_routes_tick(&st->s, now);
        if (st->accept_paused_until && now >= st->accept_paused_until)
            listen_pause(st, lfds, false, now);
        for (unsigned p = 0; p < st->s.nports; p++) {
            struct an2_link *l = st->s.links[p];
            if (!l)
                continue;
            if (now >= an2_link_next_deadline(l))
                an2_link_service(l, now);
            if (!an2_link_is_up(l) && an2_link_why(l)[0]) {
                remove_link(st, p);
                continue;
            }
            if (an2_link_is_up(l) && !st->announced[p])
                announce(st, p);
            if (an2_link_is_up(l) && !st->o->window_given)
                window_update(st, p);
            bool want = an2_link_wants_write(l);
            if (want != st->writing[p]) {
                struct epoll_event e = {.events = EPOLLIN | (want ? EPOLLOUT : 0u),
                                        .data.u64 = EV_LINK + p};
                epoll_ctl(st->epfd, EPOLL_CTL_MOD, an2_link_fd(l), &e);
                st->writing[p] = want;
            }
        }
    }
}

int main(int argc, char **argv)
{
    struct options o;
    an2_log_set_name("an2switch");
    if (parse_options(argc, argv, &o) != 0)
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
    struct state st = {.o = &o, .control_fd = -1, .start_ns = an2_now_ns()};
    st.epfd = epoll_create1(EPOLL_CLOEXEC);
    int sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_SIGNAL};
    if (st.epfd < 0 || sigfd < 0 || epoll_ctl(st.epfd, EPOLL_CTL_ADD, sigfd, &ev)) {
        fprintf(stderr, "an2switch: %s\n", strerror(errno));
        goto out;
    }
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
    run(&st, sigfd, lfds);
    status = 0;
    owned_file_unlink(&pid_file);
out:
    for (unsigned p = 0; st.s.links && p < st.s.nports; p++)
        if (st.s.links[p])
            remove_link(&st, p);
    an2sw_calls_free(&st.s);
    an2_switch_destroy(st.s.sw);
    for (unsigned i = 0; i < nl; i++) {
        close(lfds[i]);
        if (!strncmp(o.listen[i], "unix:", 5))
            unlink(o.listen[i] + 5);
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
