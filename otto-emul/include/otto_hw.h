/* otto_hw.h — the OTTO host interface: what a task's portion of descriptor memory holds
 * (rings, descriptor and report formats, doorbell, interrupt request), shared by the
 * controller model, the driver and the user-space endpoint library. */
#ifndef OTTO_HW_H
#define OTTO_HW_H

#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Ownership and ordering, in one place
 * ------------------------------------
 * A portion is one shared-memory object (a memfd) that the driver creates per task. The task
 * maps only its own portion; the controller maps every portion. Inside a portion:
 *
 *   offset 0                 struct otto_portion_hdr   geometry + ring indices + doorbell
 *   geo.tx_ring_off          tx_slots     x struct otto_tx_desc
 *   geo.rx_ring_off          max_vcs x rx_slots x struct otto_rx_desc   (VC v's ring at v*rx_slots)
 *   geo.rx_index_off         max_vcs      x struct otto_ring_index      (one per receive ring)
 *   geo.host_stats_off       max_vcs      x struct otto_host_vc_stats   (the host's own counters)
 *   geo.report_ring_off      report_slots x struct otto_report
 *   geo.buf_off              buf_size bytes of buffer area (page aligned): the only memory a
 *                            descriptor may name, by offset, never by address
 *
 * Every ring is single-producer single-consumer with free-running 32-bit counters
 * (slot = counter & (slots - 1); slots is a power of two; prod - cons <= slots):
 *   - the producer fills slot(prod) with plain stores, then store-releases prod + 1;
 *   - the consumer load-acquires prod, copies the slot out, then store-releases cons + 1,
 *     which hands the slot back to the producer.
 * Transmit ring: the host produces, the controller consumes. Receive rings (one per VC): the
 * host produces (posts empty buffers), the controller consumes (fills them). Report ring: the
 * controller produces, the host consumes.
 *
 * Nothing the host writes is trusted by the controller: it copies each descriptor out once,
 * then validates the copy (VC bound to this portion, nfrags <= OTTO_MAX_FRAGS, every fragment
 * inside [0, buf_size) without overflow, total payload <= OTTO_MAX_PDU, prod - cons <= slots).
 * A bad descriptor earns an OTTO_STATUS_PROTECTION report and touches no memory. The
 * controller never rereads the geometry from shared memory: it keeps the copy it validated at
 * attach time.
 *
 * The controller never overwrites an unconsumed report: it takes a descriptor off a ring only
 * when it can reserve a report slot for it (VC events have max_vcs slots set aside), so a host
 * that stops reading reports stalls only itself. otto_portion_geometry sizes the report ring
 * at the next power of two >= 2 * tx_slots + 2 * max_vcs, and the controller holds at most
 * 2 * tx_slots transmit descriptors taken off the ring (plus one receive per VC), so a host
 * that keeps reading never sees its rings wait for report slots. Ring indices that no ring
 * can have (prod - cons > slots, or a report cons ahead of prod) are ignored until they make
 * sense again: the portion stalls, nothing else does.
 *
 * What reports say: a TX report (status OK) is written when the PDU's last cell has left the
 * controller; from then on its buffers are the host's again; length = payload bytes sent, 0
 * for any other status. An RX report with status OK has length = payload bytes delivered;
 * with CRC_ERROR or LENGTH_ERROR, length = bytes that reached the buffers (not to be used).
 * A receive may write the PDU's pad and trailer into the posted fragments past `length`
 * (never past the descriptor's fragments, never outside the buffer area).
 *
 * Doorbell (host -> controller): after publishing any prod, the host increments doorbell
 * (release). While the controller is awake it polls doorbells, so ringing is a plain store.
 * Before the controller blocks it sets controller_asleep = 1 in every portion, issues a
 * seq_cst fence and scans the doorbells once more; the host, after ringing, issues a seq_cst
 * fence and reads controller_asleep: if it is 1 the host kicks the controller through the
 * kick file descriptor the driver handed it (a system call only when the controller sleeps).
 *
 * Report slots freed (host -> controller): a controller held back by a full report ring sets
 * controller_wants_reports = 1 (it clears it once a slot is free again), issues a seq_cst
 * fence and looks at report.cons once more; then it may sleep with no deadline for that ring,
 * so a host that does not read its reports costs it nothing. A host,
 * after advancing report.cons, issues a seq_cst fence and reads controller_wants_reports: if
 * it is 1 it rings the doorbell (with the kick check above). One of the two sees the other:
 * freed slots are never missed by a sleeping controller.
 *
 * Interrupt (controller -> host): a host about to sleep sets host_wants_irq = 1, issues a
 * seq_cst fence, checks the report ring once more, then futex-waits on irq_count. After
 * publishing a report the controller issues a seq_cst fence and reads host_wants_irq: if it is
 * 1 it raises the emulated interrupt, on which the driver increments irq_count (release) and
 * futex-wakes it. The host clears host_wants_irq when it is awake again. These Dekker pairs
 * (with the report-slots one above) are why the fences are seq_cst; ring indices are
 * acquire/release, hints and flags relaxed. otto_ring.h is the one way both sides touch
 * these words, each accessor with its memory order.
 *
 * Polling hint (host -> controller): a host that waits by polling and yielding its CPU
 * publishes, before each yield, the CPU it runs on (host_polls_cpu), what it waits for
 * (host_polls_for: any report, or only RX and VC reports) and a lease, host_polls_until_ns
 * (CLOCK_MONOTONIC, at most OTTO_POLL_LEASE_MAX_NS ahead); it sets the lease to 0 when it stops
 * waiting. An emulated controller that shares that CPU and has published nothing the host
 * waits for keeps the CPU until the lease ends instead of yielding it: the host's yield would
 * only hand it straight back, and the context switches cost more than the work. A hint only,
 * relaxed both ways and never trusted: a wrong value costs time, never correctness.
 *
 * Pulse (controller -> host): an emulated controller that is awake stores, at least every
 * OTTO_PULSE_NS while it runs, the time (CLOCK_MONOTONIC, controller_awake_ns) and the CPU it
 * runs on (controller_cpu) in every portion. A host in another scheduling group than the
 * controller, about to yield on that CPU, that finds the pulse older than OTTO_STARVED_NS
 * while controller_asleep is 0 knows its yields do not reach the controller: Linux's
 * sched_yield hands the CPU over only within a scheduling group (under the autogroup
 * scheduler, one session; an an2d started as a service shares none with the tasks). It sleeps
 * briefly instead, which lets the controller run. In the controller's group it yields: there
 * a yield reaches the controller, and a sleep would wake later and preempt it. A hint like the
 * one above, relaxed both ways: a wrong value costs time, never correctness.
 *
 * Move (host -> controller): a host that waits on one CPU while the pulse, between
 * OTTO_MOVE_NS and OTTO_MOVE_MAX_NS old, names another CPU (the controller waits there behind
 * a task that computes, and the scheduler counts the waiting host's CPU as busy) may move an
 * emulated controller process to its own CPU (sched_setaffinity) and then yields or naps as
 * above. It sets host_moved_controller to 1 after the move; the controller, at its next pulse,
 * clears it and takes back the CPUs it was started with. A hint too: a controller that was not
 * moved only widens its CPU set to what it already has.
 *
 * Holding (controller -> host): controller_holds_cells is 1 while cells the controller has
 * taken (and reported sent) still wait in it, for credit from a fabric's switch or for a
 * receiver's buffers; it is published after each pass that changed it. A host that sent to
 * another host and is about to compute on the controller's CPU (its pulse) hands the CPU over
 * while it is 1: behind a task that computes, the controller would wait for the scheduler's
 * tick. A relaxed hint like the others.
 */

#define OTTO_HW_MAGIC   0x4f54544fu /* "OTTO" */
#define OTTO_HW_VERSION 7u

#define OTTO_CELL_BYTES         53u
#define OTTO_CELL_HEADER_BYTES  5u
#define OTTO_CELL_PAYLOAD_BYTES 48u
#define OTTO_AAL5_TRAILER_BYTES 8u
#define OTTO_MAX_PDU            65535u /* AAL5 CPCS-PDU payload limit (16-bit Length) */
#define OTTO_MAX_FRAGS          8u     /* fragments per packet descriptor */
#define OTTO_CACHELINE          64u
#define OTTO_POLL_LEASE_MAX_NS  1000000u /* a polling hint further ahead is ignored */
#define OTTO_PULSE_NS           10000u   /* a running controller's pulse is at most this old */
#define OTTO_STARVED_NS         100000u  /* an older one: the controller waits for a CPU */
#define OTTO_MOVE_NS            200000u  /* one this old on another CPU: move the controller */
#define OTTO_MOVE_MAX_NS        100000000u /* but not an older one: stopped or gone, not waiting */

/* Written once by the driver before the portion is handed to the task; read-only after. */
struct otto_geometry {
    uint32_t magic;           /* OTTO_HW_MAGIC */
    uint32_t version;         /* OTTO_HW_VERSION */
    uint32_t max_vcs;         /* local VC indices are 0 .. max_vcs-1 */
    uint32_t tx_slots;        /* power of two */
    uint32_t rx_slots;        /* per VC, power of two */
    uint32_t report_slots;    /* power of two */
    uint64_t tx_ring_off;
    uint64_t rx_ring_off;
    uint64_t rx_index_off;
    uint64_t report_ring_off;
    uint64_t buf_off;
    uint64_t buf_size;
    uint64_t portion_size;
    uint64_t host_stats_off;
};

/* Counters the host's own protocol layer keeps per VC (its retransmissions and the like), in
 * its portion for the driver to show (an2stat). One writer, the host, with relaxed atomic
 * stores: they order nothing else. The driver reads them with relaxed loads, only to display
 * them, never to act on them (they are the host's word, untrusted). */
struct otto_host_vc_stats {
    uint64_t resent;        /* PDUs sent again */
    uint64_t dups_dropped;  /* duplicates received and dropped */
    uint64_t recoveries;    /* losses repaired: a NAK or a timeout answered */
};

/* One ring's two counters, each on its own cache line so producer and consumer never share. */
struct otto_ring_index {
    alignas(OTTO_CACHELINE) uint32_t prod; /* producer: store-release after filling slots */
    alignas(OTTO_CACHELINE) uint32_t cons; /* consumer: store-release after copying slots out */
};

struct otto_portion_hdr {
    struct otto_geometry geo;
    alignas(OTTO_CACHELINE) struct otto_ring_index tx;     /* prod: host, cons: controller */
    alignas(OTTO_CACHELINE) struct otto_ring_index report; /* prod: controller, cons: host */
    alignas(OTTO_CACHELINE) uint32_t doorbell;     /* host: += 1 (release) after any prod */
    alignas(OTTO_CACHELINE) uint32_t controller_asleep; /* controller: 1 while blocked */
    uint32_t controller_wants_reports;                  /* controller: 1 while a full report
                                                           ring holds it back */
    alignas(OTTO_CACHELINE) uint32_t host_wants_irq;    /* host: 1 while it means to sleep */
    uint32_t irq_count;                                 /* driver: += 1 per interrupt; futex word */
    alignas(OTTO_CACHELINE) uint64_t host_polls_until_ns; /* host: polling hint's lease, 0: none */
    uint32_t host_polls_cpu;                            /* host: the CPU it polls on */
    uint32_t host_polls_for;                            /* host: enum otto_polls_for */
    uint32_t host_moved_controller;                     /* host: 1 after moving the controller
                                                           to its CPU; the controller: 0 */
    alignas(OTTO_CACHELINE) uint64_t controller_awake_ns; /* controller: its pulse, 0: none */
    uint32_t controller_cpu;                            /* controller: the CPU of that pulse */
    uint32_t controller_holds_cells;                    /* controller: 1 while cells it took
                                                           wait in it (for credit, a receiver) */
};

/* What a polling host waits for (host_polls_for). */
enum otto_polls_for {
    OTTO_POLLS_ANY = 0, /* any report */
    OTTO_POLLS_RX = 1,  /* RX and VC reports: TX reports would not end its wait */
};

/* A fragment: a run of the owner's buffer area, named by offset (never by address). */
struct otto_frag {
    uint32_t offset;
    uint32_t length;
};

/* Transmit packet descriptor: one AAL5 PDU = the concatenation of its fragments. */
struct otto_tx_desc {
    uint64_t cookie;   /* opaque to the controller; returned in the report */
    uint16_t vc;       /* local VC index */
    uint8_t  nfrags;   /* 0 .. OTTO_MAX_FRAGS (0: empty PDU) */
    uint8_t  uu;       /* CPCS-UU, carried to the receiver */
    uint8_t  cpi;      /* CPI; must be 0 (I.363.5) */
    uint8_t  reserved[3];
    struct otto_frag frag[OTTO_MAX_FRAGS];
};

/* Receive packet descriptor: empty buffers posted in advance on one VC's ring. */
struct otto_rx_desc {
    uint64_t cookie;   /* opaque to the controller; returned in the report */
    uint8_t  nfrags;   /* 1 .. OTTO_MAX_FRAGS */
    uint8_t  reserved[7];
    struct otto_frag frag[OTTO_MAX_FRAGS];
};

enum otto_report_kind {
    OTTO_REPORT_TX = 1, /* a transmit descriptor is done: its buffers are the host's again */
    OTTO_REPORT_RX = 2, /* a receive descriptor is done: filled, or given back with an error */
    OTTO_REPORT_VC = 3, /* an event on a VC (status says which); cookie is 0 */
};

enum otto_status {
    OTTO_STATUS_OK = 0,
    OTTO_STATUS_CRC_ERROR = 1,    /* rx: AAL5 CRC-32 mismatch; nothing delivered as good */
    OTTO_STATUS_LENGTH_ERROR = 2, /* rx: Length field inconsistent with the cells, or PDU
                                     larger than the posted buffers */
    OTTO_STATUS_ABORTED = 3,      /* descriptor returned unused (VC closed, portion detached) */
    OTTO_STATUS_PROTECTION = 4,   /* descriptor named memory or a VC outside its owner's, or
                                     is malformed (nfrags, > 65,535 bytes, CPI != 0) */
    OTTO_STATUS_PEER_GONE = 5,    /* the other end of the VC has gone */
};

/* Status report: one per transmitted or received packet, plus VC events. */
struct otto_report {
    uint64_t cookie;   /* the descriptor's cookie */
    uint32_t length;   /* tx: payload bytes sent; rx: payload bytes delivered */
    uint16_t vc;       /* local VC index */
    uint8_t  kind;     /* enum otto_report_kind */
    uint8_t  status;   /* enum otto_status */
    uint8_t  uu;       /* rx: CPCS-UU of the PDU */
    uint8_t  cpi;      /* rx: CPI of the PDU */
    uint8_t  reserved[6];
};

static_assert(sizeof(struct otto_geometry) == 88, "geometry layout");
static_assert(offsetof(struct otto_geometry, host_stats_off) == 80, "geometry.host_stats_off");
static_assert(sizeof(struct otto_host_vc_stats) == 24, "host counters layout");
static_assert(sizeof(struct otto_ring_index) == 2 * OTTO_CACHELINE, "ring index layout");
static_assert(offsetof(struct otto_ring_index, cons) == OTTO_CACHELINE, "cons on its own line");
static_assert(offsetof(struct otto_portion_hdr, tx) == 2 * OTTO_CACHELINE, "hdr.tx");
static_assert(offsetof(struct otto_portion_hdr, report) == 4 * OTTO_CACHELINE, "hdr.report");
static_assert(offsetof(struct otto_portion_hdr, doorbell) == 6 * OTTO_CACHELINE, "hdr.doorbell");
static_assert(offsetof(struct otto_portion_hdr, controller_asleep) == 7 * OTTO_CACHELINE,
              "hdr.controller_asleep");
static_assert(offsetof(struct otto_portion_hdr, controller_wants_reports) ==
                  7 * OTTO_CACHELINE + 4, "hdr.controller_wants_reports");
static_assert(offsetof(struct otto_portion_hdr, host_wants_irq) == 8 * OTTO_CACHELINE,
              "hdr.host_wants_irq");
static_assert(offsetof(struct otto_portion_hdr, irq_count) == 8 * OTTO_CACHELINE + 4,
              "hdr.irq_count");
static_assert(offsetof(struct otto_portion_hdr, host_polls_until_ns) == 9 * OTTO_CACHELINE,
              "hdr.host_polls_until_ns");
static_assert(offsetof(struct otto_portion_hdr, host_polls_cpu) == 9 * OTTO_CACHELINE + 8,
              "hdr.host_polls_cpu");
static_assert(offsetof(struct otto_portion_hdr, host_polls_for) == 9 * OTTO_CACHELINE + 12,
              "hdr.host_polls_for");
static_assert(offsetof(struct otto_portion_hdr, host_moved_controller) == 9 * OTTO_CACHELINE + 16,
              "hdr.host_moved_controller");
static_assert(offsetof(struct otto_portion_hdr, controller_awake_ns) == 10 * OTTO_CACHELINE,
              "hdr.controller_awake_ns");
static_assert(offsetof(struct otto_portion_hdr, controller_cpu) == 10 * OTTO_CACHELINE + 8,
              "hdr.controller_cpu");
static_assert(offsetof(struct otto_portion_hdr, controller_holds_cells) ==
                  10 * OTTO_CACHELINE + 12, "hdr.controller_holds_cells");
static_assert(sizeof(struct otto_portion_hdr) == 11 * OTTO_CACHELINE, "hdr size");
static_assert(sizeof(struct otto_frag) == 8, "frag layout");
static_assert(sizeof(struct otto_tx_desc) == 80, "tx descriptor layout");
static_assert(offsetof(struct otto_tx_desc, frag) == 16, "tx descriptor frags");
static_assert(sizeof(struct otto_rx_desc) == 80, "rx descriptor layout");
static_assert(offsetof(struct otto_rx_desc, frag) == 16, "rx descriptor frags");
static_assert(sizeof(struct otto_report) == 24, "report layout");

#endif
