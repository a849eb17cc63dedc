/* an2d_uplink.c — an2d's link to a switch: connect, authenticate, HELLO, serve from the loop,
 * reconnect. */
#include "an2d_uplink.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "an2_carrier.h"
#include "an2_clock.h"
#include "an2_link.h"
#include "an2_link_auth.h"
#include "an2_log.h"
#include "an2_netaddr.h"
#include "driver.h"
#include "driver_state.h"

#define RETRY_NS 1000000000ull
#define HOT_NS 2000000ull        /* input seen this recently: read on every pass */

static void on_down(void *ctx, struct an2_link *link, const char *why)
{
    (void)ctx;
    static struct an2_log_limit limit;
    an2_log_limited(&limit, "uplink to the switch down: %s", why);
    (void)link;
}

/* Connects and starts the handshake (an2_link_auth.h): the link comes once it is done. */
static int connect_link(struct an2d_uplink *u, int timeout_ms, char *err, size_t errlen)
{
    uint64_t t0 = an2_now_ns();
    int fd = an2_net_connect(u->spec, timeout_ms, err, errlen);
    if (fd < 0)
        return -1;
    u->connect_ns = t0;
    u->connected_ns = an2_now_ns();
    struct an2_carrier *c = an2_carrier_for(u->spec, fd, false);
    if (!c) {
        snprintf(err, errlen, "%s: %s", u->spec, strerror(errno));
        return -1;
    }
    u->hs = an2_handshake_start(c, u->auth, true, u->connected_ns);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = u->epoll_tag};
    if (!u->hs || epoll_ctl(u->epoll_fd, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
        snprintf(err, errlen, "%s: %s", u->spec, strerror(errno));
        an2_handshake_free(u->hs);
        u->hs = NULL;
        an2_carrier_close(c);
        return -1;
    }
    return 0;
}

/* The handshake is done: its carrier becomes the link's (which sends our HELLO). */
static int link_from_handshake(struct an2d_uplink *u, char *err, size_t errlen)
{
    struct an2_carrier *c = an2_handshake_carrier(u->hs);
    an2_handshake_free(u->hs);
    u->hs = NULL;
    u->authenticated_ns = an2_now_ns();
    struct an2_link_config cfg = {.carrier = c, .sw = u->sw, .port = AN2_UPLINK_PORT,
                                  .role = AN2_FIBER_ROLE_HOST,
                                  .window = u->derive_window ? AN2_WINDOW_CAP : u->window,
                                  .window_start = u->derive_window ? u->window : 0,
                                  .keepalive_ms = u->keepalive_ms,
                                  .on_sig = an2_driver_on_sig, .on_down = on_down,
                                  .ctx = u->drv};
    u->link = an2_link_create(&cfg, an2_now_ns());
    if (!u->link) { /* (the carrier is closed, and so its fd out of the epoll set) */
        snprintf(err, errlen, "%s: %s", u->spec, strerror(errno));
        return -1;
    }
    u->given = u->writing = false;
    an2_credit_window_init(&u->windows);
    return 0;
}

/* A step of the handshake under way: 1 done (the link is made), 0 pending, -1 failed (the
 * connection is closed, the reason in err). */
static int handshake_step(struct an2d_uplink *u, uint64_t now, char *err, size_t errlen)
{
    enum an2_handshake_state s = an2_handshake_step(u->hs, now);
    if (s == AN2_HANDSHAKE_PENDING)
        return 0;
    if (s == AN2_HANDSHAKE_DONE)
        return link_from_handshake(u, err, errlen) == 0 ? 1 : -1;
    snprintf(err, errlen, "%s: not authenticated: %s", u->spec, an2_handshake_why(u->hs));
    struct an2_carrier *c = an2_handshake_carrier(u->hs);
    epoll_ctl(u->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    an2_carrier_close(c);
    an2_handshake_free(u->hs);
    u->hs = NULL;
    return -1;
}

static void drop_link(struct an2d_uplink *u)
{
    if (u->given)
        an2_driver_set_uplink(u->drv, NULL);
    epoll_ctl(u->epoll_fd, EPOLL_CTL_DEL, an2_link_fd(u->link), NULL);
    an2_link_destroy(u->link);
    u->link = NULL;
    u->given = false;
}

/* The link's window follows its round trip times its rate (an2_credit_window.h). */
static void window_update(struct an2d_uplink *u)
{
    if (!u->derive_window || !an2_link_is_up(u->link))
        return;
    struct an2_link_info li;
    an2_link_info(u->link, &li);
    uint32_t w = an2_credit_window_sample(&u->windows, li.rtt_ns, u->cells_per_second);
    if (w && an2_link_set_window(u->link, w) == 0)
        an2_log("uplink: credit window %u cells per VC (median round trip %.0f us)", w,
                 u->windows.median_ns / 1e3);
    else if (w)
        an2_log("uplink: no memory to grow the credit window to %u cells", w);
}

/* The HELLO has come: the driver gets the link. */
static void maybe_give(struct an2d_uplink *u)
{
    if (u->given || !an2_link_is_up(u->link))
        return;
    an2_driver_set_uplink(u->drv, u->link);
    u->given = true;
    uint32_t a = an2_driver_host_addr(u->drv);
    uint64_t now = an2_now_ns();
    an2_log("uplink to the switch at %s up: this host is %u.%u", u->spec, a >> 8, a & 0xffu);
    an2_log("uplink set-up %.3f ms: connect %.3f ms, handshake %.3f ms, HELLO %.3f ms",
            (now - u->connect_ns) / 1e6, (u->connected_ns - u->connect_ns) / 1e6,
            (u->authenticated_ns - u->connected_ns) / 1e6, (now - u->authenticated_ns) / 1e6);
}

int an2d_uplink_start(struct an2d_uplink *u, int timeout_ms, char *err, size_t errlen)
{
    uint64_t deadline = an2_now_ns() + (uint64_t)timeout_ms * 1000000u;
    if (connect_link(u, timeout_ms, err, errlen) != 0)
        return -1;
    for (int r = 0; r == 0;) {
        struct pollfd p = {.fd = an2_handshake_carrier(u->hs)->fd, .events = POLLIN};
        uint64_t now = an2_now_ns();
        poll(&p, 1, now < deadline ? (int)((deadline - now) / 1000000u) + 1 : 0);
        now = an2_now_ns();
        /* (the handshake has its own deadline; ours ends it sooner) */
        r = handshake_step(u, now >= deadline ? an2_handshake_deadline(u->hs) : now, err,
                           errlen);
        if (r < 0)
            return -1;
    }
    while (!an2_link_is_up(u->link) && !an2_link_why(u->link)[0]) {
        uint64_t now = an2_now_ns();
        if (now >= deadline)
            break;
        struct pollfd p = {.fd = an2_link_fd(u->link), .events = POLLIN};
        if (an2_link_arm(u->link))
            poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
        an2_link_service(u->link, an2_now_ns());
    }
    if (!an2_link_is_up(u->link)) {
        snprintf(err, errlen, "%s: %s", u->spec,
                 an2_link_why(u->link)[0] ? an2_link_why(u->link) : "no HELLO from the switch");
        drop_link(u);
        return -1;
    }
    maybe_give(u);
    return 0;
}

void an2d_uplink_event(struct an2d_uplink *u, uint64_t now)
{
    if (u->hs) {
        an2d_uplink_housekeeping(u, now);
        return;
    }
    if (!u->link)
        return;
    an2_link_service(u->link, now);
    u->active_ns = now;
    an2d_uplink_housekeeping(u, now);
}

uint64_t an2d_uplink_traffic(const struct an2d_uplink *u)
{
    return u->link ? an2_link_traffic(u->link) : 0;
}

bool an2d_uplink_poll(struct an2d_uplink *u, uint64_t now)
{
    if (!u->link)
        return false;
    uint64_t before = an2d_uplink_traffic(u);
    /* (stamped with a later clock); a polled link (shared memory, libfabric) is read by
     * an2_link_poll */
    if (!an2_link_polled(u->link) && (now < u->active_ns || now - u->active_ns < HOT_NS))
        an2_link_service(u->link, now);
    an2_link_poll(u->link, now);
    return an2d_uplink_traffic(u) != before;
}

void an2d_uplink_housekeeping(struct an2d_uplink *u, uint64_t now)
{
    char err[300];
    if (!u->link && !u->hs) {
        if (now < u->next_try_ns)
            return;
        u->next_try_ns = now + RETRY_NS;
        if (connect_link(u, 20, err, sizeof err) != 0) {
            if (!u->warned)
                an2_log("uplink: %s (retrying every second)", err);
            u->warned = true;
            return;
        }
    }
    if (u->hs) {
        int r = handshake_step(u, now, err, sizeof err);
        if (r < 0) {
            if (!u->warned)
                an2_log("uplink: %s (retrying every second)", err);
            u->warned = true;
            u->next_try_ns = now + RETRY_NS;
        }
        if (r <= 0)
            return;
        u->warned = false;
    }
    if (now >= an2_link_next_deadline(u->link)) {
        an2_link_service(u->link, now);
        an2_driver_fabric_tick(u->drv, now);
    }
    if (an2_link_why(u->link)[0]) {
        drop_link(u);
        u->next_try_ns = now + RETRY_NS;
        return;
    }
    maybe_give(u);
    window_update(u);
    bool want = an2_link_wants_write(u->link);
    if (want != u->writing) {
        struct epoll_event ev = {.events = EPOLLIN | (want ? an2_link_write_events(u->link) : 0u),
                                 .data.u64 = u->epoll_tag};
        epoll_ctl(u->epoll_fd, EPOLL_CTL_MOD, an2_link_fd(u->link), &ev);
        u->writing = want;
    }
}

bool an2d_uplink_arm(struct an2d_uplink *u)
{
    return !u->link || an2_link_arm(u->link);
}

uint64_t an2d_uplink_deadline(const struct an2d_uplink *u)
{
    if (u->hs)
        return an2_handshake_deadline(u->hs);
    return u->link ? an2_link_next_deadline(u->link) : u->next_try_ns;
}

void an2d_uplink_stop(struct an2d_uplink *u)
{
    if (u->hs) {
        an2_carrier_close(an2_handshake_carrier(u->hs));
        an2_handshake_free(u->hs);
        u->hs = NULL;
    }
    if (u->link)
        drop_link(u);
}
