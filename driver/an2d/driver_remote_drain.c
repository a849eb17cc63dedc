/* driver_remote_drain.c — a remote VC's release waits for the cells sent before it: our
 * closed end's RELEASE until its cells have left for the uplink, the peer's release (our
 * PEER_GONE) until its cells have reached our VC; bounded by AN2_FIBER_DRAIN_STALL_MS. */
#include <stdlib.h>

#include "an2_fiber.h"
#include "an2_link.h"
#include "an2_log.h"
#include "an2_switch.h"
#include "driver_state.h"

#define STALL_NS ((uint64_t)AN2_FIBER_DRAIN_STALL_MS * 1000000u)

/* The switch route a drain waits on: from our controller (outward) or from the uplink. */
static bool route_counters(const struct an2_driver *drv, const struct drv_rdrain *d,
                           struct an2_vc_switch_counters *out)
{
    return d->outward
               ? an2_switch_vc_counters(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, d->vci, out) == 0
               : an2_switch_vc_counters(drv->sw, AN2_UPLINK_PORT, 0, d->link_vci, out) == 0;
}

/* Remembers d if cells are buffered on its route; false when nothing is (or no memory: the
 * release goes at once, as before). */
static bool rdrain_add(struct an2_driver *drv, struct drv_rdrain d)
{
    struct an2_vc_switch_counters c;
    if (!route_counters(drv, &d, &c) || c.cells_buffered == 0)
        return false;
    if (drv->nrdrains == drv->cap_rdrains) {
        size_t cap = drv->cap_rdrains ? 2 * drv->cap_rdrains : 8;
        struct drv_rdrain *a = realloc(drv->rdrains, cap * sizeof *a);
        if (!a) {
            an2_log("uplink VCI %u released with cells buffered; out of memory: they are "
                     "dropped", d.link_vci);
            return false;
        }
        drv->rdrains = a;
        drv->cap_rdrains = cap;
    }
    d.moved_ns = an2_now_ns();
    d.cells_out = c.cells_out;
    drv->rdrains[drv->nrdrains++] = d;
    drv->releases_held++;
    return true;
}

bool drv_rdrain_outward(struct an2_driver *drv, uint16_t vci, uint16_t link_vci)
{
    return rdrain_add(drv, (struct drv_rdrain){.outward = true, .vci = vci,
                                               .link_vci = link_vci});
}

bool drv_rdrain_inward(struct an2_driver *drv, uint32_t slot, uint16_t vc, uint8_t cause)
{
    struct drv_vc *v = &drv->clients[slot].vcs[vc];
    if (!rdrain_add(drv, (struct drv_rdrain){.link_vci = v->link_vci, .slot = slot, .vc = vc,
                                             .cause = cause}))
        return false;
    v->release_held = true;
    /* our task's cells toward the peer are not wanted any more */
    an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, v->vci);
    drv->nroutes--;
    return true;
}

/* Drain i is over (all its cells left, or given up): outward, the route goes, the VCI is
 * free and the RELEASE follows (unless the switch has forgotten the call: send_release
 * false); inward, our end is told PEER_GONE. */
static void rdrain_end(struct an2_driver *drv, size_t i, bool send_release)
{
    struct drv_rdrain d = drv->rdrains[i];
    drv->rdrains[i] = drv->rdrains[--drv->nrdrains];
    if (d.outward) {
        an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, d.vci);
        drv->nroutes--;
        drv_vci_free(drv, d.vci);
        if (send_release)
            drv_remote_release(drv, d.link_vci, AN2_CAUSE_NORMAL);
        else if (drv->uplink)
            an2_link_vc_del(drv->uplink, d.link_vci);
    } else {
        /* the route from our end went when the drain began: vc_gone counts both */
        drv->nroutes++;
        drv_remote_vc_gone(drv, d.slot, d.vc, d.cause);
    }
}

void drv_rdrains_check(struct an2_driver *drv, uint64_t now_ns)
{
    /* bounded: each pass either moves to the next drain or removes one */
    for (size_t i = 0; i < drv->nrdrains;) {
        struct drv_rdrain *d = &drv->rdrains[i];
        struct an2_vc_switch_counters c = {0};
        if (!route_counters(drv, d, &c) || c.cells_buffered == 0) {
            rdrain_end(drv, i, true);
            continue;
        }
        if (c.cells_out != d->cells_out) {
            d->cells_out = c.cells_out;
            d->moved_ns = now_ns;
        } else if (now_ns > d->moved_ns && now_ns - d->moved_ns >= STALL_NS) {
            static struct an2_log_limit limit;
            an2_log_limited(&limit,
                             "uplink VCI %u: %u cells of a released VC did not move for %u ms "
                             "(%s stalled): released, cells dropped", d->link_vci,
                             c.cells_buffered, AN2_FIBER_DRAIN_STALL_MS,
                             d->outward ? "the fabric" : "our receiver");
            drv->releases_given_up++;
            rdrain_end(drv, i, true);
            continue;
        }
        i++;
    }
}

void drv_rdrain_cancel_inward(struct an2_driver *drv, uint16_t link_vci)
{
    for (size_t i = 0; i < drv->nrdrains; i++)
        if (!drv->rdrains[i].outward && drv->rdrains[i].link_vci == link_vci) {
            drv->rdrains[i] = drv->rdrains[--drv->nrdrains];
            return;
        }
}

bool drv_rdrain_end_link_vci(struct an2_driver *drv, uint16_t link_vci, const char *why)
{
    for (size_t i = 0; i < drv->nrdrains; i++)
        if (drv->rdrains[i].link_vci == link_vci && (why || drv->rdrains[i].outward)) {
            if (why) {
                static struct an2_log_limit limit;
                an2_log_limited(&limit, "uplink VCI %u: %s while a released VC's cells drain "
                                 "on it: they are dropped", link_vci, why);
                drv->releases_given_up++;
            }
            rdrain_end(drv, i, false);
            return true;
        }
    return false;
}

void drv_rdrains_uplink_gone(struct an2_driver *drv)
{
    while (drv->nrdrains) {
        struct drv_rdrain d = drv->rdrains[--drv->nrdrains];
        if (d.outward) { /* the switch releases the far end: no RELEASE from us */
            an2_switch_route_del(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, d.vci);
            drv->nroutes--;
            drv_vci_free(drv, d.vci);
        } else { /* still !released: the caller reports it gone with the rest (both routes) */
            drv->nroutes++;
        }
    }
}
