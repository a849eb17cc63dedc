/* an2_link.h — one end of an AN2 link (an2_fiber.h) over a carrier (an2_carrier.h): the device
 * on a switch port that carries its cells to the other end, with per-VC credits, keepalive and
 * the signalling channel. Used by an2switch (every port) and by an2d (its uplink). */
#ifndef AN2_LINK_H
#define AN2_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "an2_fiber.h"

struct an2_switch;
struct an2_link;
struct an2_carrier;
struct an2_capture;
struct fault_inject;

struct an2_link_config {
    struct an2_carrier *carrier; /* to the other end (its handshake done); the link owns it
                                  * from now on */
    struct an2_switch *sw;      /* the switch whose port this link is */
    unsigned port;
    uint16_t role;              /* ours: AN2_FIBER_ROLE_HOST or _SWITCH */
    uint32_t switch_id;         /* ours, if a switch */
    uint32_t host_addr;         /* a switch: the address it gives the host at the other end */
    uint32_t window;            /* the most cells per VC our side will buffer (our HELLO) */
    uint32_t window_start;      /* what it buffers at first (an2_link_set_window grows it);
                                 * 0: window */
    uint32_t keepalive_ms;      /* 0: 200 */
    /* Optional, applied to the data cells this end receives (after their credit is
     * counted, so a lost cell costs no credit): injected bit errors and cell loss, and a
     * capture of every PDU (pcap, shared by the links of a switch). NULL: none. */
    struct fault_inject *faults;
    struct an2_capture *capture;
    /* What arrives: a signalling message, and the link's end (why: a short reason). The
     * link is not freed by its owner inside these callbacks. */
    void (*on_sig)(void *ctx, struct an2_link *link, const struct an2_sig_msg *msg);
    void (*on_down)(void *ctx, struct an2_link *link, const char *why);
    void *ctx;
};

/* What the other end said in its HELLO, and what the link measured. */
struct an2_link_info {
    bool     up;                /* HELLO exchanged, not down */
    uint16_t peer_role;
    uint32_t peer_switch_id, peer_port, host_addr, peer_window;
    uint32_t window;            /* cells per VC our side buffers now */
    uint64_t rtt_ns;            /* last keepalive round trip; 0 until measured */
    uint64_t cells_in, cells_out, credits_in, credits_out, sig_in, sig_out;
    uint64_t dropped_unrouted;  /* cells for a VC not (or no longer) set up here */
    uint64_t cells_lost, bits_flipped;   /* by the fault injector */
    uint32_t vcs;
};

/* The link sends its HELLO and attaches itself as the device on cfg->port. NULL with errno
 * set (the carrier is closed then too). */
struct an2_link *an2_link_create(const struct an2_link_config *cfg, uint64_t now_ns);
/* Detaches from the switch and closes the carrier. */
void an2_link_destroy(struct an2_link *link);

/* The descriptor to poll: the carrier's (an2_carrier.h). */
int an2_link_fd(const struct an2_link *link);
unsigned an2_link_port(const struct an2_link *link);
void an2_link_info(const struct an2_link *link, struct an2_link_info *out);
/* Cells and signalling messages that crossed the link so far, both ways: what counts as
 * traffic (a keepalive or a credit does not). */
uint64_t an2_link_traffic(const struct an2_link *link);
bool an2_link_is_up(const struct an2_link *link);
/* Why the link is down ("" while it is not). */
const char *an2_link_why(const struct an2_link *link);

/* Reads what the carrier holds (bounded) and acts on every complete record; then sends what
 * is due (credits, keepalive, queued output) and checks the keepalive. False once the link
 * is down (on_down has been called). Call when its fd is readable or writable, and at least
 * every keepalive period (an2_link_next_deadline). */
bool an2_link_service(struct an2_link *link, uint64_t now_ns);
/* The cheap part, for every pass of a busy loop: credit updates and output. True if it
 * moved anything. */
bool an2_link_poll(struct an2_link *link, uint64_t now_ns);
/* Whether output waits for the carrier: then watch its fd for an2_link_write_events (the
 * epoll bits that say the carrier has room). */
bool an2_link_wants_write(const struct an2_link *link);
uint32_t an2_link_write_events(const struct an2_link *link);
/* Whether an2_link_poll also reads (the shared-memory and libfabric carriers: their fd is
 * readable only once they asked to be woken). Such a link must be armed before its owner
 * sleeps. */
bool an2_link_polled(const struct an2_link *link);
/* The owner is about to sleep until the link's fd is readable or a deadline: the carrier asks
 * the other end for a wake-up. False if it must not sleep (something waits already). */
bool an2_link_arm(struct an2_link *link);
uint64_t an2_link_next_deadline(const struct an2_link *link);

/* A VC set up on this link (both directions on vci, VPI 0): counters start at 0; cells may
 * go once the other end's credit arrives. Routes in the switch are the caller's. 0, -EEXIST,
 * -ENOMEM. */
int an2_link_vc_add(struct an2_link *link, uint16_t vci, uint16_t gen);
void an2_link_vc_del(struct an2_link *link, uint16_t vci);
/* A free VCI from our half of this link's VCI space (not set up here), with a fresh
 * generation; 0 if none is free. */
uint16_t an2_link_vci_alloc(struct an2_link *link, uint16_t *gen);
/* Our side now buffers `cells` per VC (more than before, at most cfg.window): the switch
 * port's window grows (an2_switch_port_set_window) and the next credits grant it. Windows
 * only grow: a smaller value, or one above cfg.window, is ignored. 0 or -ENOMEM. */
int an2_link_set_window(struct an2_link *link, uint32_t cells);
/* Queues a signalling message (one cell on VCI 5). False if the queue is full (dropped). */
bool an2_link_send_sig(struct an2_link *link, const struct an2_sig_msg *msg);

/* Parses one record from buf (len bytes available): its total size, 0 if incomplete, -1 if
 * malformed (the link would end). For the fuzz target and tests. */
long an2_fiber_record_check(const uint8_t *buf, size_t len);
/* Signalling message <-> one 53-byte cell on VPI 0/VCI 5 (AAL5 trailer and CRC). Decode:
 * 0, or -EBADMSG for a cell that is not a valid one-cell signalling PDU. */
void an2_sig_cell_encode(const struct an2_sig_msg *msg, uint8_t cell[53]);
int an2_sig_cell_decode(const uint8_t cell[53], struct an2_sig_msg *msg);

#endif
