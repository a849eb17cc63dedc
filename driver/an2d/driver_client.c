/* driver_client.c — what every request handler of the driver does with a client: find it
 * by its endpoint, number a new endpoint, reply to it, mark it to be dropped when a reply
 * cannot go, and free its slot when it is gone. */
#include "driver_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "an2_fiber.h"
#include "an2_log.h"
#include "otto.h"

uint32_t drv_endpoint_id_alloc(struct an2_driver *drv)
{
    for (uint32_t n = 0; n < 65535; n++) {
        uint32_t local = drv->next_endpoint_id;
        drv->next_endpoint_id = local == 65535 ? 1 : local + 1;
        uint32_t id = an2_ep_global(drv->host_addr, local);
        if (!drv_client_by_id(drv, id))
            return id;
    }
    return 0;
}

struct drv_client *drv_client_by_id(struct an2_driver *drv, uint32_t endpoint_id)
{
    if (endpoint_id == 0)
        return NULL;
    for (uint32_t i = 0; i < drv->limits.max_clients; i++)
        if (drv->clients[i].fd >= 0 && drv->clients[i].endpoint_id == endpoint_id)
            return &drv->clients[i];
    return NULL;
}

void drv_reply_init(struct an2_ctl_reply *r, uint16_t op, int32_t status)
{
    memset(r, 0, sizeof *r);
    r->magic = AN2_CTL_MAGIC;
    r->version = AN2_CTL_VERSION;
    r->op = op;
    r->status = status;
}

void drv_doom(struct drv_client *c, const char *why)
{
    if (!c->doomed)
        snprintf(c->why, sizeof c->why, "%s", why);
    c->doomed = true;
}

bool drv_send(struct drv_client *c, const void *msg, size_t len, const int *fds, int nfds)
{
    if (c->doomed)
        return false;
    struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    if (nfds > 0) {
        memset(&ctl, 0, sizeof ctl);
        mh.msg_control = ctl.buf;
        mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    ssize_t n = sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == (ssize_t)len)
        return true;
    drv_doom(c, n < 0 && errno == EAGAIN ? "not reading its control socket" : "send failed");
    return false;
}

void drv_release_portion(struct an2_driver *drv, uint32_t slot)
{
    struct drv_client *c = &drv->clients[slot];
    if (c->lingering)
        an2_log("endpoint %u (pid %d): its last transmits are done",
                 c->endpoint_id, (int)c->pid);
    if (c->base) {
        otto_detach(drv->otto, slot);
        munmap(c->base, c->size);
    }
    free(c->vcs);
    memset(c, 0, sizeof *c);
    c->fd = c->kick_fd = c->irq_fd = -1;
}
