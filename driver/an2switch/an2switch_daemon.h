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
struct an2_auth;
struct an2_handshake;
struct an2_carrier;

/* A link authenticating before it gets a port. */
struct an2sw_pending {
    struct an2_handshake *hs;       /* NULL: a free slot */
    int trunk;                      /* the trunk's index, or -1 for a link accepted */
    uint64_t started_ns;
};

#define MAX_LISTEN 8
_Static_assert(8u + MAX_LISTEN <= 64u, "listening tags below the links' (EV_LISTEN, EV_LINK)");
#define MAX_TRUNKS 16
#define SPIN_US 0                   /* after progress, look again without yielding this long
                                     * (none: the an2d that takes what we forwarded may be
                                     * waiting for this very CPU), */
#define YIELD_US 3000               /* then yielding the CPU between looks this long (as an2d:
                                     * a wake-up from epoll is most of a hop's latency here) */

/* epoll data of the loop's descriptors */
#define EV_SIGNAL 1u
#define EV_CONTROL 3u
#define EV_LISTEN 8u                /* + index (< MAX_LISTEN) */
#define EV_LINK 64u                 /* + port */
#define EV_PENDING 4096u            /* + slot of a link authenticating */

#define AN2SW_MAX_PENDING 32        /* links authenticating at once (then the oldest goes) */
#define AN2SW_TRUNK_AUTHENTICATING (-2)   /* a trunk's port while it authenticates */

struct an2sw_trunk {
    const char *spec;
    int port;                       /* -1 while not connected, or AN2SW_TRUNK_AUTHENTICATING */
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
    const char *auth;               /* --auth: how links prove themselves (an2_link_auth.h) */
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
    struct an2_auth *auth;
    struct an2sw_pending pending[AN2SW_MAX_PENDING];
    uint64_t links_refused;         /* connections that failed the handshake */
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
/* Accepts the links waiting on listening socket lfd (a bounded batch); each authenticates
 * first. */
void an2sw_links_accept(struct an2sw_daemon *st, const int *lfds, int lfd, uint64_t now);
/* An authenticated connection becomes the link of a free port (trunk: its index, or -1). */
void an2sw_link_add(struct an2sw_daemon *st, struct an2_carrier *carrier, int trunk,
                    uint64_t now);

/* an2switch_handshakes.c: connections authenticating (an2_link_auth.h) before they get a
 * port. A new carrier (accepted: trunk -1; else the trunk's index) starts its handshake; the
 * switch owns it from now on. */
void an2sw_handshake_begin(struct an2sw_daemon *st, struct an2_carrier *carrier, int trunk,
                           uint64_t now);
/* Slot's socket is ready: a step; done, it becomes a link; failed, it is closed and logged. */
void an2sw_handshake_event(struct an2sw_daemon *st, unsigned slot, uint64_t now);
/* Those past their deadline fail. */
void an2sw_handshakes_tick(struct an2sw_daemon *st, uint64_t now);
uint64_t an2sw_handshakes_deadline(const struct an2sw_daemon *st);
void an2sw_handshakes_free(struct an2sw_daemon *st);

/* an2switch_loop.c: moves cells and serves the descriptors until a signal stops it. */
void an2sw_run(struct an2sw_daemon *st, int sigfd, const int *lfds);

/* an2switch_report.c: answers the connections waiting on the control socket with the
 * switch's ports, links and VCs as text (an2stat --switch). */
void an2sw_control_answer(struct an2sw_daemon *st);

#endif
