/* driver_users.c — a system an2d serving every uid, as a device driver does: which uids'
 * endpoints a VC may join, who sees which endpoint, and each uid's limits on connections,
 * endpoints, VC ends and portion memory (so that no user can take what the others need). */
#include <errno.h>
#include <stdio.h>

#include "driver_state.h"

/* Clients of uid: open connections, and endpoints still holding a portion (lingering too). */
struct user_use {
    uint32_t clients, endpoints, vc_ends;
    uint64_t mem;
};

static struct user_use user_use(const struct an2_driver *drv, uid_t uid)
{
    struct user_use u = {0};
    for (uint32_t i = 0; i < drv->limits.max_clients; i++) {
        const struct drv_client *c = &drv->clients[i];
        if ((c->fd < 0 && !c->lingering) || c->uid != uid)
            continue;
        u.clients += c->fd >= 0;
        if (c->endpoint_id) {
            u.endpoints++;
            u.vc_ends += c->vcs_open + c->pending;
            u.mem += c->size;
        }
    }
    return u;
}

bool drv_uids_may_connect(const struct an2_driver *drv, uid_t a, uid_t b)
{
    if (!drv->limits.multiuser || a == b)
        return true;
    for (uint32_t i = 0; i < drv->limits.nallow; i++) {
        uint32_t x = drv->limits.allow_vc[i].a, y = drv->limits.allow_vc[i].b;
        if ((x == a && y == b) || (x == b && y == a))
            return true;
    }
    return false;
}

bool drv_uid_sees(const struct an2_driver *drv, uid_t uid, const struct drv_client *c)
{
    return !drv->limits.multiuser || uid == 0 || c->uid == uid;
}

int drv_user_connection_check(const struct an2_driver *drv, uid_t uid, char *detail, size_t len)
{
    if (!drv->limits.multiuser)
        return 0;
    struct user_use u = user_use(drv, uid);
    if (u.clients < drv->limits.max_user_clients)
        return 0;
    snprintf(detail, len, "uid %u holds %u connections to an2d already (--max-user-clients)",
             (unsigned)uid, u.clients);
    return -EUSERS;
}

int drv_user_open_check(const struct an2_driver *drv, const struct drv_client *c,
                        uint64_t portion_size, char *detail, size_t len)
{
    if (!drv->limits.multiuser)
        return 0;
    const struct an2_driver_limits *L = &drv->limits;
    struct user_use u = user_use(drv, c->uid);
    if (u.endpoints >= L->max_user_endpoints) {
        snprintf(detail, len, "uid %u holds %u endpoints already (--max-user-endpoints)",
                 (unsigned)c->uid, u.endpoints);
        return -EDQUOT;
    }
    if (u.mem + portion_size > L->max_user_mem) {
        /* (the option first: the detail is cut at 99 bytes, and uids can be long) */
        snprintf(detail, len, "--max-user-mem %llu: uid %u holds %llu bytes of portions, "
                 "asks %llu more", (unsigned long long)L->max_user_mem, (unsigned)c->uid,
                 (unsigned long long)u.mem, (unsigned long long)portion_size);
        return -EDQUOT;
    }
    return 0;
}

int drv_user_vc_check(const struct an2_driver *drv, const struct drv_client *c, char *detail,
                      size_t len)
{
    if (!drv->limits.multiuser)
        return 0;
    struct user_use u = user_use(drv, c->uid);
    if (u.vc_ends < drv->limits.max_user_vc_ends)
        return 0;
    snprintf(detail, len, "uid %u holds %u VC ends already (--max-user-vcs)", (unsigned)c->uid,
             u.vc_ends);
    return -EDQUOT;
}
