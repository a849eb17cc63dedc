/* driver.h — the device driver module of an2d: hands each task its portion, sets up VCs by
 * symmetric rendezvous, wakes sleepers, cleans up after tasks however they die. */
#ifndef AN2_DRIVER_H
#define AN2_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

struct otto;
struct an2_switch;

/* Per-task limits and the defaults a task gets when it asks for 0. */
struct an2_driver_limits {
    uint64_t default_buf_size, max_buf_size;   /* buffer area bytes */
    uint64_t max_desc_mem;                     /* portion bytes besides the buffer area */
    uint32_t default_vcs, max_vcs;             /* VCs per task */
    uint32_t default_tx_slots, max_tx_slots;
    uint32_t default_rx_slots, max_rx_slots;
    uint32_t max_clients;                      /* control connections at once */
    /* A system an2d serves every uid (multiuser): a VC joins endpoints of one uid (or of a
     * pair in allow_vc), names are per uid, only root sees all in STATS or may STOP, and each
     * uid has these limits. Without it only an2d's own uid is served. */
    bool multiuser;
    uint32_t max_user_clients, max_user_endpoints, max_user_vc_ends;
    uint64_t max_user_mem;                     /* portion bytes of one uid's endpoints */
    uint32_t nallow;
    struct { uint32_t a, b; } allow_vc[16];    /* uid pairs that may open VCs to each other */
    /* On a fabric: how long a LOOKUP of a name waits for a FOUND, and how long a host that
     * heard one for a name not (yet) there answers if the name comes */
    uint32_t lookup_ms;
};

/* epoll data values below this are the event loop's own; from it on they are the driver's:
 * base + 2 * slot for a client's socket, base + 2 * slot + 1 for its kick eventfd. */
#define AN2_DRIVER_EPOLL_BASE 16u

struct an2_driver;

/* The driver registers its clients' sockets and kick eventfds (one per task, so that no
 * task can swallow another's kick) in epoll_fd. cells_per_second is for an2stat only.
 * NULL with errno set on failure. */
struct an2_driver *an2_driver_create(const struct an2_driver_limits *limits, int epoll_fd,
                                     double cells_per_second);
/* Connects the driver to the controller and switch it programs (before any client). */
void an2_driver_set_hardware(struct an2_driver *drv, struct otto *otto, struct an2_switch *sw);
/* Drops every client (as if each had died), then frees the driver. */
void an2_driver_destroy(struct an2_driver *drv);

/* Accepts pending connections on listen_fd (a bounded batch); a client beyond max_clients is
 * told so and closed. 0, or -EMFILE (-ENFILE, -ENOBUFS, -ENOMEM) when out of descriptors or
 * memory: the caller stops listening for a while rather than be woken again at once. */
int an2_driver_accept(struct an2_driver *drv, int listen_fd);
/* Housekeeping, about once a second: drops connections that hold no endpoint and have sent
 * nothing for 10 s (so that idle connections cannot hold every client slot). */
void an2_driver_tick(struct an2_driver *drv, uint64_t now_ns);
/* Control connections plus departed tasks' endpoints still lingering: 0 means idle. */
uint32_t an2_driver_clients(const struct an2_driver *drv);
/* Handles readiness of the descriptor whose epoll data is AN2_DRIVER_EPOLL_BASE + data. */
void an2_driver_event(struct an2_driver *drv, uint64_t data, uint32_t events);
/* The controller's interrupt callback (struct otto_config.interrupt); ctx is the driver. */
void an2_driver_interrupt(void *ctx, uint32_t portion_id);
/* Finishes closed VCs whose queued transmits have gone out (a departed task's portion goes
 * with its last one) and those whose buffered cells have all reached the peer (the peer is
 * told PEER_GONE now). Call after the hardware moved cells and after control events; cheap
 * when nothing closes or drains. */
void an2_driver_drains_check(struct an2_driver *drv);
/* The fabric beyond this host (an2_link.h): the link to a switch on switch port 1, once
 * its HELLO has come (our host address is the one it gave); NULL when it went down: every
 * VC across it is reported PEER_GONE. */
struct an2_link;
struct an2_sig_msg;
void an2_driver_set_uplink(struct an2_driver *drv, struct an2_link *link);
/* The uplink's signalling callback (struct an2_link_config.on_sig); ctx is the driver. */
void an2_driver_on_sig(void *ctx, struct an2_link *link, const struct an2_sig_msg *msg);
uint32_t an2_driver_host_addr(const struct an2_driver *drv);
/* Times out what waits for the fabric (SETUPs nobody asks for, unanswered LOOKUPs); called
 * with the uplink's keepalive and once a second. */
void an2_driver_fabric_tick(struct an2_driver *drv, uint64_t now_ns);

/* True once a client has asked an2d to stop. */
bool an2_driver_stop_requested(const struct an2_driver *drv);

#endif
