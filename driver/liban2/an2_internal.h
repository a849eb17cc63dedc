/* an2_internal.h — the endpoint library's private state: the mapped portion and its rings,
 * the control connection, and VC-open answers not yet collected. */
#ifndef AN2_INTERNAL_H
#define AN2_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "an2.h"
#include "an2_clock.h"
#include "an2_ctl_proto.h"
#include "an2_detail.h"
#include "an2_sockpath.h"
#include "an2_yield.h"
#include "an2d_proc.h"
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
    struct an2_yielder yielder;          /* our yields, and whether they reach anybody */
    uint64_t naps;                       /* an2_yield calls that slept instead (tests read it) */
};

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
/* an2_fork.c: endpoints a forked child must let go of. */
void an2_fork_track(an2_ep *ep);
void an2_fork_untrack(an2_ep *ep);

#endif
