/* an2switch_calls.c — the switch's signalling: SETUP picks the outgoing port for the called
 * host, allocates the VCI on the outgoing link and programs both directions; CONNECT and
 * RELEASE follow the call's hops; LOOKUP is flooded, FOUND routed to the asker; ROUTE
 * messages between switches tell which switch is reached through which trunk; a link that
 * goes releases every VC through it. */
#include "an2switch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "an2_link.h"
#include "an2_log.h"
#include "an2_switch.h"

static uint64_t call_key(unsigned port, uint16_t vci)
{
    return (uint64_t)port << 16 | vci;
}

static struct an2_link *up_link(const struct an2sw *s, unsigned port)
{
    return port < s->nports && s->links[port] && an2_link_is_up(s->links[port])
               ? s->links[port]
               : NULL;
}

void an2sw_send_sig(struct an2sw *s, unsigned port, const struct an2_sig_msg *m)
{
    struct an2_link *l = up_link(s, port);
    if (!l || !an2_link_send_sig(l, m))
        s->sig_dropped++;
}

/* The port towards host address `host`: the host's own port if it hangs on this switch,
 * else a trunk to its switch. -1 if none is up. */
static int port_for_host(const struct an2sw *s, uint32_t host)
{
    struct an2_link_info info;
    if ((host >> 8) == s->id) {
        unsigned port = host & 0xffu;
        struct an2_link *l = up_link(s, port);
        if (!l)
            return -1;
        an2_link_info(l, &info);
        return info.peer_role == AN2_FIBER_ROLE_HOST ? (int)port : -1;
    }
    for (unsigned p = 0; p < s->nports; p++) {
        struct an2_link *l = up_link(s, p);
        if (!l)
            continue;
        an2_link_info(l, &info);
        if (info.peer_role == AN2_FIBER_ROLE_SWITCH && info.peer_switch_id == (host >> 8))
            return (int)p;
    }
    const struct an2sw_route *r = &s->routes[(host >> 8) & 0xffu];
    return r->port >= 0 && up_link(s, (unsigned)r->port) ? r->port : -1;
}

static bool is_trunk(const struct an2sw *s, unsigned port)
{
    struct an2_link *l = up_link(s, port);
    struct an2_link_info info;
    if (!l)
        return false;
    an2_link_info(l, &info);
    return info.peer_role == AN2_FIBER_ROLE_SWITCH;
}

/* "Switch m->called_host is m->hops trunks away from the sender." */
static void on_route(struct an2sw *s, unsigned port, const struct an2_sig_msg *m, uint64_t now)
{
    uint32_t id = m->called_host;
    if (!is_trunk(s, port) || id < 1 || id > 255 || id == s->id ||
        m->hops >= AN2_FIBER_MAX_HOPS)
        return;
    struct an2sw_route *r = &s->routes[id];
    uint8_t hops = (uint8_t)(m->hops + 1);
    if (r->port < 0 || hops < r->hops || r->port == (int)port) {
        r->port = (int)port;
        r->hops = hops;
        r->heard_ns = now;
    }
}

void an2sw_routes_tick(struct an2sw *s, uint64_t now)
{
    if (now < s->next_advert_ns)
        return;
    s->next_advert_ns = now + 1000000000ull;
    for (unsigned id = 1; id < 256; id++) {
        struct an2sw_route *r = &s->routes[id];
        bool stale = now > r->heard_ns && now - r->heard_ns > 3000000000ull; /* (no wrap when
                                                        * heard with a later clock than now) */
        if (r->port >= 0 && (stale || !up_link(s, (unsigned)r->port)))
            r->port = -1;
    }
    for (unsigned p = 0; p < s->nports; p++) {
        if (!is_trunk(s, p))
            continue;
        struct an2_sig_msg m = {.type = AN2_SIG_ROUTE, .called_host = s->id, .hops = 0};
        an2sw_send_sig(s, p, &m);
        for (unsigned id = 1; id < 256; id++) {
            const struct an2sw_route *r = &s->routes[id];
            if (r->port < 0 || r->port == (int)p)   /* split horizon */
                continue;
            m.called_host = id;
            m.hops = r->hops;
            an2sw_send_sig(s, p, &m);
        }
    }
}

static void release_back(struct an2sw *s, unsigned port, const struct an2_sig_msg *setup,
                         uint8_t cause)
{
    struct an2_sig_msg r = *setup;
    r.type = AN2_SIG_RELEASE;
    r.cause = cause;
    an2sw_send_sig(s, port, &r);
}

void an2sw_call_free(struct an2sw *s, struct an2sw_call *c)
{
    for (int i = 0; i < 2; i++) {
        an2_switch_route_del(s->sw, c->port[i], 0, c->vci[i]);
        if (s->links[c->port[i]])
            an2_link_vc_del(s->links[c->port[i]], c->vci[i]);
        vc_map_del(&s->calls, call_key(c->port[i], c->vci[i]));
    }
    s->ncalls--;
    free(c);
}

static void on_setup(struct an2sw *s, unsigned in, const struct an2_sig_msg *m)
{
    struct an2_link *in_link = s->links[in];
    struct an2sw_call *old = vc_map_get(&s->calls, call_key(in, m->vci));
    if (old && old->draining && old->port[old->drain_from] == in &&
        old->vci[old->drain_from] == m->vci) {
        /* the end that released reuses the VCI: what it sent before must not wait longer */
        static struct an2_log_limit limit;
        an2_log_limited(&limit, "port %u: SETUP reuses VCI %u while its last VC drains: "
                         "that VC's cells still here are dropped", in, m->vci);
        s->releases_given_up++;
        an2sw_drain_end(s, old, true);
    }
    if (m->vci < AN2_FIBER_FIRST_VCI || vc_map_get(&s->calls, call_key(in, m->vci))) {
        static struct an2_log_limit limit;
        an2_log_limited(&limit, "port %u: SETUP on VCI %u, reserved or in use: refused", in,
                         m->vci);
        release_back(s, in, m, AN2_CAUSE_NO_VCI);
        return;
    }
    int out = port_for_host(s, m->called_host);
    if (out < 0 || (unsigned)out == in) {
        release_back(s, in, m, AN2_CAUSE_NO_ROUTE);
        return;
    }
    struct an2_link *out_link = s->links[out];
    uint16_t gen;
    uint16_t vci = an2_link_vci_alloc(out_link, &gen);
    struct an2sw_call *c = vci ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        release_back(s, in, m, AN2_CAUSE_NO_VCI);
        return;
    }
    *c = (struct an2sw_call){.port = {in, (unsigned)out}, .vci = {m->vci, vci}};
    int rc = an2_switch_route_add(s->sw, in, 0, m->vci, (unsigned)out, 0, vci);
    if (!rc && (rc = an2_switch_route_add(s->sw, (unsigned)out, 0, vci, in, 0, m->vci)))
        an2_switch_route_del(s->sw, in, 0, m->vci);
    if (!rc && (rc = an2_link_vc_add(in_link, m->vci, m->gen)) == 0 &&
        (rc = an2_link_vc_add(out_link, vci, gen)) != 0)
        an2_link_vc_del(in_link, m->vci);
    if (!rc && (rc = vc_map_put(&s->calls, call_key(in, m->vci), c)) == 0 &&
        (rc = vc_map_put(&s->calls, call_key((unsigned)out, vci), c)) != 0)
        vc_map_del(&s->calls, call_key(in, m->vci));
    if (rc) {
        an2_switch_route_del(s->sw, in, 0, m->vci);
        an2_switch_route_del(s->sw, (unsigned)out, 0, vci);
        an2_link_vc_del(in_link, m->vci);
        an2_link_vc_del(out_link, vci);
        free(c);
        release_back(s, in, m, AN2_CAUSE_NO_VCI);
        return;
    }
    s->ncalls++;
    struct an2_sig_msg fwd = *m;
    fwd.vci = vci;
    fwd.gen = gen;
    an2sw_send_sig(s, (unsigned)out, &fwd);
}

/* CONNECT or RELEASE: to the call's other end. A normal RELEASE waits here while cells its
 * end sent are still buffered (an2switch_drain.c). */
static void along_call(struct an2sw *s, unsigned in, const struct an2_sig_msg *m, uint64_t now)
{
    struct an2sw_call *c = vc_map_get(&s->calls, call_key(in, m->vci));
    if (!c)
        return; /* a call already released (both ends may release at once) */
    int other = c->port[0] == in && c->vci[0] == m->vci ? 1 : 0;
    if (c->draining) {
        /* the far end released too: nobody is left to drain to; a repeat is ignored */
        if (m->type == AN2_SIG_RELEASE && other == c->drain_from)
            an2sw_drain_end(s, c, false);
        return;
    }
    struct an2_sig_msg fwd = *m;
    fwd.vci = c->vci[other];
    unsigned out = c->port[other];
    if (m->type == AN2_SIG_RELEASE) {
        if (m->cause != AN2_CAUSE_LINK_DOWN && an2sw_release_hold(s, c, !other, &fwd, now))
            return;
        an2sw_call_free(s, c);
    }
    an2sw_send_sig(s, out, &fwd);
}

/* Whether the host or switch on port may say m: a host speaks only for itself (its SETUP's
 * and LOOKUP's caller, its FOUND's endpoint are at the address this port gave it); a trunk's
 * switch vouches for what it forwards, but never for a host of ours. */
static bool speaks_for_itself(const struct an2sw *s, unsigned port, const struct an2_sig_msg *m)
{
    struct an2_link *l = up_link(s, port);
    struct an2_link_info info;
    if (!l)
        return false;
    an2_link_info(l, &info);
    uint32_t from; /* the host the message says it speaks for */
    switch (m->type) {
    case AN2_SIG_SETUP:
        if (an2_ep_host(m->calling_ep) != m->calling_host)
            return false;
        from = m->calling_host;
        break;
    case AN2_SIG_LOOKUP: from = m->calling_host; break;
    case AN2_SIG_FOUND:
        if (an2_ep_host(m->called_ep) != m->called_host)
            return false;
        from = m->called_host;
        break;
    default: return true; /* CONNECT, RELEASE: bound to this port's own VCs; ROUTE: trunks */
    }
    if (info.peer_role == AN2_FIBER_ROLE_HOST)
        return from == info.host_addr;
    return (from >> 8) != s->id;
}

void an2sw_on_sig(struct an2sw *s, unsigned port, const struct an2_sig_msg *m, uint64_t now)
{
    if (!speaks_for_itself(s, port, m)) {
        static struct an2_log_limit limit;
        s->sig_refused++;
        an2_log_limited(&limit, "port %u: %s that speaks for host %u.%u refused (not the "
                        "port's own)", port, m->type == AN2_SIG_SETUP ? "a SETUP"
                        : m->type == AN2_SIG_LOOKUP ? "a LOOKUP" : "a FOUND",
                        (m->type == AN2_SIG_FOUND ? m->called_host : m->calling_host) >> 8 & 0xffu,
                        (m->type == AN2_SIG_FOUND ? m->called_host : m->calling_host) & 0xffu);
        return;
    }
    switch (m->type) {
    case AN2_SIG_ROUTE:
        on_route(s, port, m, now);
        break;
    case AN2_SIG_SETUP:
        on_setup(s, port, m);
        break;
    case AN2_SIG_CONNECT:
    case AN2_SIG_RELEASE:
        along_call(s, port, m, now);
        break;
    case AN2_SIG_LOOKUP: {
        uint64_t key = (uint64_t)m->calling_host << 32 | m->call_ref;
        bool seen = false;
        for (unsigned i = 0; i < 64 && !seen; i++)
            seen = s->lookups_seen[i] == key;
        if (m->hops == 0 || seen)
            break;
        s->lookups_seen[s->lookups_next++ % 64] = key;
        for (unsigned p = 0; p < s->nports; p++) {
            if (p == port || !up_link(s, p))
                continue;
            struct an2_sig_msg fwd = *m;
            fwd.hops--;
            an2sw_send_sig(s, p, &fwd);
        }
        break;
    }
    case AN2_SIG_FOUND: {
        int out = port_for_host(s, m->calling_host);
        if (out >= 0 && (unsigned)out != port)
            an2sw_send_sig(s, (unsigned)out, m);
        else
            s->sig_dropped++;
        break;
    }
    default: {
        static struct an2_log_limit limit;
        an2_log_limited(&limit, "port %u: signalling message of unknown type %u ignored",
                         port, m->type);
    }
    }
}

void an2sw_port_down(struct an2sw *s, unsigned port)
{
    for (size_t i = 0; i < s->calls.cap; i++) {
        struct an2sw_call *c = vc_map_slot_value(&s->calls, i);
        if (!c || (c->port[0] != port && c->port[1] != port))
            continue;
        if (c->draining) { /* failures go at once: the held RELEASE with what was sent */
            bool far_end_went = c->port[!c->drain_from] == port;
            if (!far_end_went)
                s->releases_given_up++;
            an2sw_drain_end(s, c, !far_end_went);
            i = (size_t)-1;
            continue;
        }
        int other = c->port[0] == port ? 1 : 0;
        struct an2_sig_msg r = {.type = AN2_SIG_RELEASE, .cause = AN2_CAUSE_LINK_DOWN,
                                .vci = c->vci[other]};
        unsigned out = c->port[other];
        an2sw_call_free(s, c);
        if (out != port)
            an2sw_send_sig(s, out, &r);
        i = (size_t)-1; /* the map changed under the walk: start over (bounded by ncalls) */
    }
}

void an2sw_calls_free(struct an2sw *s)
{
    for (size_t i = 0; i < s->calls.cap; i++) {
        struct an2sw_call *c = vc_map_slot_value(&s->calls, i);
        if (c) {
            an2sw_call_free(s, c);
            i = (size_t)-1;
        }
    }
    s->draining = NULL;
    s->ndraining = 0;
    vc_map_free(&s->calls);
}
