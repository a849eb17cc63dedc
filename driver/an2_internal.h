/* an2_internal.h — the endpoint library's private state: the mapped portion and its rings,
 * the control connection, and VC-open answers not yet collected. */
#ifndef AN2_INTERNAL_H
#define AN2_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "an2.h"
#include "an2_ctl_proto.h"
#include "otto_hw.h"
#include "otto_ring.h"

struct an2_done {
    int status;
    struct an2_vc_info info;
};

struct an2_ep {
    int ctl_fd, kick_fd, irq_fd;
    uint32_t id;
    void *base;
    size_t size;
    struct otto_geometry geo;            /* our copy, checked once at open */
    struct otto_portion_hdr *hdr;
    struct otto_tx_desc *tx;
    struct otto_rx_desc *rx;             /* VC v's ring at v * rx_slots */
    struct otto_ring_index *rx_index;
    struct otto_host_vc_stats *host_stats;
    struct otto_report *reports;
    uint8_t *buf;
    uint32_t tx_prod, report_cons;       /* our own counters (we are their only writer) */
    uint32_t *rx_prod;                   /* per VC */
    struct an2_vc_info *vcs;             /* per VC; vcs[v].peer_id == 0: not open */
    struct an2_done *done;               /* VC-open answers read but not collected */
    unsigned ndone, cap_done;
    struct an2_ep *fork_next;            /* an2_fork.c's list of open endpoints */
    bool controller_apart;               /* an2d in another scheduling group (or unknown) */
    pid_t controller_pid;                /* an2d, to move it to our CPU (otto_hw.h); 0: never */
    uint64_t move_pulse;                 /* the pulse we last tried to move an2d on */
    uint32_t moved_to_cpu;               /* the CPU we moved it to then; UINT32_MAX: none */
};

/* The system an2d's directory unless $AN2_SYSTEM_DIR names another (tests). */
#define AN2_SYSTEM_DIR_DEFAULT "/run/an2d"
/* an2_sockpath.c. The system an2d's socket: ${AN2_SYSTEM_DIR:-/run/an2d}/an2d.sock. */
int an2_system_socket_path(char *buf, size_t len);
/* The socket a client uses: $AN2_SOCKET; else the system an2d's if something is at its path
 * (and PVM_VMID is not set: an isolated setup keeps its own an2d), *system then true; else
 * an2_socket_path's. 0 or -ENAMETOOLONG. */
int an2_ctl_target(char *buf, size_t len, bool *system);
/* As an2_ctl_connect, for the system an2d: its directory must be root's and writable by
 * nobody else, and the server must run as root. */
int an2_ctl_connect_system(const char *path);
/* As an2_dir_check for the system an2d's directory (see an2_ctl_connect_system). */
int an2_dir_check_system(const char *dir);
/* A new connection to an2d's control socket at path, after checking its
 * directory (an2_dir_check) and, before anything is sent, that the server runs as us or as
 * root: fd, or -errno with the reason in an2_error_detail (-EPERM: not to be trusted). */
int an2_ctl_connect(const char *path);
/* The directory part of path into dir. 0 or -ENAMETOOLONG. */
int an2_dir_of(const char *path, char *dir, size_t len);
/* A directory fit for an2d's socket and files: no symlink, owned by us or root, not writable
 * by others unless sticky. 0, or -errno and the reason in an2_error_detail (-EPERM: another
 * user could plant files there). */
int an2_dir_check(const char *dir);
/* Whether the process at the other end of the connected socket fd runs as us or as root.
 * 0, or -EPERM/-errno and the reason in an2_error_detail; path is named in it. */
int an2_peer_check(int fd, const char *path);
/* Thread's refusal text (an2_error_detail). */
void an2_set_detail(const char *text);
/* Sends a request on the control socket. 0 or -errno. */
int an2_ctl_send(an2_ep *ep, const struct an2_ctl_req *q);
/* Reads one reply, waiting up to timeout_ms (0: no wait, -1: forever); VC-open answers it
 * meets go to ep->done. Returns 1 with *r filled, 0 on timeout, or -errno. */
int an2_ctl_recv(an2_ep *ep, struct an2_ctl_reply *r, int timeout_ms);
/* Sends q and waits (up to 10 s in all) for its answer: the reply of op reply_op for the same
 * VC (R_CLOSE) or peer/name (the others). Returns 0 with *r filled (r->status is an2d's
 * verdict, its detail already noted), an2d's refusal of the request (R_ERROR), -ETIMEDOUT
 * or -errno. */
int an2_ctl_call(an2_ep *ep, const struct an2_ctl_req *q, uint16_t reply_op,
                 struct an2_ctl_reply *r);
/* Stores an R_VC answer for an2_vc_open_complete (records an opened VC in ep->vcs). */
void an2_note_vc_answer(an2_ep *ep, const struct an2_ctl_reply *r);
/* Milliseconds left until deadline_ns (CLOCK_MONOTONIC); -1 if deadline is UINT64_MAX. */
int an2_ms_left(uint64_t deadline_ns);
uint64_t an2_now_ns(void);
/* an2_sched_group.c: true while pid is a running an2d (a zombie, or a pid reused by another
 * program, is not). */
bool an2_pid_is_an2d(pid_t pid);
/* True unless the process an2d (its pid) is known to share our CPU
 * scheduling group (cgroup and, under autogroup, session), where our yields reach it. */
bool an2_sched_group_apart(pid_t an2d);
/* an2d's pid if the process it names is ours and called an2d, so that we may move it to our
 * CPU (sched_setaffinity; otto_hw.h's move hint); else 0. */
pid_t an2_sched_group_movable(pid_t an2d);
/* an2_fork.c: endpoints a forked child must let go of. */
void an2_fork_track(an2_ep *ep);
void an2_fork_untrack(an2_ep *ep);

#endif
