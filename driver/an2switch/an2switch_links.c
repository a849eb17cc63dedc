/* an2switch_links.c — the switch's links: accepted from hosts' an2d and other switches, or
 * kept as trunks to other switches (over TCP or Unix sockets); each with its port's rate,
 * injected faults and credit window. */
#include "an2switch_daemon.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "an2_carrier.h"
#include "an2_clock.h"
#include "an2_link.h"
#include "an2_log.h"
#include "an2_netaddr.h"
#include "an2_switch.h"

#define TRUNK_RETRY_NS 1000000000ull

static void link_sig(void *ctx, struct an2_link *link, const struct an2_sig_msg *m)
{
    struct an2sw_daemon *st = ctx;
    an2sw_on_sig(&st->s, an2_link_port(link), m, an2_now_ns());
}

static void link_down_cb(void *ctx, struct an2_link *link, const char *why)
{
    (void)ctx;
    static struct an2_log_limit limit;
    an2_log_limited(&limit, "port %u: link down: %s", an2_link_port(link), why);
}

static int free_port(const struct an2sw_daemon *st)
{
    for (unsigned p = 0; p < st->s.nports; p++)
        if (!st->s.links[p])
            return (int)p;
    return -1;
}

void an2sw_link_add(struct an2sw_daemon *st, struct an2_carrier *carrier, int trunk,
                    uint64_t now)
{
    int port = free_port(st);
    if (port < 0) {
        static struct an2_log_limit limit;
        an2_log_limited(&limit, "a link arrived but all %u ports are in use: closed",
                         st->s.nports);
        an2_carrier_close(carrier);
        return;
    }
    double ber = st->o->port_ber[port] >= 0 ? st->o->port_ber[port] : st->o->ber;
    double loss = st->o->port_loss[port] >= 0 ? st->o->port_loss[port] : st->o->loss;
    struct fault_inject *faults = &st->faults[port];
    fault_inject_init(faults, ber, loss, st->o->fault_seed + (uint64_t)port);
    struct an2_link_config cfg = {
        .faults = fault_inject_enabled(faults) ? faults : NULL, .capture = st->capture,
        .carrier = carrier, .sw = st->s.sw, .port = (unsigned)port, .role = AN2_FIBER_ROLE_SWITCH,
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
    if (trunk >= 0)
        st->o->trunks[trunk].port = port;
    st->announced[port] = st->writing[port] = false;
    an2_credit_window_init(&st->windows[port]);
}

void an2sw_link_remove(struct an2sw_daemon *st, unsigned port)
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

void an2sw_link_announce(struct an2sw_daemon *st, unsigned port)
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

double an2sw_port_rate(const struct an2sw_daemon *st, unsigned port)
{
    return st->o->port_rate[port] >= 0 ? st->o->port_rate[port] : st->o->rate;
}

/* Unless --vc-credits fixed it, port's window follows its link's round trip times its rate
 * (the peer is taken to send at the rate we send at). */
void an2sw_window_update(struct an2sw_daemon *st, unsigned port)
{
    struct an2_link_info li;
    an2_link_info(st->s.links[port], &li);
    double rate = an2sw_port_rate(st, port);
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

void an2sw_trunks_connect(struct an2sw_daemon *st, uint64_t now)
{
    for (unsigned i = 0; i < st->o->ntrunks; i++) {
        struct an2sw_trunk *t = &st->o->trunks[i];
        if (t->port != -1 || now < t->next_try_ns)
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
        struct an2_carrier *c = an2_carrier_for(t->spec, fd, false);
        if (c)
            an2sw_handshake_begin(st, c, (int)i, now);
        else
            an2_log("trunk %s: %s", t->spec, strerror(errno));
    }
}

/* Listening on, or (out of descriptors: the listening sockets would wake us in a loop) not
 * until a second has passed. */
void an2sw_listen_pause(struct an2sw_daemon *st, const int *lfds, bool pause, uint64_t now)
{
    for (unsigned i = 0; i < st->o->nlisten; i++) {
        struct epoll_event ev = {.events = pause ? 0u : EPOLLIN, .data.u64 = EV_LISTEN + i};
        epoll_ctl(st->epfd, EPOLL_CTL_MOD, lfds[i], &ev);
    }
    st->accept_paused_until = pause ? now + 1000000000ull : 0;
}

void an2sw_links_accept(struct an2sw_daemon *st, const int *lfds, int lfd, uint64_t now)
{
    const char *spec = "";
    for (unsigned i = 0; i < st->o->nlisten; i++)
        if (lfds[i] == lfd)
            spec = st->o->listen[i];
    for (int i = 0; i < 16; i++) {
        char err[256];
        int fd = an2_net_accept(lfd, err, sizeof err);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                static struct an2_log_limit limit;
                an2_log_limited(&limit, "%s", err);
            }
            if (errno == EMFILE || errno == ENFILE)
                an2sw_listen_pause(st, lfds, true, now);
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EMFILE || errno == ENFILE)
                return;
            continue;
        }
        struct an2_carrier *c = an2_carrier_for(spec, fd, true);
        if (c)
            an2sw_handshake_begin(st, c, -1, now);
        else
            an2_log("a link arrived at %s, its carrier failed: %s", spec, strerror(errno));
    }
}
