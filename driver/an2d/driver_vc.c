/* driver_vc.c — VC signalling: symmetric rendezvous, VCI allocation, switch routes and
 * controller bindings both ways, teardown that lets queued and sent cells go out, then
 * PEER_GONE. */
#include "driver_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an2_log.h"
#include "an2_switch.h"
#include "otto.h"

static bool vci_taken(const struct an2_driver *drv, uint32_t v)
{
    return drv->vci_used[v / 8] & (1u << (v % 8));
}

static void vci_mark(struct an2_driver *drv, uint32_t v, bool used)
{
    if (used)
        drv->vci_used[v / 8] |= (uint8_t)(1u << (v % 8));
    else
        drv->vci_used[v / 8] &= (uint8_t)~(1u << (v % 8));
}

void drv_vci_free(struct an2_driver *drv, uint16_t vci)
{
    vci_mark(drv, vci, false);
}

/* Next free VCI after the last one handed out, so that a closed VCI is reused late. */
int drv_vci_alloc(struct an2_driver *drv)
{
    for (uint32_t n = 0; n < 65536 - AN2_FIRST_VCI; n++) {
        uint32_t v = drv->vci_cursor;
        drv->vci_cursor = v == 65535 ? AN2_FIRST_VCI : v + 1;
        if (!vci_taken(drv, v)) {
            vci_mark(drv, v, true);
            return (int)v;
        }
    }
    return -ENOSPC;
}

int drv_free_vc_index(const struct drv_client *c)
{
    for (uint32_t i = 0; i < c->max_vcs; i++)
        if (!c->vcs[i].used)
            return (int)i;
    return -1;
}

void drv_reply_vc(struct drv_client *c, int status, uint32_t peer_id, uint16_t vc,
                  uint16_t vci, const char *detail)
{
    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_VC, status);
    r.peer_id = peer_id;
    r.vc = vc;
    r.itf = AN2_LINK_ITF;
    r.vpi = AN2_LINK_VPI;
    r.vci = vci;
    if (detail)
        snprintf(r.detail, sizeof r.detail, "%s", detail);
    drv_send(c, &r, sizeof r, NULL, 0);
}

bool drv_vc_may_ask(struct drv_client *c, const struct drv_pending *list, size_t n,
                    uint32_t peer_id)
{
    if (drv_pending_find(list, n, c->endpoint_id, peer_id) >= 0) {
        drv_reply_vc(c, -EALREADY, peer_id, 0, 0, "already asking that endpoint for a VC");
        return false;
    }
    if (c->vcs_open + c->pending >= c->max_vcs) {
        char detail[64];
        snprintf(detail, sizeof detail, "VC limit of this endpoint reached (%u)", c->max_vcs);
        drv_reply_vc(c, -ENOSPC, peer_id, 0, 0, detail);
        return false;
    }
    return true;
}

long drv_pending_find(const struct drv_pending *list, size_t n, uint32_t from_id,
                      uint32_t to_id)
{
    for (size_t i = 0; i < n; i++)
        if (list[i].from_id == from_id && list[i].to_id == to_id)
            return (long)i;
    return -1;
}

void drv_pending_remove(struct an2_driver *drv, struct drv_pending *list, size_t *n, size_t i)
{
    drv->clients[list[i].slot].pending--;
    list[i] = list[--*n];
}

/* Both ends agreed: allocate, program the switch both ways, bind, answer both. A step that
 * fails undoes the steps before it, in reverse. */
static void vc_connect(struct an2_driver *drv, uint32_t sa, uint32_t sb)
{
    struct drv_client *a = &drv->clients[sa], *b = &drv->clients[sb];
    int va = drv_free_vc_index(a), vb = drv_free_vc_index(b);
    int ca = -1, cb = -1, err = -ENOSPC;
    const char *what = "no free local VC index";
    if (va < 0 || vb < 0)
        goto fail;
    what = "no free VCI on the link";
    if ((ca = drv_vci_alloc(drv)) < 0 || (cb = drv_vci_alloc(drv)) < 0)
        goto free_vcis;
    what = "switch route";
    if ((err = an2_switch_route_add(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)ca,
                                    AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)cb)) != 0)
        goto free_vcis;
    if ((err = an2_switch_route_add(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)cb,
                                    AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)ca)) != 0)
        goto del_route_a;
    what = "controller bind";
    if ((err = otto_vc_bind(drv->otto, sa, (uint16_t)va, AN2_LINK_VPI, (uint16_t)ca)) != 0)
        goto del_route_b;
    if ((err = otto_vc_bind(drv->otto, sb, (uint16_t)vb, AN2_LINK_VPI, (uint16_t)cb)) != 0)
        goto unbind_a;
    drv->nroutes += 2;
    a->vcs[va] = (struct drv_vc){.used = true, .vci = (uint16_t)ca, .peer_id = b->endpoint_id,
                                 .peer_slot = sb, .peer_vc = (uint16_t)vb};
    b->vcs[vb] = (struct drv_vc){.used = true, .vci = (uint16_t)cb, .peer_id = a->endpoint_id,
                                 .peer_slot = sa, .peer_vc = (uint16_t)va};
    a->vcs_open++;
    b->vcs_open++;
    an2_log("VC open: endpoint %u vc %d (0.%d.%d) <-> endpoint %u vc %d (0.%d.%d)",
             a->endpoint_id, va, AN2_LINK_VPI, ca, b->endpoint_id, vb, AN2_LINK_VPI, cb);
    drv_reply_vc(a, 0, b->endpoint_id, (uint16_t)va, (uint16_t)ca, NULL);
    drv_reply_vc(b, 0, a->endpoint_id, (uint16_t)vb, (uint16_t)cb, NULL);
    return;
unbind_a:
    otto_vc_unbind(drv->otto, sa, (uint16_t)va);
del_route_b:
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)cb);
del_route_a:
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, (uint16_t)ca);
free_vcis:
    if (ca >= 0)
        vci_mark(drv, (uint32_t)ca, false);
    if (cb >= 0)
        vci_mark(drv, (uint32_t)cb, false);
fail:;
    char detail[96];
    snprintf(detail, sizeof detail, "VC setup failed: %s: %s", what, strerror(-err));
    an2_log("endpoints %u and %u: %s", a->endpoint_id, b->endpoint_id, detail);
    drv_reply_vc(a, err, b->endpoint_id, 0, 0, detail);
    drv_reply_vc(b, err, a->endpoint_id, 0, 0, detail);
}

void drv_vc_open(struct an2_driver *drv, uint32_t slot, uint32_t peer_id)
{
    struct drv_client *c = &drv->clients[slot];
    if (drv_is_remote(drv, peer_id)) {
        drv_remote_open(drv, slot, peer_id);
        return;
    }
    struct drv_client *peer = drv_client_by_id(drv, peer_id);
    char detail[96];
    if (!peer || peer == c) {
        snprintf(detail, sizeof detail, peer ? "a VC needs two endpoints"
                                             : "no endpoint %u is open", peer_id);
        drv_reply_vc(c, peer ? -EINVAL : -ESRCH, peer_id, 0, 0, detail);
        return;
    }
    if (!drv_uids_may_connect(drv, c->uid, peer->uid)) {
        snprintf(detail, sizeof detail, "endpoint %u belongs to another user: a VC joins "
                 "endpoints of one uid on the system an2d", peer_id);
        drv_reply_vc(c, -EACCES, peer_id, 0, 0, detail);
        return;
    }
    if (!drv_vc_may_ask(c, drv->pending, drv->npending, peer_id))
        return;
    if (drv_user_vc_check(drv, c, detail, sizeof detail) != 0) {
        drv_reply_vc(c, -EDQUOT, peer_id, 0, 0, detail);
        return;
    }
    long match = drv_pending_find(drv->pending, drv->npending, peer_id, c->endpoint_id);
    if (match >= 0) {
        drv_pending_remove(drv, drv->pending, &drv->npending, (size_t)match);
        vc_connect(drv, (uint32_t)(peer - drv->clients), slot);
        return;
    }
    if (drv->npending == drv->cap_pending) {
        size_t cap = drv->cap_pending ? 2 * drv->cap_pending : 16;
        struct drv_pending *p = realloc(drv->pending, cap * sizeof *p);
        if (!p) {
            drv_reply_vc(c, -ENOMEM, peer_id, 0, 0, "an2d out of memory");
            return;
        }
        drv->pending = p;
        drv->cap_pending = cap;
    }
    drv->pending[drv->npending++] =
        (struct drv_pending){.slot = slot, .from_id = c->endpoint_id, .to_id = peer_id};
    c->pending++;
}

void drv_vc_cancel(struct an2_driver *drv, uint32_t slot, uint32_t peer_id)
{
    struct drv_client *c = &drv->clients[slot];
    long i = drv_pending_find(drv->pending, drv->npending, c->endpoint_id, peer_id);
    if (i >= 0)
        drv_pending_remove(drv, drv->pending, &drv->npending, (size_t)i);
    bool withdrawn = i >= 0 || drv_remote_cancel(drv, slot, peer_id);
    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_CANCEL, withdrawn ? 0 : -ENOENT);
    r.peer_id = peer_id;
    drv_send(c, &r, sizeof r, NULL, 0);
}

static bool cells_buffered(const struct an2_driver *drv, uint16_t in_vci)
{
    struct an2_vc_switch_counters c;
    return an2_switch_vc_counters(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, in_vci, &c) == 0 &&
           c.cells_buffered > 0;
}

/* The other end of this VC is closed and nothing more comes from it: the receiver is told. */
static void tell_peer_gone(struct an2_driver *drv, uint32_t peer_slot, uint16_t peer_vc)
{
    struct drv_vc *pv = &drv->clients[peer_slot].vcs[peer_vc];
    pv->draining = false;
    pv->peer_gone = true;
    otto_vc_peer_gone(drv->otto, peer_slot, peer_vc);
}

/* The closed end's route goes (a partial PDU it left is discarded), its VCI is free again. */
static void drain_end(struct an2_driver *drv, const struct drv_drain *d)
{
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, d->vci);
    drv->nroutes--;
    vci_mark(drv, d->vci, false);
}

/* Keeps the closed end's route while cells sent before the close are still in the switch,
 * so that a VC closed right after sending loses nothing (the receiver may be busy). False
 * when nothing is buffered (or no memory to remember it): finish at once. */
static bool drain_start(struct an2_driver *drv, uint16_t vci, uint32_t peer_slot,
                        uint16_t peer_vc)
{
    if (!cells_buffered(drv, vci))
        return false;
    if (drv->ndrains == drv->cap_drains) {
        size_t cap = drv->cap_drains ? 2 * drv->cap_drains : 8;
        struct drv_drain *d = realloc(drv->drains, cap * sizeof *d);
        if (!d) {
            an2_log("VCI %u closed with cells buffered; out of memory: they are dropped", vci);
            return false;
        }
        drv->drains = d;
        drv->cap_drains = cap;
    }
    drv->drains[drv->ndrains++] =
        (struct drv_drain){.vci = vci, .peer_slot = peer_slot, .peer_vc = peer_vc};
    drv->clients[peer_slot].vcs[peer_vc].draining = true;
    return true;
}

static void vc_teardown(struct an2_driver *drv, uint32_t slot, uint16_t vc);

/* Marks a VC closing (taken down once its queued transmits have gone out); false if there
 * is no memory to remember it (then it must go at once). */
static bool closing_start(struct an2_driver *drv, uint32_t slot, uint16_t vc)
{
    if (drv->nclosing == drv->cap_closing) {
        size_t cap = drv->cap_closing ? 2 * drv->cap_closing : 8;
        struct drv_closing *a = realloc(drv->closing, cap * sizeof *a);
        if (!a) {
            an2_log("VC %u of slot %u closed with transmits queued; out of memory: aborted",
                     vc, slot);
            return false;
        }
        drv->closing = a;
        drv->cap_closing = cap;
    }
    drv->closing[drv->nclosing++] = (struct drv_closing){.slot = slot, .vc = vc};
    drv->clients[slot].vcs[vc].closing = true;
    return true;
}

static void closing_forget(struct an2_driver *drv, uint32_t slot, uint16_t vc)
{
    for (size_t i = 0; i < drv->nclosing; i++)
        if (drv->closing[i].slot == slot && drv->closing[i].vc == vc) {
            drv->closing[i] = drv->closing[--drv->nclosing];
            return;
        }
}

/* Closing VCs whose queued transmits have all gone out are taken down; a departed task's
 * slot goes with its last one. */
static void closing_check(struct an2_driver *drv)
{
    for (size_t i = 0; i < drv->nclosing;) {
        struct drv_closing k = drv->closing[i];
        if (otto_vc_tx_busy(drv->otto, k.slot, k.vc)) {
            i++;
            continue;
        }
        vc_teardown(drv, k.slot, k.vc); /* forgets entry i: the last one takes its place */
        struct drv_client *c = &drv->clients[k.slot];
        if (c->lingering && c->vcs_open == 0)
            drv_release_portion(drv, k.slot);
    }
}

void an2_driver_drains_check(struct an2_driver *drv)
{
    closing_check(drv);
    if (drv->nrdrains)
        drv_rdrains_check(drv, an2_now_ns());
    for (size_t i = 0; i < drv->ndrains;) {
        if (cells_buffered(drv, drv->drains[i].vci)) {
            i++;
            continue;
        }
        struct drv_drain d = drv->drains[i];
        drv->drains[i] = drv->drains[--drv->ndrains];
        drain_end(drv, &d);
        tell_peer_gone(drv, d.peer_slot, d.peer_vc);
    }
}

/* The receiving end closes too: what still drains toward it is dropped with the route. */
static void drain_cancel(struct an2_driver *drv, uint32_t peer_slot, uint16_t peer_vc)
{
    for (size_t i = 0; i < drv->ndrains; i++) {
        struct drv_drain d = drv->drains[i];
        if (d.peer_slot == peer_slot && d.peer_vc == peer_vc) {
            drv->drains[i] = drv->drains[--drv->ndrains];
            drain_end(drv, &d);
            return;
        }
    }
}

/* Takes one end down: the local binding goes (a PDU it was sending is aborted), the route
 * toward it at once, the route from it once the cells it sent have left the switch (then
 * the peer is told). */
static void vc_teardown(struct an2_driver *drv, uint32_t slot, uint16_t vc)
{
    struct drv_client *c = &drv->clients[slot];
    struct drv_vc v = c->vcs[vc];
    if (v.closing)
        closing_forget(drv, slot, vc);
    otto_vc_unbind(drv->otto, slot, vc);
    memset(&c->vcs[vc], 0, sizeof c->vcs[vc]);
    c->vcs_open--;
    bool vci_kept = false;
    if (v.remote) {
        vci_kept = drv_remote_teardown(drv, &v);
    } else if (v.draining) {
        drain_cancel(drv, slot, vc);
    } else if (!v.peer_gone) {
        struct drv_vc *pv = &drv->clients[v.peer_slot].vcs[v.peer_vc];
        an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, pv->vci);
        drv->nroutes--;
        vci_kept = drain_start(drv, v.vci, v.peer_slot, v.peer_vc);
        if (!vci_kept) {
            an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, v.vci);
            drv->nroutes--;
            tell_peer_gone(drv, v.peer_slot, v.peer_vc);
        }
    }
    if (!vci_kept)
        vci_mark(drv, v.vci, false);
}

void drv_vc_close(struct an2_driver *drv, uint32_t slot, uint32_t vc)
{
    struct drv_client *c = &drv->clients[slot];
    int status = 0;
    if (vc >= c->max_vcs || !c->vcs[vc].used || c->vcs[vc].closing) {
        status = -EBADF;
    } else if (!otto_vc_tx_busy(drv->otto, slot, (uint16_t)vc) ||
               !closing_start(drv, slot, (uint16_t)vc)) {
        vc_teardown(drv, slot, (uint16_t)vc);
    }
    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_CLOSE, status);
    r.vc = (uint16_t)vc;
    if (status)
        snprintf(r.detail, sizeof r.detail, "no VC %u open on this endpoint", vc);
    drv_send(c, &r, sizeof r, NULL, 0);
}

bool drv_vc_release_all(struct an2_driver *drv, uint32_t slot, bool keep_closing)
{
    struct drv_client *c = &drv->clients[slot];
    drv_remote_release_all(drv, slot);
    for (size_t i = 0; i < drv->npending;) {
        struct drv_pending p = drv->pending[i];
        if (p.slot == slot) {
            drv_pending_remove(drv, drv->pending, &drv->npending, i);
        } else if (p.to_id == c->endpoint_id) {
            drv_pending_remove(drv, drv->pending, &drv->npending, i);
            drv_reply_vc(&drv->clients[p.slot], -ESRCH, c->endpoint_id, 0, 0,
                     "the peer endpoint closed before agreeing");
        } else {
            i++;
        }
    }
    bool closing = false;
    for (uint32_t vc = 0; c->vcs && vc < c->max_vcs; vc++) {
        if (c->vcs[vc].used && !(keep_closing && c->vcs[vc].closing))
            vc_teardown(drv, slot, (uint16_t)vc);
        closing |= c->vcs[vc].closing;
    }
    return closing;
}
