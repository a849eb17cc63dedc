/* an2d_loop.h — an2d's single-threaded event loop: the controller model, the control
 * socket and signals, with adaptive idling (spin, yield, sleep). */
#ifndef AN2D_LOOP_H
#define AN2D_LOOP_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "an2_yield.h"

struct otto;
struct an2_driver;
struct an2d_files;
struct an2d_uplink;

/* epoll data values of the loop's own descriptors (clients use AN2_DRIVER_EPOLL_BASE+). */
enum { AN2D_EV_LISTEN = 1, AN2D_EV_SIGNAL = 2, AN2D_EV_UPLINK = 3 };

struct an2d_loop {
    int epoll_fd, listen_fd, signal_fd;
    struct otto *otto;
    struct an2_driver *drv;
    uint64_t ctl_period_ns;  /* how often a busy loop looks at the control socket */
    uint64_t spin_ns;        /* idle time spent spinning before yielding */
    uint64_t pace_spin_ns;   /* paced work due within this: spin rather than yield the CPU */
    uint64_t yield_ns;       /* idle time spent yielding before sleeping */
    uint64_t hold_ns;        /* of which, at most this long keeping the CPU for a task that
                              * polls on it (its hint): longer, its peer computes */
    uint64_t idle_exit_ns;   /* stop after this long without a client; 0: never */
    const struct an2d_files *files; /* stop when the control socket is gone (NULL: never) */
    struct an2d_uplink *uplink;      /* the link to a switch of the fabric, or NULL */
    /* the loop's own state */
    uint64_t next_tick, idle_since;
    uint64_t pulse_ns;       /* when the controller's pulse was last published (otto_hw.h) */
    cpu_set_t started_cpus;  /* the CPUs we may run on at start: taken back after a host has
                              * moved us to its own (otto_hw.h's move hint) */
    bool started_cpus_known;
    bool accept_paused;      /* out of descriptors: the listening socket is out of epoll */
    uint32_t clients_at_pause;
    struct an2_yielder yielder; /* our yields, and whether they reach anybody */
};

/* Runs until SIGTERM/SIGINT, a STOP request, idle exit or the control socket's removal. */
void an2d_loop_run(struct an2d_loop *loop);

#endif
