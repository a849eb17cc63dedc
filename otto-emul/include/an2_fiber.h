/* an2_fiber.h — the AN2 link protocol ("the fiber"): the records that travel over a byte
 * stream (TCP, or a Unix socket on one machine) between a host's OTTO and a switch port, or
 * between two switches, and the signalling messages carried in cells on VCI 5. */
#ifndef AN2_FIBER_H
#define AN2_FIBER_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Records
 * -------
 * Every record is a 4-byte header then `length` bytes of body; every multi-byte field is in
 * network byte order. A link starts with the handshake of an2_link_auth.h (AUTH_NONCE and
 * AUTH_PROOF records both ways); once both ends are proven, each sends HELLO first and nothing
 * else until it has received the other's HELLO. Every field from the wire is untrusted: a record of an unknown type, a
 * length the type does not allow, a cell whose HEC fails, or a cell sent beyond its credit
 * ends the link (the reader never waits for more than one record's bytes).
 *
 *   HELLO      struct an2_fiber_hello
 *   CELLS      1..AN2_FIBER_MAX_CELLS cells of 53 bytes, each with its real 5-byte UNI header
 *              (HEC included): the cells of data VCs and of the signalling VC, in link order
 *   CREDIT     1..AN2_FIBER_MAX_CREDITS x struct an2_fiber_credit
 *   KEEPALIVE  struct an2_fiber_keepalive, at least every keepalive_ms; a link silent for
 *              AN2_FIBER_DEAD_MISSES periods is dead
 *
 * Credits (the credit update protocol, per VC and per hop)
 * --------------------------------------------------------
 * The receiving end of a link buffers up to `window` cells per VC; its HELLO gives the most
 * it will ever buffer (its window may grow up to that, never shrink). For each VC it counts the cells it has received and how many of them have left its buffer
 * (Vr), and sends CREDIT records carrying limit = Vr + window: the cumulative count of cells
 * the sender may have sent on that VC. The sender keeps its own count Vs and sends only while
 * Vs < limit. Limits only grow, so a lost, late or merged update is healed by the next one.
 * A limit once sent is never taken back: cells sent against it may be on the way (a receiver
 * whose route for the VC has gone drops them, counted as unrouted). Since every cell sent has
 * buffer space waiting, a link's reader never stops reading: a stalled receiver holds up only
 * its own VC, and no cell is ever dropped for congestion.
 * A VC's counters start at 0 when it is set up; `gen` (from the SETUP that made the VC on
 * that link) tells a late CREDIT for an earlier VC on the same VCI from a current one.
 *
 * Signalling
 * ----------
 * As ATM's UNI uses VPI 0/VCI 5, the drivers and switches signal on VCI 5 of every link, one
 * message per one-cell AAL5 PDU (struct an2_sig_msg, then the AAL5 trailer with its CRC-32).
 * Signalling cells carry no credits: each end handles them as they arrive.
 *   SETUP    caller -> callee, hop by hop (a switch refuses one from a host port whose caller
 *            is not that port's host): each switch picks the outgoing port for called_host
 *            from its table, allocates the VCI on the outgoing link (from the half of the VCI
 *            space its HELLO's vci_half gives it), programs both directions and forwards.
 *   CONNECT  callee -> caller along the same hops: the callee accepted.
 *   RELEASE  either way along the hops: each hop removes its routes; `cause` says why. A
 *            normal release (any cause but LINK_DOWN) is held at each hop, the releasing
 *            end's own included, until the cells sent on the VC before it have left that
 *            hop (so it reaches the far end behind them, on the same link), or until none
 *            of them has left for AN2_FIBER_DRAIN_STALL_MS (then they are dropped, counted);
 *            cells toward the releasing end are dropped at once. LINK_DOWN goes at once.
 *   LOOKUP   flooded to every host (hop limit in `hops`): who holds endpoint name `name`?
 *   FOUND    the holder -> the asker, routed by host address: called_ep is the endpoint.
 *   ROUTE    switch -> switch on trunks, every second: "switch called_host is `hops` trunks
 *            away through me" (distance vector, split horizon, at most AN2_FIBER_MAX_HOPS).
 *
 * Addresses: a host's address is (switch id << 8) | port of the switch port it is attached
 * to, given by the switch in its HELLO; an endpoint's global id is (host address << 16) |
 * its number on that host, so a peer id says where the peer is.
 */

#define AN2_FIBER_MAGIC    0x414e3246u  /* "AN2F" */
#define AN2_FIBER_VERSION  2u         /* 2: the handshake comes first, SETUP carries a uid */
#define AN2_FIBER_HDR      4u
#define AN2_FIBER_MAX_CELLS   64u
#define AN2_FIBER_MAX_CREDITS 128u
#define AN2_FIBER_MAX_BODY    (AN2_FIBER_MAX_CELLS * 53u)
#define AN2_FIBER_DEAD_MISSES 3u
#define AN2_FIBER_SIG_VCI  5u         /* VPI 0 */
#define AN2_FIBER_FIRST_VCI 32u       /* VCIs below are reserved */
#define AN2_FIBER_HALF_VCI 32768u     /* vci_half 0: [32, 32768); 1: [32768, 65536) */
#define AN2_FIBER_MAX_HOPS 15u        /* trunks between two switches, at most */
/* A RELEASE held at a hop whose buffered cells of the VC have not moved for this long goes
 * on anyway (the receiver stalled): ten keepalive periods, long past any scheduling delay,
 * short enough that a receiver that stopped reading holds no switch's buffer for long. */
#define AN2_FIBER_DRAIN_STALL_MS 2000u

enum an2_fiber_type {
    AN2_FIBER_HELLO = 1,
    AN2_FIBER_CELLS = 2,
    AN2_FIBER_CREDIT = 3,
    AN2_FIBER_KEEPALIVE = 4,
    AN2_FIBER_AUTH_NONCE = 5,    /* the handshake (an2_link_auth.h): never after it */
    AN2_FIBER_AUTH_PROOF = 6,    /* 1..AN2_AUTH_MAX_PROOF bytes */
};

enum an2_fiber_role {
    AN2_FIBER_ROLE_HOST = 1,     /* an OTTO (an2d) */
    AN2_FIBER_ROLE_SWITCH = 2,   /* a switch port */
};

struct an2_fiber_hdr {
    uint8_t  type;
    uint8_t  flags;      /* 0 */
    uint16_t length;     /* body bytes */
};
static_assert(sizeof(struct an2_fiber_hdr) == AN2_FIBER_HDR, "record header");

struct an2_fiber_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t role;           /* enum an2_fiber_role */
    uint32_t switch_id;      /* a switch: its id (1..255); a host: 0 */
    uint32_t host_addr;      /* a switch to a host: the address it gives the host; else 0 */
    uint32_t window;         /* the most cells per VC the sender's receive side buffers */
    uint32_t keepalive_ms;   /* the sender's keepalive period (10..10000) */
    uint16_t vci_half;       /* 0 or 1: which half of the VCI space the SENDER allocates */
    uint16_t port;           /* the sender's port number for this link (a switch), else 0 */
};
static_assert(sizeof(struct an2_fiber_hello) == 28, "HELLO body");

#define AN2_FIBER_AUTH_MAGIC 0x414e3241u   /* "AN2A" */
struct an2_fiber_auth_nonce {
    uint32_t magic;
    uint16_t version;        /* AN2_FIBER_VERSION */
    uint16_t method;         /* enum an2_auth_method */
    uint8_t  nonce[32];      /* fresh random bytes */
};
static_assert(sizeof(struct an2_fiber_auth_nonce) == 40, "AUTH_NONCE body");

struct an2_fiber_credit {
    uint16_t vci;            /* VPI 0 */
    uint16_t gen;
    uint32_t limit;          /* cumulative cells the sender may have sent (mod 2^32) */
};
static_assert(sizeof(struct an2_fiber_credit) == 8, "CREDIT entry");

struct an2_fiber_keepalive {
    uint64_t sent_ns;        /* the sender's clock */
    uint64_t echo_ns;        /* the last sent_ns received from the other end, 0 if none */
    uint64_t held_ns;        /* how long the sender held echo_ns before this record: the
                              * round trip is (now - echo_ns) - held_ns at the other end */
};
static_assert(sizeof(struct an2_fiber_keepalive) == 24, "KEEPALIVE body");

enum an2_sig_type {
    AN2_SIG_SETUP = 1,
    AN2_SIG_CONNECT = 2,
    AN2_SIG_RELEASE = 3,
    AN2_SIG_LOOKUP = 4,
    AN2_SIG_FOUND = 5,
    AN2_SIG_ROUTE = 6,
};

enum an2_sig_cause {
    AN2_CAUSE_NORMAL = 0,         /* closed by an end */
    AN2_CAUSE_NO_ROUTE = 1,       /* no switch knows the called host */
    AN2_CAUSE_NO_ENDPOINT = 2,    /* the called endpoint does not exist (any more) */
    AN2_CAUSE_LINK_DOWN = 3,      /* a link on the path went away */
    AN2_CAUSE_NO_VCI = 4,         /* a link on the path has no free VCI */
    AN2_CAUSE_TIMEOUT = 5,        /* the callee never asked for this VC */
    AN2_CAUSE_CANCELLED = 6,      /* the caller withdrew */
    AN2_CAUSE_REFUSED = 7,        /* the callee's an2d refuses a VC between these uids */
};

struct an2_sig_msg {
    uint8_t  type;           /* enum an2_sig_type */
    uint8_t  cause;          /* RELEASE: enum an2_sig_cause */
    uint8_t  hops;           /* LOOKUP: hops left */
    uint8_t  pad;
    uint16_t vci;            /* the VC's VCI on the link this message travels */
    uint16_t gen;            /* SETUP: the VC's generation on that link (credits) */
    uint32_t calling_host, called_host;
    uint32_t calling_ep, called_ep;   /* global endpoint ids */
    uint32_t name;           /* LOOKUP, FOUND */
    uint32_t call_ref;       /* LOOKUP, FOUND: the asker's request number */
    uint32_t calling_uid;    /* SETUP: the uid of calling_ep's task, as its host's an2d
                              * attests it (the callee's an2d applies its uid rule to it) */
};
static_assert(sizeof(struct an2_sig_msg) == 36, "signalling message");
static_assert(sizeof(struct an2_sig_msg) <= 48 - 8, "one cell with the AAL5 trailer");

static inline uint32_t an2_host_addr(uint32_t switch_id, uint32_t port)
{
    return (switch_id & 0xffu) << 8 | (port & 0xffu);
}
static inline uint32_t an2_ep_host(uint32_t global_ep) { return global_ep >> 16; }
static inline uint32_t an2_ep_global(uint32_t host_addr, uint32_t local)
{
    return (host_addr & 0xffffu) << 16 | (local & 0xffffu);
}

#endif
