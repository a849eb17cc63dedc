/* an2switch_report.c — what an2stat --switch shows: the switch's ports, links, routes and
 * VCs as text, sent to each connection on the control socket. */
#include "an2switch_daemon.h"

#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "an2_clock.h"
#include "an2_link.h"
#include "an2_netaddr.h"
#include "an2_switch.h"

/* The switch's ports, links and VCs as text, for an2stat --switch. */
static size_t report(const struct an2sw_daemon *st, char *buf, size_t len)
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
    unsigned authenticating = 0;
    for (unsigned i = 0; i < AN2SW_MAX_PENDING; i++)
        authenticating += st->pending[i].hs != NULL;
    OUT("links refused at the handshake %llu, authenticating now %u; signalling refused "
        "(a host speaking for another) %llu\n",
        (unsigned long long)st->links_refused, authenticating,
        (unsigned long long)st->s.sig_refused);
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
        double rate = an2sw_port_rate(st, p);
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

void an2sw_control_answer(struct an2sw_daemon *st)
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
