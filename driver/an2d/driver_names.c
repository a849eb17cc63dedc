/* driver_names.c — the endpoint registry: a task names its endpoint (a PVM task gives its tid)
 * so that peers can find the endpoint id to open a VC to; the name dies with the endpoint or
 * when the endpoint registers name 0. A system an2d keeps a registry per uid. */
#include <errno.h>
#include <stdio.h>

#include "an2_log.h"
#include "driver_state.h"

/* The endpoint of uid's namespace holding name (a system an2d keeps one per uid). */
static struct drv_client *client_by_name(struct an2_driver *drv, uint32_t name, uid_t uid)
{
    for (uint32_t i = 0; i < drv->limits.max_clients; i++) {
        struct drv_client *c = &drv->clients[i];
        if (c->fd >= 0 && c->endpoint_id && !c->doomed && c->name == name &&
            (!drv->limits.multiuser || c->uid == uid))
            return c;
    }
    return NULL;
}

void drv_name_request(struct an2_driver *drv, uint32_t slot, const struct an2_ctl_req *q)
{
    struct drv_client *c = &drv->clients[slot];
    struct an2_ctl_reply r;
    bool reg = q->op == AN2_CTL_REGISTER;
    drv_reply_init(&r, reg ? AN2_CTL_R_REGISTER : AN2_CTL_R_LOOKUP, 0);
    struct drv_client *holder = q->name ? client_by_name(drv, q->name, c->uid) : NULL;
    if (q->name == 0 && reg) {
        c->name = 0;   /* the endpoint gives its name up (a task leaving PVM) */
    } else if (q->name == 0) {
        r.status = -EINVAL;
        snprintf(r.detail, sizeof r.detail, "name 0 is not a name");
    } else if (reg && holder && holder != c) {
        r.status = -EADDRINUSE;
        snprintf(r.detail, sizeof r.detail, "name 0x%x belongs to endpoint %u", q->name,
                 holder->endpoint_id);
    } else if (reg) {
        c->name = q->name;
        r.endpoint_id = c->endpoint_id;
        an2_log("endpoint %u (pid %d) is named 0x%x", c->endpoint_id, (int)c->pid, q->name);
        drv_remote_name_registered(drv, c);
    } else if (!holder && drv_remote_lookup(drv, slot, q->name)) {
        return; /* asked over the fabric: FOUND or a timeout answers */
    } else if (!holder) {
        r.status = -ESRCH;
        snprintf(r.detail, sizeof r.detail, "no endpoint is named 0x%x", q->name);
    } else {
        r.endpoint_id = holder->endpoint_id;
    }
    r.peer_id = q->name;
    drv_send(c, &r, sizeof r, NULL, 0);
}
