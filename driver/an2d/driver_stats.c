/* driver_stats.c — the STATS answer: switch port counters, endpoints and their VCs with the
 * controller's and the switch's counters, in one message (what an2stat prints). */
#include "an2_link.h"
#include "driver_state.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an2_switch.h"
#include "otto.h"

#define STAT_NPORTS 2u /* the controller's port and, on a fabric, the uplink */

static void fill_vc(struct an2_driver *drv, uint32_t slot, uint16_t vc, struct an2_stat_vc *s)
{
    const struct drv_client *c = &drv->clients[slot];
    const struct drv_vc *v = &c->vcs[vc];
    memset(s, 0, sizeof *s);
    s->endpoint_id = c->endpoint_id;
    s->peer_id = v->peer_id;
    s->vc = vc;
    s->itf = AN2_LINK_ITF;
    s->vpi = AN2_LINK_VPI;
    s->vci = v->vci;
    s->peer_gone = v->peer_gone;
    s->closing = v->closing;
    s->closing = v->closing;
    struct otto_vc_counters oc;
    if (otto_vc_counters(drv->otto, slot, vc, &oc) == 0) {
        s->tx_pdus = oc.tx_pdus;
        s->tx_cells = oc.tx_cells;
        s->tx_bytes = oc.tx_bytes;
        s->rx_pdus = oc.rx_pdus;
        s->rx_cells = oc.rx_cells;
        s->rx_bytes = oc.rx_bytes;
        s->crc_errors = oc.crc_errors;
        s->length_errors = oc.length_errors;
        s->protection_errors = oc.protection_errors;
        s->aborted = oc.aborted;
        s->rx_posted_max = oc.rx_posted_max;
        s->host_resent = oc.host.resent;
        s->host_dups_dropped = oc.host.dups_dropped;
        s->host_recoveries = oc.host.recoveries;
    }
    struct an2_vc_switch_counters sc;
    if (!v->peer_gone &&
        an2_switch_vc_counters(drv->sw, AN2_HOST_PORT, AN2_LINK_VPI, v->vci, &sc) == 0) {
        s->sw_cells_in = sc.cells_in;
        s->sw_cells_out = sc.cells_out;
        s->sw_credits = sc.credits_granted;
        s->sw_stalls = sc.stalls;
        s->sw_drops = sc.drops;
        s->sw_buffered = sc.cells_buffered;
    }
}

void drv_stats(struct an2_driver *drv, uint32_t slot)
{
    char *msg = calloc(1, AN2_CTL_STATS_MAX);
    if (!msg) {
        drv_doom(&drv->clients[slot], "out of memory for stats");
        return;
    }
    struct an2_stat_hdr *h = (struct an2_stat_hdr *)msg;
    h->magic = AN2_CTL_MAGIC;
    h->version = AN2_CTL_VERSION;
    h->op = AN2_CTL_R_STATS;
    h->pid = (int32_t)getpid();
    h->cells_per_second = drv->cells_per_second;
    h->uptime_ns = an2_now_ns() - drv->start_ns;
    h->npending = (uint32_t)drv->npending;
    h->nroutes = drv->nroutes;
    h->host_addr = drv->host_addr;
    if (drv->uplink) {
        struct an2_link_info li;
        an2_link_info(drv->uplink, &li);
        h->uplink_up = li.up;
        h->uplink_rtt_ns = li.rtt_ns;
    }
    size_t off = sizeof *h;
    /* a system an2d shows a task of another uid than root its own endpoints only: no ports
     * (their counters sum every user's traffic), and its own VC ends and pending requests */
    uid_t uid = drv->clients[slot].uid;
    bool all = !drv->limits.multiuser || uid == 0;
    if (!all) {
        h->npending = h->nroutes = 0;
        for (size_t i = 0; i < drv->npending; i++)
            h->npending += drv->clients[drv->pending[i].slot].uid == uid;
    }

    for (unsigned p = 0; p < STAT_NPORTS && all; p++) {
        struct an2_port_counters pc;
        struct an2_stat_port *sp = (struct an2_stat_port *)(msg + off);
        if (an2_switch_port_counters(drv->sw, p, &pc) != 0)
            continue;
        *sp = (struct an2_stat_port){.port = p, .cells_in = pc.cells_in,
                                     .cells_out = pc.cells_out,
                                     .credits_granted = pc.credits_granted,
                                     .stalls = pc.stalls, .drops = pc.drops};
        off += sizeof *sp;
        h->nports++;
    }
    for (uint32_t i = 0; i < drv->limits.max_clients; i++) {
        const struct drv_client *c = &drv->clients[i];
        if ((c->fd < 0 && !c->lingering) || !c->endpoint_id || !drv_uid_sees(drv, uid, c))
            continue;
        if (off + sizeof(struct an2_stat_ep) > AN2_CTL_STATS_MAX) {
            h->truncated = 1;
            break;
        }
        struct an2_stat_ep *se = (struct an2_stat_ep *)(msg + off);
        *se = (struct an2_stat_ep){.endpoint_id = c->endpoint_id, .pid = c->pid,
                                   .max_vcs = c->max_vcs, .vcs_open = c->vcs_open,
                                   .buf_size = c->buf_size, .portion_size = c->size,
                                   .name = c->name, .lingering = c->lingering,
                                   .uid = (uint32_t)c->uid};
        off += sizeof *se;
        h->nendpoints++;
    }
    for (uint32_t i = 0; i < drv->limits.max_clients && !h->truncated; i++) {
        const struct drv_client *c = &drv->clients[i];
        if ((c->fd < 0 && !c->lingering) || !c->endpoint_id || !drv_uid_sees(drv, uid, c))
            continue;
        for (uint32_t vc = 0; vc < c->max_vcs; vc++) {
            if (!c->vcs[vc].used)
                continue;
            h->nroutes += !all; /* (each VC end's cells take one route in) */
            if (off + sizeof(struct an2_stat_vc) > AN2_CTL_STATS_MAX) {
                h->truncated = 1;
                break;
            }
            fill_vc(drv, i, (uint16_t)vc, (struct an2_stat_vc *)(msg + off));
            off += sizeof(struct an2_stat_vc);
            h->nvcs++;
        }
    }
    drv_send(&drv->clients[slot], msg, off, NULL, 0);
    free(msg);
}
