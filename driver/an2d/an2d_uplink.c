/* an2d_uplink.c — an2d's link to a switch: connect, HELLO, serve from the loop, reconnect. */
#include "an2d_uplink.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "an2_clock.h"
#include "an2_link.h"
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

static int connect_link(struct an2d_uplink *u, int timeout_ms, char *err, size_t errlen)
{
    int fd = an2_net_connect(u->spec, timeout_ms, err, errlen);
    if (fd < 0)
        return -1;
    struct an2_link_config cfg = {.fd = fd, .sw = u->sw, .port = AN2_UPLINK_PORT,
                                  .role = AN2_FIBER_ROLE_HOST,
                                  .window = u->derive_window ? AN2_WINDOW_CAP : u->window,
                                  .window_start = u->derive_window ? u->window : 0,
                                  .keepalive_ms = u->keepalive_ms,
                                  .on_sig = an2_driver_on_sig, .on_down = on_down,
                                  .ctx = u->drv};
    u->link = an2_link_create(&cfg, an2_now_ns());
    if (!u->link) {
        snprintf(err, errlen, "%s: %s", u->spec, strerror(errno));
        return -1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = u->epoll_tag};
    epoll_ctl(u->epoll_fd, EPOLL_CTL_ADD, an2_link_fd(u->link), &ev);
    u->given = u->writing = false;
    an2_credit_window_init(&u->windows);
    return 0;
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
    an2_log("uplink to the switch at %s up: this host is %u.%u", u->spec, a >> 8, a & 0xffu);
}

int an2d_uplink_start(struct an2d_uplink *u, int timeout_ms, char *err, size_t errlen)
{
    uint64_t deadline = an2_now_ns() + (uint64_t)timeout_ms * 1000000u;
    if (connect_link(u, timeout_ms, err, errlen) != 0)
        return -1;
    while (!an2_link_is_up(u->link) && !an2_link_why(u->link)[0]) {
        uint64_t now = an2_now_ns();
        if (now >= deadline)
            break;
        struct pollfd p = {.fd = an2_link_fd(u->link), .events = POLLIN};
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
    if (!u->link)
        return;
    an2_link_service(u->link, now);
    u->active_ns = now;
    an2d_uplink_housekeeping(u, now);
}

bool an2d_uplink_poll(struct an2d_uplink *u, uint64_t now)
{
    if (!u->link)
        return false;
    bool moved = false;
    if (now < u->active_ns || now - u->active_ns < HOT_NS) /* (stamped with a later clock) */
        an2_link_service(u->link, now);
    moved |= an2_link_poll(u->link, now);
    return moved;
}

void an2d_uplink_housekeeping(struct an2d_uplink *u, uint64_t now)
{
    if (!u->link) {
        if (now < u->next_try_ns)
            return;
        u->next_try_ns = now + RETRY_NS;
        char err[256];
        if (connect_link(u, 20, err, sizeof err) != 0) {
            if (!u->warned)
                an2_log("uplink: %s (retrying every second)", err);
            u->warned = true;
            return;
        }
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
        struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0u),
                                 .data.u64 = u->epoll_tag};
        epoll_ctl(u->epoll_fd, EPOLL_CTL_MOD, an2_link_fd(u->link), &ev);
        u->writing = want;
    }
}

uint64_t an2d_uplink_deadline(const struct an2d_uplink *u)
{
    return u->link ? an2_link_next_deadline(u->link) : u->next_try_ns;
}

void an2d_uplink_stop(struct an2d_uplink *u)
{
    if (u->link)
        drop_link(u);
}
