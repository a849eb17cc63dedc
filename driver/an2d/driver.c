/* driver.c — the driver's clients: accepting tasks, handing out portions, parsing requests,
 * waking sleepers, and dropping a client however it goes away. */
#include "an2_fiber.h"
#include "driver_state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "an2_log.h"
#include "otto.h"

struct an2_driver *an2_driver_create(const struct an2_driver_limits *limits, int epoll_fd,
                                     double cells_per_second)
{
    struct an2_driver *drv = calloc(1, sizeof *drv);
    if (!drv)
        return NULL;
    drv->limits = *limits;
    drv->epoll_fd = epoll_fd;
    drv->cells_per_second = cells_per_second;
    drv->start_ns = an2_now_ns();
    drv->next_endpoint_id = 1;
    drv->vci_cursor = AN2_FIRST_VCI;
    /* switches forward a LOOKUP once per (asker, number): an an2d restarted at the same
     * address must not count from where its predecessor did, or its first look-ups would be
     * taken for ones already seen and dropped */
    drv->lookup_ref = (uint32_t)(drv->start_ns ^ (drv->start_ns >> 32));
    drv->clients = calloc(limits->max_clients, sizeof *drv->clients);
    if (!drv->clients) {
        free(drv);
        errno = ENOMEM;
        return NULL;
    }
    for (uint32_t i = 0; i < limits->max_clients; i++)
        drv->clients[i].fd = drv->clients[i].kick_fd = drv->clients[i].irq_fd = -1;
    return drv;
}

void an2_driver_set_hardware(struct an2_driver *drv, struct otto *otto, struct an2_switch *sw)
{
    drv->otto = otto;
    drv->sw = sw;
}

static void drop_client(struct an2_driver *drv, uint32_t slot, const char *why, bool now);

void an2_driver_destroy(struct an2_driver *drv)
{
    if (!drv)
        return;
    for (uint32_t i = 0; i < drv->limits.max_clients; i++) {
        struct drv_client *c = &drv->clients[i];
        if (c->lingering) {
            an2_log("endpoint %u (pid %d) had transmits left: an2d stopping",
                     c->endpoint_id, (int)c->pid);
            drv_vc_release_all(drv, i, false);
            c->lingering = false;
            drv_release_portion(drv, i);
        }
        drop_client(drv, i, "an2d stopping", true);
    }
    free(drv->pending);
    free(drv->rpending);
    free(drv->held);
    free(drv->lookups);
    free(drv->drains);
    free(drv->closing);
    free(drv->rdrains);
    free(drv->clients);
    free(drv);
}

bool an2_driver_stop_requested(const struct an2_driver *drv) { return drv->stop_requested; }

/* The emulated interrupt: count it where the task futex-waits, and wake the task. */
void an2_driver_interrupt(void *ctx, uint32_t portion_id)
{
    struct an2_driver *drv = ctx;
    if (portion_id >= drv->limits.max_clients || !drv->clients[portion_id].base)
        return;
    struct otto_portion_hdr *hdr = drv->clients[portion_id].base;
    /* the reports published before the interrupt are visible to a task that reads the new
     * count (the futex wake itself also orders; this documents it) */
    otto_shared_count(&hdr->irq_count);
    /* for a task sleeping in poll() with other descriptors (an2_irq_fd); before the futex
     * wake, so that a futex sleeper that drains the descriptor after waking finds it set */
    uint64_t one = 1;
    ssize_t n = write(drv->clients[portion_id].irq_fd, &one, sizeof one);
    (void)n; /* EAGAIN: the counter is saturated, the task is woken anyway */
    syscall(SYS_futex, &hdr->irq_count, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Says why a connection is refused (one reply, not waited for), then closes it. */
static void refuse_connection(int fd, int err, const char *detail)
{
    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_ERROR, -err);
    snprintf(r.detail, sizeof r.detail, "%s", detail);
    ssize_t n = send(fd, &r, sizeof r, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)n; /* a client that cannot take it learns from the closed connection */
    close(fd);
}

int an2_driver_accept(struct an2_driver *drv, int listen_fd)
{
    static struct an2_log_limit accept_limit, refuse_limit;
    for (int budget = 0; budget < 256; budget++) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN)
                return 0;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                return -errno; /* the loop stops listening for a while */
            an2_log_limited(&accept_limit, "accept: %s", strerror(errno));
            return 0;
        }
        struct ucred cred;
        socklen_t cl = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0) {
            an2_log_limited(&refuse_limit, "refused a client: SO_PEERCRED: %s",
                             strerror(errno));
            close(fd);
            continue;
        }
        if (cred.uid != geteuid() && !drv->limits.multiuser) {
            an2_log_limited(&refuse_limit, "refused pid %d: uid %u is not an2d's uid %u",
                             (int)cred.pid, (unsigned)cred.uid, (unsigned)geteuid());
            close(fd);
            continue;
        }
        char detail[96];
        int over = drv_user_connection_check(drv, cred.uid, detail, sizeof detail);
        if (over != 0) {
            an2_log_limited(&refuse_limit, "refused pid %d: %s", (int)cred.pid, detail);
            refuse_connection(fd, -over, detail);
            continue;
        }
        uint32_t slot = 0;
        while (slot < drv->limits.max_clients &&
               (drv->clients[slot].fd >= 0 || drv->clients[slot].lingering))
            slot++;
        if (slot == drv->limits.max_clients) {
            snprintf(detail, sizeof detail, "an2d serves %u clients already (--max-clients)",
                     (unsigned)drv->limits.max_clients);
            an2_log_limited(&refuse_limit, "refused pid %d: %s", (int)cred.pid, detail);
            refuse_connection(fd, EUSERS, detail);
            continue;
        }
        struct epoll_event ev = {.events = EPOLLIN,
                                 .data.u64 = AN2_DRIVER_EPOLL_BASE + 2 * (uint64_t)slot};
        if (epoll_ctl(drv->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            an2_log_limited(&refuse_limit, "refused pid %d: epoll: %s", (int)cred.pid,
                             strerror(errno));
            close(fd);
            continue;
        }
        struct drv_client *c = &drv->clients[slot];
        memset(c, 0, sizeof *c);
        c->fd = fd;
        c->kick_fd = c->irq_fd = -1;
        c->pid = cred.pid;
        c->uid = cred.uid;
        c->last_request_ns = an2_now_ns();
    }
    return 0; /* more may wait: the listening socket is still readable */
}

void an2_driver_tick(struct an2_driver *drv, uint64_t now_ns)
{
    static struct an2_log_limit limit;
    an2_driver_fabric_tick(drv, now_ns);
    for (uint32_t i = 0; i < drv->limits.max_clients; i++) {
        struct drv_client *c = &drv->clients[i];
        /* (a client accepted after the caller read its clock is stamped later than now_ns:
         * not silent, and no unsigned wrap may make it so) */
        if (c->fd >= 0 && !c->endpoint_id && now_ns > c->last_request_ns &&
            now_ns - c->last_request_ns >= AN2_SILENT_NS) {
            an2_log_limited(&limit, "pid %d: silent without an endpoint for %llu s: dropped",
                             (int)c->pid, AN2_SILENT_NS / 1000000000ull);
            drv_drop_client(drv, i, "silent without an endpoint");
        }
    }
}

uint32_t an2_driver_clients(const struct an2_driver *drv)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < drv->limits.max_clients; i++)
        n += drv->clients[i].fd >= 0 || drv->clients[i].lingering;
    return n;
}

static void release_eventfds(struct an2_driver *drv, struct drv_client *c)
{
    if (c->kick_fd >= 0) {
        epoll_ctl(drv->epoll_fd, EPOLL_CTL_DEL, c->kick_fd, NULL);
        close(c->kick_fd);
    }
    if (c->irq_fd >= 0)
        close(c->irq_fd);
    c->kick_fd = c->irq_fd = -1;
}

/* The task has gone (or must go): its control socket closes now; its portion stays, as a
 * lingering endpoint, while VCs it closed still have transmits to send; a VC it did not close
 * (it died, or only closed the endpoint) goes at once, a PDU in progress aborted. With now
 * (an2d stopping), everything goes at once. */
static void drop_client(struct an2_driver *drv, uint32_t slot, const char *why, bool now)
{
    struct drv_client *c = &drv->clients[slot];
    if (c->fd < 0)
        return;
    if (c->endpoint_id)
        an2_log("endpoint %u (pid %d) closed: %s", c->endpoint_id, (int)c->pid, why);
    bool closing = drv_vc_release_all(drv, slot, !now);
    release_eventfds(drv, c);
    epoll_ctl(drv->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->name = 0;
    if (closing) {
        c->lingering = true;
        otto_orphan(drv->otto, slot);
        return;
    }
    drv_release_portion(drv, slot);
}

void drv_drop_client(struct an2_driver *drv, uint32_t slot, const char *why)
{
    drop_client(drv, slot, why, false);
}

static void refuse_open(struct drv_client *c, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse_open(struct drv_client *c, int err, const char *fmt, ...)
{
    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_OPEN, -err);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.detail, sizeof r.detail, fmt, ap);
    va_end(ap);
    an2_log("refused open by pid %d: %s", (int)c->pid, r.detail);
    drv_send(c, &r, sizeof r, NULL, 0);
}

static uint32_t pick(uint32_t asked, uint32_t dflt) { return asked ? asked : dflt; }

static void handle_open(struct an2_driver *drv, uint32_t slot, const struct an2_ctl_req *q)
{
    struct drv_client *c = &drv->clients[slot];
    const struct an2_driver_limits *L = &drv->limits;
    if (c->endpoint_id) {
        refuse_open(c, EISCONN, "this connection already holds endpoint %u", c->endpoint_id);
        return;
    }
    struct otto_portion_params pp = {
        .max_vcs = pick(q->max_vcs, L->default_vcs),
        .tx_slots = pick(q->tx_slots, L->default_tx_slots),
        .rx_slots = pick(q->rx_slots, L->default_rx_slots),
        .buf_size = q->buf_size ? q->buf_size : L->default_buf_size,
    };
    if (pp.buf_size > L->max_buf_size) {
        refuse_open(c, E2BIG, "buffer area %llu bytes exceeds the per-task limit %llu",
                    (unsigned long long)pp.buf_size, (unsigned long long)L->max_buf_size);
        return;
    }
    if (pp.max_vcs > L->max_vcs) {
        refuse_open(c, E2BIG, "%u VCs exceed the per-task limit %u", pp.max_vcs, L->max_vcs);
        return;
    }
    if (pp.tx_slots > L->max_tx_slots || pp.rx_slots > L->max_rx_slots) {
        refuse_open(c, E2BIG, "ring slots tx %u rx %u exceed the limits tx %u rx %u",
                    pp.tx_slots, pp.rx_slots, L->max_tx_slots, L->max_rx_slots);
        return;
    }
    struct otto_geometry geo;
    int rc = otto_portion_geometry(&pp, &geo);
    if (rc != 0) {
        refuse_open(c, -rc, "bad portion parameters (slots must be powers of two)");
        return;
    }
    if (geo.portion_size - geo.buf_size > L->max_desc_mem) {
        refuse_open(c, E2BIG, "descriptor memory %llu bytes exceeds the per-task limit %llu",
                    (unsigned long long)(geo.portion_size - geo.buf_size),
                    (unsigned long long)L->max_desc_mem);
        return;
    }
    char over_detail[100];
    rc = drv_user_open_check(drv, c, geo.portion_size, over_detail, sizeof over_detail);
    if (rc != 0) {
        refuse_open(c, -rc, "%s", over_detail);
        return;
    }
    release_eventfds(drv, c); /* those of an earlier OPEN that was refused */
    int err, memfd = -1;
    void *base = MAP_FAILED;
    const char *what;
    int kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN,
                             .data.u64 = AN2_DRIVER_EPOLL_BASE + 2 * (uint64_t)slot + 1};
    if (kick_fd < 0 || epoll_ctl(drv->epoll_fd, EPOLL_CTL_ADD, kick_fd, &ev) != 0) {
        err = errno;
        if (kick_fd >= 0)
            close(kick_fd);
        refuse_open(c, err, "kick eventfd: %s", strerror(err));
        return;
    }
    c->kick_fd = kick_fd; /* given back by drv_drop_client, whatever happens next */
    c->irq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    what = "interrupt eventfd";
    if (c->irq_fd < 0)
        goto fail_errno;
    what = "memfd_create";
    memfd = memfd_create("an2-portion", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (memfd < 0)
        goto fail_errno;
    /* Sealed so that the task cannot shrink the object under an2d's mapping (SIGBUS). */
    what = "sizing, sealing or mapping the memfd";
    if (ftruncate(memfd, (off_t)geo.portion_size) != 0 ||
        fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
        (base = mmap(NULL, geo.portion_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0)) ==
            MAP_FAILED)
        goto fail_errno;
    what = "VC table";
    err = ENOMEM;
    c->vcs = calloc(pp.max_vcs, sizeof *c->vcs);
    if (!c->vcs)
        goto fail;
    otto_portion_format(base, &geo);
    rc = otto_attach(drv->otto, slot, base, geo.portion_size);
    what = "controller refused the portion";
    err = -rc;
    if (rc != 0)
        goto fail;
    c->base = base;
    c->size = geo.portion_size;
    c->buf_size = geo.buf_size;
    c->max_vcs = pp.max_vcs;
    c->endpoint_id = drv_endpoint_id_alloc(drv);
    if (!c->endpoint_id) {
        what = "no free endpoint number";
        err = ENOSPC;
        otto_detach(drv->otto, slot);
        goto fail;
    }

    struct an2_ctl_reply r;
    drv_reply_init(&r, AN2_CTL_R_OPEN, 0);
    r.endpoint_id = c->endpoint_id;
    r.portion_size = geo.portion_size;
    r.pid = (int32_t)getpid(); /* whether the task's yields reach us (an2_sched_group.c) */
    int fds[3] = {memfd, c->kick_fd, c->irq_fd};
    drv_send(c, &r, sizeof r, fds, 3);
    close(memfd); /* an2d keeps only its mapping */
    an2_log("endpoint %u opened by pid %d (uid %u): %u VCs, buffer area %llu bytes",
             c->endpoint_id, (int)c->pid, (unsigned)c->uid, c->max_vcs,
             (unsigned long long)c->buf_size);
    return;
fail_errno:
    err = errno;
fail:
    free(c->vcs);
    c->vcs = NULL;
    if (base != MAP_FAILED)
        munmap(base, geo.portion_size);
    if (memfd >= 0)
        close(memfd);
    refuse_open(c, err, "%s (portion of %llu bytes): %s", what,
                (unsigned long long)geo.portion_size, strerror(err));
}

static void handle_request(struct an2_driver *drv, uint32_t slot, const struct an2_ctl_req *q)
{
    struct drv_client *c = &drv->clients[slot];
    if (q->op == AN2_CTL_OPEN) {
        handle_open(drv, slot, q);
    } else if (q->op == AN2_CTL_STATS) {
        drv_stats(drv, slot);
    } else if (q->op == AN2_CTL_STOP && drv->limits.multiuser && c->uid != 0) {
        struct an2_ctl_reply r;
        drv_reply_init(&r, AN2_CTL_R_STOP, -EPERM);
        snprintf(r.detail, sizeof r.detail, "only root stops the system an2d (it serves every "
                 "user); uid %u may not", (unsigned)c->uid);
        drv_send(c, &r, sizeof r, NULL, 0);
        an2_log("stop refused to pid %d of uid %u", (int)c->pid, (unsigned)c->uid);
    } else if (q->op == AN2_CTL_STOP) {
        struct an2_ctl_reply r;
        drv_reply_init(&r, AN2_CTL_R_STOP, 0);
        r.pid = (int32_t)getpid();
        drv_send(c, &r, sizeof r, NULL, 0);
        an2_log("stop requested by pid %d", (int)c->pid);
        drv->stop_requested = true;
    } else if (!c->endpoint_id) {
        struct an2_ctl_reply r;
        drv_reply_init(&r, AN2_CTL_R_ERROR, -ENOTCONN);
        snprintf(r.detail, sizeof r.detail, "no endpoint open on this connection");
        drv_send(c, &r, sizeof r, NULL, 0);
    } else if (q->op == AN2_CTL_VC_OPEN) {
        drv_vc_open(drv, slot, q->peer_id);
    } else if (q->op == AN2_CTL_VC_CANCEL) {
        drv_vc_cancel(drv, slot, q->peer_id);
    } else if (q->op == AN2_CTL_REGISTER || q->op == AN2_CTL_LOOKUP) {
        drv_name_request(drv, slot, q);
    } else {
        drv_vc_close(drv, slot, q->vc);
    }
}

static bool op_known(uint16_t op) { return op >= AN2_CTL_OPEN && op <= AN2_CTL_LOOKUP; }

static void reap_doomed(struct an2_driver *drv)
{
    for (uint32_t i = 0; i < drv->limits.max_clients; i++)
        if (drv->clients[i].fd >= 0 && drv->clients[i].doomed)
            drv_drop_client(drv, i, drv->clients[i].why);
}

void an2_driver_event(struct an2_driver *drv, uint64_t data, uint32_t events)
{
    uint64_t slot = data / 2;
    if (slot >= drv->limits.max_clients || drv->clients[slot].fd < 0)
        return;
    struct drv_client *c = &drv->clients[slot];
    if (data % 2) { /* a kick: the loop is awake now, which is all a kick asks for */
        uint64_t count;
        ssize_t n = read(c->kick_fd, &count, sizeof count); /* drains; EAGAIN is fine */
        (void)n;
        return;
    }
    for (int budget = 0; budget < 64 && !c->doomed; budget++) {
        /* one byte more than a request, so that an oversized message shows as such */
        union {
            struct an2_ctl_req q;
            char bytes[sizeof(struct an2_ctl_req) + 1];
        } in;
        ssize_t n = recv(c->fd, &in, sizeof in, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            drv_doom(c, strerror(errno));
            break;
        }
        if (n == 0) {
            drv_doom(c, "connection closed");
            break;
        }
        if (n != (ssize_t)sizeof in.q || in.q.magic != AN2_CTL_MAGIC) {
            static struct an2_log_limit limit;
            an2_log_limited(&limit, "pid %d sent a garbage request (%zd bytes): dropping that client",
                             (int)c->pid, n);
            drv_doom(c, "protocol violation");
            break;
        }
        if (in.q.version != AN2_CTL_VERSION || !op_known(in.q.op)) {
            struct an2_ctl_reply r;
            drv_reply_init(&r, AN2_CTL_R_ERROR, -EPROTO);
            snprintf(r.detail, sizeof r.detail, "an2d speaks control protocol %u, not %u op %u",
                     AN2_CTL_VERSION, in.q.version, in.q.op);
            static struct an2_log_limit limit;
            an2_log_limited(&limit, "pid %d: %s: dropping that client", (int)c->pid, r.detail);
            drv_send(c, &r, sizeof r, NULL, 0);
            drv_doom(c, "protocol violation");
            break;
        }
        c->last_request_ns = an2_now_ns();
        handle_request(drv, (uint32_t)slot, &in.q);
    }
    reap_doomed(drv);
}
