/* otto.h — the controller model's interface to the driver: attach portions, bind VCs, poll. */
#ifndef OTTO_H
#define OTTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otto_hw.h"

struct an2_switch;
struct an2_capture;

/* Everything in this header is single-threaded: one thread (an2d's main loop, or a test)
 * makes every call on a given controller and on the switch it is attached to. */

struct otto_config {
    double   cells_per_second;  /* link rate in cells/s; 0 = unpaced */
    double   bit_error_rate;    /* injected errors per payload bit on the link; 0 = off */
    double   cell_loss_rate;    /* injected loss per cell on the link; 0 = off */
    uint64_t fault_seed;        /* seed of the fault injector, for repeatable tests */
    struct an2_capture *capture;/* NULL = no capture; else every PDU sent is written to it */
    /* The emulated interrupt: called (from otto_poll) when a report was published to a
     * portion whose host asked for one (host_wants_irq). The driver wakes the sleeper. */
    void (*interrupt)(void *ctx, uint32_t portion_id);
    void *interrupt_ctx;
};

/* How big a task's portion is and how it is divided (chosen by the driver). */
struct otto_portion_params {
    uint32_t max_vcs;   /* >= 1 */
    uint32_t tx_slots;  /* power of two */
    uint32_t rx_slots;  /* power of two, per VC */
    uint64_t buf_size;  /* bytes of buffer area; rounded up to pages */
};

/* Per-VC counters of one endpoint, as the controller sees them. */
struct otto_vc_counters {
    uint64_t tx_pdus, tx_cells, tx_bytes;
    uint64_t rx_pdus, rx_cells, rx_bytes;
    uint64_t crc_errors, length_errors, protection_errors, aborted;
    uint32_t rx_posted_max;           /* the most receive buffers found posted at once */
    struct otto_host_vc_stats host;   /* the host's own counters (its word, shown only) */
};

/* Controller-wide counters: cells dropped because no VC is bound to their VPI/VCI or their
 * header failed the HEC, and what the fault injector did. */
struct otto_counters {
    uint64_t unknown_vc_cells, hec_errors;
    uint64_t bits_flipped, cells_lost;
};

/* Geometry for params (all offsets, sizes); 0 on success, -EINVAL for bad params. */
int otto_portion_geometry(const struct otto_portion_params *params, struct otto_geometry *geo);
/* Writes the header of a fresh (zeroed) portion of geo->portion_size bytes. */
void otto_portion_format(void *base, const struct otto_geometry *geo);

/* A controller on port `port` of switch `sw`. NULL with errno set on failure. */
struct otto *otto_create(const struct otto_config *config, struct an2_switch *sw, unsigned port);
void otto_destroy(struct otto *otto);

/* Starts serving a formatted portion mapped at base (size bytes). The controller validates
 * the geometry once and keeps its own copy. 0, or -EINVAL / -EEXIST / -ENOSPC. */
int otto_attach(struct otto *otto, uint32_t portion_id, void *base, size_t size);
/* Stops every use of the portion's memory before returning: its VCs are unbound, PDUs in
 * flight from it are aborted (the peer's partial reassembly is discarded). */
void otto_detach(struct otto *otto, uint32_t portion_id);

/* The portion's host has gone while transmits it queued are still going out: from now on
 * the controller consumes the portion's reports itself (the host's slots were freed too)
 * and raises no interrupt; the driver detaches the portion once otto_vc_tx_busy is false. */
void otto_orphan(struct otto *otto, uint32_t portion_id);
/* Whether transmits for the VC are queued or in progress, or descriptors of the portion
 * not yet taken off its ring (they might be for this VC). */
bool otto_vc_tx_busy(const struct otto *otto, uint32_t portion_id, uint16_t local_vc);

/* Binds local VC index local_vc of a portion to vpi.vci on the controller's link (the same
 * VCI in both directions of the link). 0, or -EINVAL / -ENOENT / -EBUSY. */
int otto_vc_bind(struct otto *otto, uint32_t portion_id, uint16_t local_vc,
                 uint16_t vpi, uint16_t vci);
/* Unbinds: posted receive descriptors and queued transmits come back as ABORTED reports
 * (written at once while report slots last; the rest by otto_poll, and until then a bind of
 * the same local VC is -EBUSY). */
int otto_vc_unbind(struct otto *otto, uint32_t portion_id, uint16_t local_vc);
/* The other end has gone: a VC event report with OTTO_STATUS_PEER_GONE is written, and
 * later transmits on the VC are reported PEER_GONE without being sent. */
int otto_vc_peer_gone(struct otto *otto, uint32_t portion_id, uint16_t local_vc);
int otto_vc_counters(const struct otto *otto, uint32_t portion_id, uint16_t local_vc,
                     struct otto_vc_counters *out);

int otto_get_counters(const struct otto *otto, struct otto_counters *out);

/* Does a bounded amount of work (doorbells, transmit, switch, receive, reports) at time
 * now_ns (CLOCK_MONOTONIC). Returns true if it made any progress. */
bool otto_poll(struct otto *otto, uint64_t now_ns);
/* The earliest time at which pacing lets queued work progress; UINT64_MAX if none waits.
 * While a host's full report ring holds work back it is at most 1 ms after the last poll:
 * a host frees report slots without ringing (see otto_hw.h). */
uint64_t otto_next_deadline(const struct otto *otto);
/* True if a host polls on `cpu` under its polling hint (otto_hw.h) and none that does has
 * unconsumed reports it waits for: a controller running on that CPU should keep it. */
bool otto_hosts_only_poll_on(const struct otto *otto, uint32_t cpu, uint64_t now_ns);
/* Publishes controller_holds_cells to every attached portion when it changed (otto_hw.h):
 * call after each pass, the uplink's included. */
void otto_publish_holding(struct otto *otto);
/* Publishes controller_asleep to every attached portion (see otto_hw.h), with the fence. */
void otto_set_asleep(struct otto *otto, bool asleep);
/* Publishes the controller's pulse (otto_hw.h) to every attached portion: it runs at now_ns
 * on `cpu`. The caller repeats it at least every OTTO_PULSE_NS while it runs. True if a host
 * has moved the controller to its CPU since (the move hint, cleared here): the caller takes
 * back the CPUs it started with. */
bool otto_pulse(struct otto *otto, uint64_t now_ns, uint32_t cpu);

#endif
