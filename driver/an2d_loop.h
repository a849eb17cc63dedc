/* an2d_loop.h — an2d's single-threaded event loop: the controller model, the control
 * socket and signals, with adaptive idling (spin, yield, sleep). */
#ifndef AN2D_LOOP_H
#define AN2D_LOOP_H

#include <stdint.h>

struct otto;
struct an2_driver;

/* epoll data values of the loop's own descriptors (clients use AN2_DRIVER_EPOLL_BASE+). */
enum { AN2D_EV_LISTEN = 1, AN2D_EV_SIGNAL = 2 };

struct an2d_loop {
    int epoll_fd, listen_fd, signal_fd;
    struct otto *otto;
    struct an2_driver *drv;
    uint64_t ctl_period_ns;  /* how often a busy loop looks at the control socket */
    uint64_t spin_ns;        /* idle time spent spinning before yielding */
    uint64_t pace_spin_ns;   /* paced work due within this: spin rather than yield the CPU */
    uint64_t yield_ns;       /* idle time spent yielding before sleeping */
};

/* Runs until SIGTERM/SIGINT or a STOP request. */
void an2d_loop_run(struct an2d_loop *loop);

#endif
