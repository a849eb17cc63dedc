/* an2switch_daemon.h — the running an2switch: its options, its switch and links, and its
 * event loop's tags; shared by its options, links, loop, control report and main. */
#ifndef AN2SWITCH_DAEMON_H
#define AN2SWITCH_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "an2_credit_window.h"
#include "an2switch.h"
#include "fault_inject.h"

struct an2_capture;

#define MAX_LISTEN 8
#define MAX_TRUNKS 16
#define SPIN_US 0                   /* after progress, look again without yielding this long
                                     * (none: the an2d that takes what we forwarded may be
                                     * waiting for this very CPU), */
#define YIELD_US 3000               /* then yielding the CPU between looks this long (as an2d:
                                     * a wake-up from epoll is most of a hop's latency here) */

/* epoll data of the loop's descriptors */
#define EV_SIGNAL 1u
#define EV_LISTEN 2u                /* + index */
#define EV_CONTROL 3u
#define EV_LINK 64u                 /* + port */

struct an2sw_trunk {
    const char *spec;
    int port;                       /* -1 while not connected */
    uint64_t next_try_ns;
    bool warned;
};

struct an2sw_options {
    uint32_t id, nports, window, keepalive_ms;
    uint32_t spin_us, yield_us;     /* idling after progress: spin, then yield, then sleep */
    double rate;
    double *port_rate;              /* by port; < 0: the default */
    double ber, loss;               /* faults on every link (received cells) */
    double *port_ber, *port_loss;   /* by port; < 0: the default */
    uint64_t fault_seed;
    const char *capture;
    const char *listen[MAX_LISTEN];
    unsigned nlisten;
    struct an2sw_trunk trunks[MAX_TRUNKS];
    unsigned ntrunks;
    const char *pid_file, *log_file, *control;
    bool stop;
    bool window_given;              /* --vc-credits: every link's window, fixed */
};

struct an2sw_daemon {
    struct an2sw s;
    struct an2sw_options *o;
    int epfd;
    bool *announced;                /* by port: its link's HELLO was logged */
    bool *writing;                  /* by port: EPOLLOUT is on */
    struct fault_inject *faults;    /* by port */
    struct an2_credit_window *windows;  /* by port: derived from its link's round trip */
    struct an2_capture *capture;
    int control_fd;
    uint64_t start_ns;
    uint64_t accept_paused_until;   /* out of descriptors: not listening until then */
};

/* an2switch_options.c: the command line into o (exits 0 after --help). 0, or -1 (said on
 * stderr). */
int an2sw_parse_options(int argc, char **argv, struct an2sw_options *o);

/* an2switch_links.c: the switch's links (hosts' an2d, trunks to other switches) */
/* Takes port's link down and forgets it (a trunk on it is retried). */
void an2sw_link_remove(struct an2sw_daemon *st, unsigned port);
/* Logs that port's link is up, and what is at its other end. */
void an2sw_link_announce(struct an2sw_daemon *st, unsigned port);
/* The rate of port's link: its own, else every link's. */
double an2sw_port_rate(const struct an2sw_daemon *st, unsigned port);
/* Unless --vc-credits fixed it, port's window follows its link's round trip times its rate
 * (the peer is taken to send at the rate we send at). */
void an2sw_window_update(struct an2sw_daemon *st, unsigned port);
/* Connects the trunks that are down and due a try. */
void an2sw_trunks_connect(struct an2sw_daemon *st, uint64_t now);
/* Listening on, or (out of descriptors: the listening sockets would wake us in a loop) not
 * until a second has passed. */
void an2sw_listen_pause(struct an2sw_daemon *st, const int *lfds, bool pause, uint64_t now);
/* Accepts the links waiting on listening socket lfd (a bounded batch). */
void an2sw_links_accept(struct an2sw_daemon *st, const int *lfds, int lfd, uint64_t now);

/* an2switch_loop.c: moves cells and serves the descriptors until a signal stops it. */
void an2sw_run(struct an2sw_daemon *st, int sigfd, const int *lfds);

/* an2switch_report.c: answers the connections waiting on the control socket with the
 * switch's ports, links and VCs as text (an2stat --switch). */
void an2sw_control_answer(struct an2sw_daemon *st);

#endif
