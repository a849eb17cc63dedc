/* driver_remote.c — VCs between endpoints on different hosts: the driver's side of the
 * fabric's signalling (an2_fiber.h) over the uplink to a switch. The endpoint with the lower
 * global id calls (SETUP); the other waits for it, so the symmetric rendezvous of one host
 * works unchanged across hosts. Names are looked up over the fabric when not held here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an2_fiber.h"
#include "an2_link.h"
#include "an2_log.h"
#include "an2_switch.h"
#include "driver_state.h"
#include "otto.h"

/* A SETUP that no task here has asked for (yet) is held this long, then released with cause
 * TIMEOUT; its caller's an2d calls again while its task still waits. It binds only to a task
 * that asks for exactly its calling endpoint: the endpoint id that task learnt from its peer
 * through the pvmds, which the switch checked is at the host the SETUP came from and that
 * host's an2d vouches for. Short, so that a SETUP no one wants ties up no VCI for long; long
 * enough that the usual gap (the peer's request still on its way through the pvmds, or not yet
 * read) rarely costs a second call. */
#define HELD_SETUP_NS (2 * 1000000000ull)
#define HELD_MAX 4096u      /* SETUPs held at once: more are refused (NO_VCI) */
#define LOOKUP_HOPS 16

static const char *cause_text(unsigned cause)
{
    switch (cause) {
    case AN2_CAUSE_NORMAL: return "closed by the peer";
    case AN2_CAUSE_NO_ROUTE: return "no route to the peer's host";
    case AN2_CAUSE_NO_ENDPOINT: return "no such endpoint on the peer's host";
    case AN2_CAUSE_LINK_DOWN: return "a link on the path went down";
    case AN2_CAUSE_NO_VCI: return "no free VCI on a link of the path";
    case AN2_CAUSE_TIMEOUT: return "the peer never asked for this VC";
    case AN2_CAUSE_CANCELLED: return "the peer withdrew";
    case AN2_CAUSE_REFUSED: return "the peer's an2d refuses a VC between these uids";
    default: return "released";
    }
}

/* Grows an array of n used elements of size `size` by one slot; false when out of memory. */
static bool grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 8;
    void *a = realloc(*arr, c * size);
    if (!a)
        return false;
    *arr = a;
    *cap = c;
    return true;
}

bool drv_is_remote(const struct an2_driver *drv, uint32_t endpoint_id)
{
    return drv->host_addr && an2_ep_host(endpoint_id) != drv->host_addr;
}

static void sig(struct an2_driver *drv, const struct an2_sig_msg *m)
{
    static struct an2_log_limit limit;
    if (!drv->uplink || !an2_link_send_sig(drv->uplink, m))
        an2_log_limited(&limit, "signalling message (type %u) not sent: uplink %s", m->type,
                         drv->uplink ? "queue full" : "down");
}

void drv_remote_release(struct an2_driver *drv, uint16_t link_vci, uint8_t cause)
{
    struct an2_sig_msg m = {.type = AN2_SIG_RELEASE, .cause = cause, .vci = link_vci};
    sig(drv, &m);
    if (drv->uplink)
        an2_link_vc_del(drv->uplink, link_vci);
}

/* The local end of an agreed remote VC: a local VCI on the controller's port, routes both
 * ways between it and the uplink's VCI, the binding, the answer. 0 or -errno (answered). */
static int remote_bind(struct an2_driver *drv, uint32_t slot, uint32_t peer_id, uint16_t link_vci)
{
    struct drv_client *c = &drv->clients[slot];
    int v = drv_free_vc_index(c), ca = -1, err = -ENOSPC;
    const char *what = "no free local VC index";
    if (v < 0)
        goto fail;
    what = "no free VCI on the host link";
    if ((ca = drv_vci_alloc(drv)) < 0)
        goto fail;
    what = "switch route";
    if ((err = an2_switch_route_add(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)ca,
                                    AN2_UPLINK_PORT, 0, link_vci)) != 0)
        goto free_vci;
    if ((err = an2_switch_route_add(drv->sw, AN2_UPLINK_PORT, 0, link_vci, AN2_HOST_PORT,
                                    AN2_LINK_VPI, (uint16_t)ca)) != 0)
        goto del_out;
    what = "controller bind";
    if ((err = otto_vc_bind(drv->otto, slot, (uint16_t)v, AN2_LINK_VPI, (uint16_t)ca)) != 0)
        goto del_in;
    drv->nroutes += 2;
    c->vcs[v] = (struct drv_vc){.used = true, .vci = (uint16_t)ca, .peer_id = peer_id,
                                .remote = true, .link_vci = link_vci};
    c->vcs_open++;
    an2_log("VC open: endpoint %u vc %d (0.%d.%d) <-> endpoint %u on host %u.%u (uplink VCI %u)",
             c->endpoint_id, v, AN2_LINK_VPI, ca, peer_id, an2_ep_host(peer_id) >> 8,
             an2_ep_host(peer_id) & 0xffu, link_vci);
    drv_reply_vc(c, 0, peer_id, (uint16_t)v, (uint16_t)ca, NULL);
    return 0;
del_in:
    an2_switch_route_del(drv->sw, AN2_UPLINK_PORT, 0, link_vci);
del_out:
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)ca);
free_vci:
    drv_vci_free(drv, (uint16_t)ca);
fail:;
    char detail[96];
    snprintf(detail, sizeof detail, "VC setup failed: %s: %s", what, strerror(-err));
    drv_reply_vc(c, err, peer_id, 0, 0, detail);
    return err;
}

static long held_find(const struct an2_driver *drv, uint32_t from_id, uint32_t to_id)
{
    for (size_t i = 0; i < drv->nheld; i++)
        if (drv->held[i].from_id == from_id && drv->held[i].to_id == to_id)
            return (long)i;
    return -1;
}

/* Our SETUP for pending p, on a fresh VCI, with the uid of p's task. False if there is no
 * VCI (the task is told). */
static bool call_peer(struct an2_driver *drv, struct drv_pending *p)
{
    struct drv_client *c = &drv->clients[p->slot];
    uint16_t gen;
    uint16_t vci = an2_link_vci_alloc(drv->uplink, &gen);
    if (!vci || an2_link_vc_add(drv->uplink, vci, gen) != 0) {
        drv_reply_vc(c, -ENOSPC, p->to_id, 0, 0, "no free VCI on the uplink");
        return false;
    }
    struct an2_sig_msg m = {.type = AN2_SIG_SETUP, .vci = vci, .gen = gen,
                            .calling_host = drv->host_addr, .called_host = an2_ep_host(p->to_id),
                            .calling_ep = p->from_id, .called_ep = p->to_id,
                            .calling_uid = (uint32_t)c->uid};
    sig(drv, &m);
    p->setup_sent = true;
    p->link_vci = vci;
    return true;
}

void drv_remote_open(struct an2_driver *drv, uint32_t slot, uint32_t peer_id)
{
    struct drv_client *c = &drv->clients[slot];
    char detail[96];
    if (!drv->uplink) {
        snprintf(detail, sizeof detail, "endpoint %u is on another host and the uplink is down",
                 peer_id);
        drv_reply_vc(c, -ENETUNREACH, peer_id, 0, 0, detail);
        return;
    }
    if (!drv_vc_may_ask(c, drv->rpending, drv->nrpending, peer_id))
        return;
    long h = held_find(drv, peer_id, c->endpoint_id);
    if (h >= 0) { /* the peer called already: accept */
        uint16_t vci = drv->held[h].link_vci;
        drv->held[h] = drv->held[--drv->nheld];
        if (remote_bind(drv, slot, peer_id, vci) == 0) {
            struct an2_sig_msg m = {.type = AN2_SIG_CONNECT, .vci = vci};
            sig(drv, &m);
        } else {
            drv_remote_release(drv, vci, AN2_CAUSE_NO_VCI);
        }
        return;
    }
    if (!grow((void **)&drv->rpending, drv->nrpending, &drv->cap_rpending,
              sizeof *drv->rpending)) {
        drv_reply_vc(c, -ENOMEM, peer_id, 0, 0, "an2d out of memory");
        return;
    }
    struct drv_pending p = {.slot = slot, .from_id = c->endpoint_id, .to_id = peer_id};
    if (c->endpoint_id < peer_id && !call_peer(drv, &p)) /* we call */
        return;
    drv->rpending[drv->nrpending++] = p;
    c->pending++;
}

bool drv_remote_cancel(struct an2_driver *drv, uint32_t slot, uint32_t peer_id)
{
    long i = drv_pending_find(drv->rpending, drv->nrpending, drv->clients[slot].endpoint_id,
                              peer_id);
    if (i < 0)
        return false;
    if (drv->rpending[i].setup_sent)
        drv_remote_release(drv, drv->rpending[i].link_vci, AN2_CAUSE_CANCELLED);
    drv_pending_remove(drv, drv->rpending, &drv->nrpending, (size_t)i);
    return true;
}

void drv_remote_release_all(struct an2_driver *drv, uint32_t slot)
{
    for (size_t i = 0; i < drv->nrpending;) {
        if (drv->rpending[i].slot != slot) {
            i++;
            continue;
        }
        if (drv->rpending[i].setup_sent)
            drv_remote_release(drv, drv->rpending[i].link_vci, AN2_CAUSE_CANCELLED);
        drv_pending_remove(drv, drv->rpending, &drv->nrpending, i);
    }
    uint32_t id = drv->clients[slot].endpoint_id;
    for (size_t i = 0; i < drv->nheld;) {
        if (drv->held[i].to_id != id) {
            i++;
            continue;
        }
        drv_remote_release(drv, drv->held[i].link_vci, AN2_CAUSE_NO_ENDPOINT);
        drv->held[i] = drv->held[--drv->nheld];
    }
}

bool drv_remote_teardown(struct an2_driver *drv, const struct drv_vc *v)
{
    if (v->released)
        return false;
    /* cells toward our end are not wanted any more */
    an2_switch_route_del(drv->sw, AN2_UPLINK_PORT, 0, v->link_vci);
    drv->nroutes--;
    if (v->release_held) { /* the peer released already: no RELEASE back; the route from
                            * our end went when its cells began to drain to us */
        drv_rdrain_cancel_inward(drv, v->link_vci);
        if (drv->uplink)
            an2_link_vc_del(drv->uplink, v->link_vci);
        return false;
    }
    if (drv->uplink && drv_rdrain_outward(drv, v->vci, v->link_vci))
        return true; /* the RELEASE follows our cells still in the switch */
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, v->vci);
    drv->nroutes--;
    drv_remote_release(drv, v->link_vci, AN2_CAUSE_NORMAL);
    return false;
}

void drv_remote_vc_gone(struct an2_driver *drv, uint32_t slot, uint16_t vc, unsigned cause)
{
    struct drv_vc *v = &drv->clients[slot].vcs[vc];
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, v->vci);
    an2_switch_route_del(drv->sw, AN2_UPLINK_PORT, 0, v->link_vci);
    drv->nroutes -= 2;
    if (drv->uplink)
        an2_link_vc_del(drv->uplink, v->link_vci);
    v->released = true;
    v->release_held = false;
    v->peer_gone = true;
    otto_vc_peer_gone(drv->otto, slot, vc);
    an2_log("endpoint %u vc %u: the VC to endpoint %u is gone: %s",
             drv->clients[slot].endpoint_id, vc, v->peer_id, cause_text(cause));
}

static bool remote_vc_find(const struct an2_driver *drv, uint16_t link_vci, uint32_t *slot,
                           uint16_t *vc)
{
    for (uint32_t s = 0; s < drv->limits.max_clients; s++) {
        const struct drv_client *c = &drv->clients[s];
        for (uint32_t i = 0; c->vcs && i < c->max_vcs; i++)
            if (c->vcs[i].used && c->vcs[i].remote && !c->vcs[i].released &&
                !c->vcs[i].release_held && c->vcs[i].link_vci == link_vci) {
                *slot = s;
                *vc = (uint16_t)i;
                return true;
            }
    }
    return false;
}

/* The uid rule for a VC from another host: the caller's uid, as its an2d attests it, must be
 * the callee's, or (on the system an2d) of a pair --allow-vc names. */
static bool remote_uids_may_connect(const struct an2_driver *drv, uint32_t caller, uid_t callee)
{
    if (caller == (uint32_t)callee)
        return true;
    return drv->limits.multiuser && drv_uids_may_connect(drv, (uid_t)caller, callee);
}

static void on_setup(struct an2_driver *drv, const struct an2_sig_msg *m, uint64_t now)
{
    struct drv_client *c = drv_client_by_id(drv, m->called_ep);
    uint8_t refuse = 0;
    if (!c || c->doomed || c->lingering || m->called_host != drv->host_addr)
        refuse = AN2_CAUSE_NO_ENDPOINT;
    else if (!remote_uids_may_connect(drv, m->calling_uid, c->uid))
        refuse = AN2_CAUSE_REFUSED;
    else if (drv->nheld >= HELD_MAX &&
             drv_pending_find(drv->rpending, drv->nrpending, m->called_ep, m->calling_ep) < 0)
        refuse = AN2_CAUSE_NO_VCI;
    if (refuse) {
        if (refuse != AN2_CAUSE_NO_ENDPOINT) {
            static struct an2_log_limit limit;
            an2_log_limited(&limit, "SETUP from endpoint %u (uid %u) to endpoint %u refused: %s",
                            m->calling_ep, m->calling_uid, m->called_ep,
                            refuse == AN2_CAUSE_REFUSED ? "a VC between these uids is not "
                            "allowed" : "too many SETUPs held");
        }
        struct an2_sig_msg r = *m;
        r.type = AN2_SIG_RELEASE;
        r.cause = refuse;
        sig(drv, &r);
        return;
    }
    int rc = an2_link_vc_add(drv->uplink, m->vci, m->gen);
    if (rc == -EEXIST) { /* the switch reuses the VCI of a VC whose last cells drain to us */
        drv_rdrain_end_link_vci(drv, m->vci, "a SETUP reuses the VCI");
        rc = an2_link_vc_add(drv->uplink, m->vci, m->gen);
    }
    if (rc != 0) {
        struct an2_sig_msg r = *m;
        r.type = AN2_SIG_RELEASE;
        r.cause = AN2_CAUSE_NO_VCI;
        sig(drv, &r);
        return;
    }
    uint32_t slot = (uint32_t)(c - drv->clients);
    long i = drv_pending_find(drv->rpending, drv->nrpending, m->called_ep, m->calling_ep);
    if (i >= 0 && !drv->rpending[i].setup_sent) {
        drv_pending_remove(drv, drv->rpending, &drv->nrpending, (size_t)i);
        if (remote_bind(drv, slot, m->calling_ep, m->vci) == 0) {
            struct an2_sig_msg r = {.type = AN2_SIG_CONNECT, .vci = m->vci};
            sig(drv, &r);
        } else {
            drv_remote_release(drv, m->vci, AN2_CAUSE_NO_VCI);
        }
        return;
    }
    if (!grow((void **)&drv->held, drv->nheld, &drv->cap_held, sizeof *drv->held)) {
        drv_remote_release(drv, m->vci, AN2_CAUSE_NO_VCI);
        return;
    }
    drv->held[drv->nheld++] = (struct drv_held){.from_id = m->calling_ep, .to_id = m->called_ep,
                                                .link_vci = m->vci,
                                                .deadline_ns = now + HELD_SETUP_NS};
}

static void on_connect(struct an2_driver *drv, const struct an2_sig_msg *m)
{
    for (size_t i = 0; i < drv->nrpending; i++) {
        struct drv_pending p = drv->rpending[i];
        if (!p.setup_sent || p.link_vci != m->vci)
            continue;
        drv_pending_remove(drv, drv->rpending, &drv->nrpending, i);
        if (remote_bind(drv, p.slot, p.to_id, p.link_vci) != 0)
            drv_remote_release(drv, p.link_vci, AN2_CAUSE_NO_VCI);
        return;
    }
    drv_remote_release(drv, m->vci, AN2_CAUSE_CANCELLED); /* nobody here waits for it any more */
}

static void on_release(struct an2_driver *drv, const struct an2_sig_msg *m)
{
    /* both ends released: what our closed end still sends is not wanted */
    if (drv_rdrain_end_link_vci(drv, m->vci, NULL))
        return;
    for (size_t i = 0; i < drv->nrpending; i++) {
        struct drv_pending p = drv->rpending[i];
        if (!p.setup_sent || p.link_vci != m->vci)
            continue;
        an2_link_vc_del(drv->uplink, p.link_vci);
        if (m->cause == AN2_CAUSE_TIMEOUT) { /* the peer has not asked yet: call again */
            if (!call_peer(drv, &drv->rpending[i]))
                drv_pending_remove(drv, drv->rpending, &drv->nrpending, i);
            return;
        }
        drv_pending_remove(drv, drv->rpending, &drv->nrpending, i);
        char detail[96];
        snprintf(detail, sizeof detail, "VC to endpoint %u refused: %s", p.to_id,
                 cause_text(m->cause));
        drv_reply_vc(&drv->clients[p.slot], m->cause == AN2_CAUSE_NO_ENDPOINT ? -ESRCH
                                            : m->cause == AN2_CAUSE_NO_ROUTE ? -EHOSTUNREACH
                                                                             : -ECONNREFUSED,
                     p.to_id, 0, 0, detail);
        return;
    }
    for (size_t i = 0; i < drv->nheld; i++)
        if (drv->held[i].link_vci == m->vci) {
            an2_link_vc_del(drv->uplink, m->vci);
            drv->held[i] = drv->held[--drv->nheld];
            return;
        }
    uint32_t slot;
    uint16_t vc;
    if (remote_vc_find(drv, m->vci, &slot, &vc) &&
        (m->cause == AN2_CAUSE_LINK_DOWN || !drv_rdrain_inward(drv, slot, vc, m->cause)))
        drv_remote_vc_gone(drv, slot, vc, m->cause);
}

static void answer_lookup(struct an2_driver *drv, size_t i, int status, uint32_t endpoint_id)
{
    struct drv_lookup q = drv->lookups[i];
    drv->lookups[i] = drv->lookups[--drv->nlookups];
    struct drv_client *c = &drv->clients[q.slot];
    if (c->fd < 0 || c->endpoint_id != q.endpoint_id)
        return; /* the asker has gone */
    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_LOOKUP, status);
    r.endpoint_id = endpoint_id;
    r.peer_id = q.name;
    if (status)
        snprintf(r.detail, sizeof r.detail, "no endpoint on the fabric is named 0x%x", q.name);
    drv_send(c, &r, sizeof r, NULL, 0);
}

bool drv_remote_lookup(struct an2_driver *drv, uint32_t slot, uint32_t name)
{
    if (!drv->uplink || !an2_link_is_up(drv->uplink) ||
        !grow((void **)&drv->lookups, drv->nlookups, &drv->cap_lookups, sizeof *drv->lookups))
        return false;
    uint32_t ref = ++drv->lookup_ref;
    drv->lookups[drv->nlookups++] = (struct drv_lookup){
        .slot = slot, .endpoint_id = drv->clients[slot].endpoint_id, .name = name, .ref = ref,
        .deadline_ns = an2_now_ns() + drv->limits.lookup_ms * 1000000ull};
    struct an2_sig_msg m = {.type = AN2_SIG_LOOKUP, .hops = LOOKUP_HOPS,
                            .calling_host = drv->host_addr, .name = name, .call_ref = ref};
    sig(drv, &m);
    return true;
}

static void send_found(struct an2_driver *drv, const struct drv_client *c, uint32_t asker,
                       uint32_t call_ref)
{
    struct an2_sig_msg f = {.type = AN2_SIG_FOUND, .calling_host = asker,
                            .called_host = drv->host_addr, .called_ep = c->endpoint_id,
                            .name = c->name, .call_ref = call_ref};
    sig(drv, &f);
}

static void on_lookup(struct an2_driver *drv, const struct an2_sig_msg *m)
{
    if (!m->name)
        return;
    for (uint32_t i = 0; i < drv->limits.max_clients; i++) {
        struct drv_client *c = &drv->clients[i];
        if (c->fd >= 0 && c->endpoint_id && !c->doomed && c->name == m->name) {
            send_found(drv, c, m->calling_host, m->call_ref);
            return;
        }
    }
    /* not here (yet): kept while its asker waits; the oldest makes room (every host hears
     * every LOOKUP, so this costs a fixed table, never memory an asker could make grow) */
    drv->heard[drv->heard_next] = (struct drv_heard_lookup){
        .until_ns = an2_now_ns() + drv->limits.lookup_ms * 1000000ull, .name = m->name,
        .call_ref = m->call_ref, .calling_host = m->calling_host};
    drv->heard_next = (drv->heard_next + 1) % DRV_HEARD_LOOKUPS;
}

void drv_remote_name_registered(struct an2_driver *drv, const struct drv_client *c)
{
    if (!drv->uplink || !c->name)
        return;
    uint64_t now = an2_now_ns();
    for (unsigned i = 0; i < DRV_HEARD_LOOKUPS; i++) {
        struct drv_heard_lookup *h = &drv->heard[i];
        if (h->until_ns > now && h->name == c->name) {
            send_found(drv, c, h->calling_host, h->call_ref);
            h->until_ns = 0;
        }
    }
}

static void on_found(struct an2_driver *drv, const struct an2_sig_msg *m)
{
    for (size_t i = 0; i < drv->nlookups; i++)
        if (drv->lookups[i].ref == m->call_ref && drv->lookups[i].name == m->name &&
            an2_ep_host(m->called_ep) == m->called_host) {
            answer_lookup(drv, i, 0, m->called_ep);
            return;
        }
}

void an2_driver_on_sig(void *ctx, struct an2_link *link, const struct an2_sig_msg *m)
{
    struct an2_driver *drv = ctx;
    if (link != drv->uplink) /* the HELLO came in the same read as this message */
        an2_driver_set_uplink(drv, link);
    switch (m->type) {
    case AN2_SIG_SETUP: on_setup(drv, m, an2_now_ns()); break;
    case AN2_SIG_CONNECT: on_connect(drv, m); break;
    case AN2_SIG_RELEASE: on_release(drv, m); break;
    case AN2_SIG_LOOKUP: on_lookup(drv, m); break;
    case AN2_SIG_FOUND: on_found(drv, m); break;
    default: break;
    }
}

void an2_driver_fabric_tick(struct an2_driver *drv, uint64_t now)
{
    for (size_t i = 0; i < drv->nheld;) {
        if (now < drv->held[i].deadline_ns) {
            i++;
            continue;
        }
        static struct an2_log_limit limit;
        an2_log_limited(&limit, "SETUP from endpoint %u to endpoint %u released after %llu s: "
                        "no task here asked for it (its caller's an2d calls again while its "
                        "task waits)", drv->held[i].from_id, drv->held[i].to_id,
                        HELD_SETUP_NS / 1000000000ull);
        drv_remote_release(drv, drv->held[i].link_vci, AN2_CAUSE_TIMEOUT);
        drv->held[i] = drv->held[--drv->nheld];
    }
    for (size_t i = 0; i < drv->nlookups;)
        if (now >= drv->lookups[i].deadline_ns)
            answer_lookup(drv, i, -ESRCH, 0);
        else
            i++;
}

void an2_driver_set_uplink(struct an2_driver *drv, struct an2_link *link)
{
    if (link) {
        struct an2_link_info info;
        an2_link_info(link, &info);
        if (drv->host_addr && info.host_addr != drv->host_addr)
            an2_log("the switch gave us address %u.%u, not %u.%u as before: endpoints opened "
                     "before keep their ids, which other hosts can no longer reach",
                     info.host_addr >> 8, info.host_addr & 0xffu, drv->host_addr >> 8,
                     drv->host_addr & 0xffu);
        drv->host_addr = info.host_addr;
        drv->uplink = link;
        return;
    }
    /* the uplink went: every call across it is gone, at once */
    drv_rdrains_uplink_gone(drv);
    for (uint32_t s = 0; s < drv->limits.max_clients; s++) {
        struct drv_client *c = &drv->clients[s];
        for (uint32_t i = 0; c->vcs && i < c->max_vcs; i++)
            if (c->vcs[i].used && c->vcs[i].remote && !c->vcs[i].released)
                drv_remote_vc_gone(drv, s, (uint16_t)i, AN2_CAUSE_LINK_DOWN);
    }
    drv->uplink = NULL;
    while (drv->nrpending) {
        struct drv_pending p = drv->rpending[0];
        drv_pending_remove(drv, drv->rpending, &drv->nrpending, 0);
        drv_reply_vc(&drv->clients[p.slot], -ENETUNREACH, p.to_id, 0, 0,
                     "the uplink to the switch went down");
    }
    drv->nheld = 0;
    while (drv->nlookups)
        answer_lookup(drv, 0, -ESRCH, 0);
}

uint32_t an2_driver_host_addr(const struct an2_driver *drv)
{
    return drv->host_addr;
}
