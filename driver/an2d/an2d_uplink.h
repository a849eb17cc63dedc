/* an2d_uplink.h — an2d's link to a switch of the fabric (--switch): connecting, waiting for
 * the switch's HELLO, serving the link from the event loop, reconnecting after a loss. */
#ifndef AN2D_UPLINK_H
#define AN2D_UPLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "an2_credit_window.h"

struct an2_switch;
struct an2_driver;
struct an2_link;
struct an2_auth;
struct an2_handshake;

struct an2d_uplink {
    const char *spec;             /* the switch's address (an2_netaddr.h) */
    struct an2_switch *sw;        /* our switch: the link is its port AN2_UPLINK_PORT */
    struct an2_driver *drv;
    int epoll_fd;
    uint64_t epoll_tag;
    uint32_t window, keepalive_ms;
    bool derive_window;           /* the window grows with the link's round trip × rate */
    double cells_per_second;      /* the link's rate (0: unpaced) */
    const struct an2_auth *auth;  /* how the link authenticates (an2_link_auth.h) */
    /* state */
    struct an2_handshake *hs;     /* connected, authenticating; then link */
    struct an2_link *link;
    bool given;                   /* the driver has it (its HELLO came) */
    bool writing;                 /* EPOLLOUT is on */
    bool warned;
    uint64_t next_try_ns, active_ns;
    uint64_t connect_ns, connected_ns, authenticated_ns;   /* the last set-up's steps began */
    struct an2_credit_window windows;
};

/* Connects, authenticates and waits (up to timeout_ms) for the switch's HELLO. 0, or -1 with the reason
 * in err. */
int an2d_uplink_start(struct an2d_uplink *u, int timeout_ms, char *err, size_t errlen);
/* The link's socket is ready. */
void an2d_uplink_event(struct an2d_uplink *u, uint64_t now_ns);
/* Every pass of the loop: credits and output, and input while the link is busy. True if it
 * moved anything. */
bool an2d_uplink_poll(struct an2d_uplink *u, uint64_t now_ns);
/* Keepalive, loss (the driver is told) and reconnecting once a second; call when its
 * deadline comes and after events. */
void an2d_uplink_housekeeping(struct an2d_uplink *u, uint64_t now_ns);
/* The loop is about to sleep: a link in shared memory asks to be woken. False if something
 * waits already (do not sleep). */
bool an2d_uplink_arm(struct an2d_uplink *u);
/* Cells and signalling messages through the uplink so far: what counts as traffic (keepalives
 * and credit refreshes do not keep an2d awake). */
uint64_t an2d_uplink_traffic(const struct an2d_uplink *u);
uint64_t an2d_uplink_deadline(const struct an2d_uplink *u);
void an2d_uplink_stop(struct an2d_uplink *u);

#endif
