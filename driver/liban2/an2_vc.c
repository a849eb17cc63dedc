/* an2_vc.c — VC signalling from the task's side: ask an2d for a VC to a peer endpoint
 * (blocking, or start + complete), withdraw a request, close a VC. */
#include "an2_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CTL_SEND_TIMEOUT_MS 10000 /* an an2d that reads no requests (stopped, hung) */

int an2_ctl_send(an2_ep *ep, const struct an2_ctl_req *q)
{
    ssize_t n = send(ep->ctl_fd, q, sizeof *q, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EAGAIN) { /* its queue is full: wait for room, not forever */
        struct pollfd p = {.fd = ep->ctl_fd, .events = POLLOUT};
        if (poll(&p, 1, CTL_SEND_TIMEOUT_MS) != 1) {
            an2_set_detail("an2d takes no requests");
            return -ETIMEDOUT;
        }
        n = send(ep->ctl_fd, q, sizeof *q, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    if (n == (ssize_t)sizeof *q)
        return 0;
    an2_set_detail("lost the connection to an2d");
    return n < 0 ? -errno : -EPROTO;
}

void an2_note_vc_answer(an2_ep *ep, const struct an2_ctl_reply *r)
{
    struct an2_done d = {.status = r->status, .info = {.peer_id = r->peer_id}};
    if (r->status == 0) {
        if (r->vc >= ep->geo.max_vcs)
            d.status = -EPROTO;
        d.info.vc = r->vc;
        d.info.itf = r->itf;
        d.info.vpi = r->vpi;
        d.info.vci = r->vci;
        an2_addr_format(d.info.addr, sizeof d.info.addr, r->itf, r->vpi, r->vci);
        if (d.status == 0) {
            ep->vcs[r->vc] = d.info;
            /* we are the ring's producer; the controller may have reset it at bind, before
             * an2d answered (the socket round trip orders that) */
            ep->rx_prod[r->vc] = otto_shared_get(&ep->rx_index[r->vc].prod);
        }
    } else if (r->detail[0]) {
        an2_set_detail(r->detail);
    }
    if (ep->ndone == ep->cap_done) {
        unsigned cap = ep->cap_done ? 2 * ep->cap_done : 8;
        struct an2_done *grown = realloc(ep->done, cap * sizeof *grown);
        if (!grown)
            return; /* out of memory: the VC shows in an2_vc_info, its answer is lost */
        ep->done = grown;
        ep->cap_done = cap;
    }
    ep->done[ep->ndone++] = d;
}

int an2_ctl_recv(an2_ep *ep, struct an2_ctl_reply *r, int timeout_ms)
{
    struct pollfd p = {.fd = ep->ctl_fd, .events = POLLIN};
    int pr = poll(&p, 1, timeout_ms);
    if (pr < 0)
        return errno == EINTR ? 0 : -errno;
    if (pr == 0)
        return 0;
    ssize_t n = recv(ep->ctl_fd, r, sizeof *r, MSG_DONTWAIT);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
    if (n == 0) {
        an2_set_detail("an2d closed the connection");
        return -ECONNRESET;
    }
    if (n != (ssize_t)sizeof *r || r->magic != AN2_CTL_MAGIC) {
        an2_set_detail("garbled reply from an2d");
        return -EPROTO;
    }
    r->detail[sizeof r->detail - 1] = 0;
    if (r->op == AN2_CTL_R_VC)
        an2_note_vc_answer(ep, r);
    return 1;
}

int an2_vc_open_start(an2_ep *ep, uint32_t peer_id)
{
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_VC_OPEN, .peer_id = peer_id};
    return an2_ctl_send(ep, &q);
}

/* Takes the stored answer about peer_id (any peer if 0) out of ep->done. */
static int take_done(an2_ep *ep, uint32_t peer_id, struct an2_vc_info *out)
{
    for (unsigned i = 0; i < ep->ndone; i++) {
        if (peer_id && ep->done[i].info.peer_id != peer_id)
            continue;
        struct an2_done d = ep->done[i];
        memmove(&ep->done[i], &ep->done[i + 1], (ep->ndone - i - 1) * sizeof d);
        ep->ndone--;
        if (out)
            *out = d.info;
        return d.status == 0 ? 1 : d.status;
    }
    return 0;
}

int an2_vc_open_complete(an2_ep *ep, struct an2_vc_info *out)
{
    struct an2_ctl_reply r;
    int rc;
    while ((rc = an2_ctl_recv(ep, &r, 0)) > 0) {
    }
    if (rc < 0)
        return rc;
    return take_done(ep, 0, out);
}

int an2_ctl_call(an2_ep *ep, const struct an2_ctl_req *q, uint16_t reply_op,
                 struct an2_ctl_reply *r)
{
    int rc = an2_ctl_send(ep, q);
    if (rc != 0)
        return rc;
    uint32_t key = q->op == AN2_CTL_VC_CANCEL ? q->peer_id : q->name;
    uint64_t deadline = an2_now_ns() + 10000000000ull;
    for (;;) {
        int left = an2_ms_left(deadline);
        if (left == 0)
            return -ETIMEDOUT;
        rc = an2_ctl_recv(ep, r, left);
        if (rc < 0)
            return rc;
        if (rc == 0)
            continue;
        if (r->op == AN2_CTL_R_ERROR) {
            an2_set_detail(r->detail);
            return r->status ? r->status : -EPROTO;
        }
        bool mine = r->op == reply_op &&
                    (reply_op == AN2_CTL_R_CLOSE ? r->vc == q->vc : r->peer_id == key);
        if (mine) {
            if (r->status != 0)
                an2_set_detail(r->detail);
            return 0;
        }
    }
}

int an2_vc_open_cancel(an2_ep *ep, uint32_t peer_id)
{
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_VC_CANCEL, .peer_id = peer_id};
    struct an2_ctl_reply r;
    /* Answers come in order: an R_VC for this peer sent before the cancel arrives first. */
    int rc = an2_ctl_call(ep, &q, AN2_CTL_R_CANCEL, &r);
    if (rc != 0 || r.status == 0)
        return rc;
    for (unsigned i = 0; i < ep->ndone; i++)
        if (ep->done[i].info.peer_id == peer_id)
            return 1;
    return -ENOENT;
}

int an2_vc_open(an2_ep *ep, uint32_t peer_id, int timeout_ms, struct an2_vc_info *out)
{
    int rc = take_done(ep, peer_id, out); /* an earlier non-blocking start may be answered */
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    rc = an2_vc_open_start(ep, peer_id);
    if (rc != 0)
        return rc;
    uint64_t deadline = timeout_ms < 0 ? UINT64_MAX
                                       : an2_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        rc = take_done(ep, peer_id, out);
        if (rc != 0)
            return rc > 0 ? 0 : rc;
        int left = an2_ms_left(deadline);
        if (left == 0) {
            rc = an2_vc_open_cancel(ep, peer_id);
            if (rc == 1) {
                rc = take_done(ep, peer_id, out);
                return rc > 0 ? 0 : rc;
            }
            an2_set_detail("the peer did not ask for a VC to us in time");
            return rc < 0 && rc != -ENOENT ? rc : -ETIMEDOUT;
        }
        struct an2_ctl_reply r;
        rc = an2_ctl_recv(ep, &r, left);
        if (rc < 0)
            return rc;
    }
}

int an2_vc_close(an2_ep *ep, uint16_t vc)
{
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_VC_CLOSE, .vc = vc};
    struct an2_ctl_reply r;
    int rc = an2_ctl_call(ep, &q, AN2_CTL_R_CLOSE, &r);
    if (rc != 0)
        return rc;
    if (r.status == 0)
        memset(&ep->vcs[vc], 0, sizeof ep->vcs[vc]);
    return r.status;
}

int an2_vc_info(const an2_ep *ep, uint16_t vc, struct an2_vc_info *out)
{
    if (vc >= ep->geo.max_vcs || ep->vcs[vc].peer_id == 0)
        return -EBADF;
    *out = ep->vcs[vc];
    return 0;
}
