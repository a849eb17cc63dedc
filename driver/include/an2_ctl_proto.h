/* an2_ctl_proto.h — the control-socket protocol between tasks (liban2, an2stat) and an2d:
 * fixed-size requests and replies over a Unix SOCK_SEQPACKET socket. */
#ifndef AN2_CTL_PROTO_H
#define AN2_CTL_PROTO_H

#include <assert.h>
#include <stdint.h>

#define AN2_CTL_MAGIC   0x414e3244u /* "AN2D" */
#define AN2_CTL_VERSION 1u

/* Every request is exactly one struct an2_ctl_req; anything else (other size, bad magic,
 * unknown op) is a protocol violation and an2d drops that client. An OPEN reply carries three
 * file descriptors (SCM_RIGHTS): the portion memfd, the task's kick eventfd (task -> an2d)
 * and its interrupt eventfd (an2d -> task). */
enum an2_ctl_op {
    AN2_CTL_OPEN = 1,      /* -> R_OPEN + fds */
    AN2_CTL_VC_OPEN = 2,   /* -> R_VC, when both ends have asked (or on error) */
    AN2_CTL_VC_CANCEL = 3, /* -> R_CANCEL: status 0 withdrawn, -ENOENT nothing pending */
    AN2_CTL_VC_CLOSE = 4,  /* -> R_CLOSE */
    AN2_CTL_STATS = 5,     /* -> R_STATS header + records */
    AN2_CTL_STOP = 6,      /* -> R_STOP, then an2d exits */
    AN2_CTL_REGISTER = 7,  /* -> R_REGISTER: gives this endpoint the name req.name (e.g. a
                            *    PVM tid); -EADDRINUSE if another endpoint holds it;
                            *    name 0 gives the endpoint's name up */
    AN2_CTL_LOOKUP = 8,    /* -> R_LOOKUP: endpoint_id of the endpoint named req.name,
                            *    -ESRCH if none */

    AN2_CTL_R_OPEN = 101,
    AN2_CTL_R_VC = 102,
    AN2_CTL_R_CANCEL = 103,
    AN2_CTL_R_CLOSE = 104,
    AN2_CTL_R_STATS = 105,
    AN2_CTL_R_STOP = 106,
    AN2_CTL_R_ERROR = 107, /* a request refused before it was understood (e.g. version) */
    AN2_CTL_R_REGISTER = 108,
    AN2_CTL_R_LOOKUP = 109,
};

struct an2_ctl_req {
    uint32_t magic;
    uint16_t version;
    uint16_t op;
    uint32_t peer_id;   /* VC_OPEN, VC_CANCEL */
    uint32_t vc;        /* VC_CLOSE */
    uint64_t buf_size;  /* OPEN: 0 = default */
    uint32_t max_vcs;   /* OPEN: 0 = default */
    uint32_t tx_slots;  /* OPEN: 0 = default */
    uint32_t rx_slots;  /* OPEN: 0 = default */
    uint32_t name;      /* REGISTER, LOOKUP: an endpoint's name (REGISTER 0: none) */
};
static_assert(sizeof(struct an2_ctl_req) == 40, "request layout");

struct an2_ctl_reply {
    uint32_t magic;
    uint16_t version;
    uint16_t op;
    int32_t  status;        /* 0 or -errno */
    uint32_t endpoint_id;   /* R_OPEN */
    uint64_t portion_size;  /* R_OPEN */
    uint32_t peer_id;       /* R_VC, R_CANCEL */
    uint16_t vc, itf, vpi, vci; /* R_VC */
    int32_t  pid;           /* R_STOP, R_OPEN: an2d's pid */
    uint32_t reserved;
    char     detail[100];   /* NUL-terminated explanation of a refusal */
};
static_assert(sizeof(struct an2_ctl_reply) == 144, "reply layout");

/* R_STATS: one message = header, nports port records, nendpoints endpoint records, then nvcs
 * VC records (each VC record names its endpoint). A system an2d (serving every uid) answers a
 * task of another uid than root with its own uid's endpoints and VCs only, and no ports. */
struct an2_stat_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t op;
    int32_t  status;
    int32_t  pid;
    double   cells_per_second;    /* 0 = unpaced */
    uint64_t uptime_ns;
    uint32_t nports, nendpoints, nvcs, npending;
    uint32_t nroutes;             /* switch routes the driver has programmed */
    uint32_t truncated;           /* 1 if records were left out to fit one message */
    uint32_t host_addr;           /* ours on the fabric (switch id << 8 | port); 0: alone */
    uint32_t uplink_up;           /* 1: the link to the fabric's switch is up */
    uint64_t uplink_rtt_ns;       /* its last keepalive round trip */
};

struct an2_stat_port {
    uint32_t port, reserved;
    uint64_t cells_in, cells_out, credits_granted, stalls, drops;
};

struct an2_stat_ep {
    uint32_t endpoint_id;
    int32_t  pid;
    uint32_t max_vcs, vcs_open;
    uint64_t buf_size, portion_size;
    uint32_t name;                /* REGISTER's name (a PVM tid), 0 if none */
    uint32_t lingering;           /* 1: its task has gone; queued transmits still go out */
    uint32_t uid;                 /* its task's uid */
    uint32_t reserved;
};

struct an2_stat_vc {
    uint32_t endpoint_id, peer_id;
    uint16_t vc, itf, vpi, vci;
    uint32_t peer_gone, closing;  /* closing: closed, queued transmits still go out */
    /* controller counters of this end */
    uint64_t tx_pdus, tx_cells, tx_bytes, rx_pdus, rx_cells, rx_bytes;
    uint64_t crc_errors, length_errors, protection_errors, aborted;
    /* switch counters of the route taking this end's cells in */
    uint64_t sw_cells_in, sw_cells_out, sw_credits, sw_stalls, sw_drops;
    uint32_t sw_buffered;
    uint32_t rx_posted_max;       /* the most receive buffers this end had posted at once */
    /* the task's own counters (its protocol layer's word: shown, never acted on) */
    uint64_t host_resent, host_dups_dropped, host_recoveries;
};

/* bytes of one R_STATS message: fits under the default SO_SNDBUF */
#define AN2_CTL_STATS_MAX 131072u

#endif
