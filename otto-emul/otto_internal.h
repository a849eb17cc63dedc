/* otto_internal.h — the controller model's private state, shared by its source files. */
#ifndef OTTO_INTERNAL_H
#define OTTO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "aal5_reasm.h"
#include "an2_switch_port.h"
#include "fault_inject.h"
#include "link_pacer.h"
#include "otto.h"
#include "otto_ring.h"
#include "vc_map.h"

#define OTTO_NIL 0xFFFFFFFFu
#define OTTO_MAX_PORTIONS 1024u
#define OTTO_POLL_CELL_BUDGET 16384u  /* cells one otto_poll may transmit: bounded work */
#define OTTO_SCRATCH_CELLS 64u        /* cells built at once when they must be real */

/* A validated transmit descriptor waiting on its VC's queue; it holds a report slot. */
struct otto_tx_item {
    struct otto_tx_desc d;
    uint32_t next;
};

struct otto_portion;

struct otto_vc {
    struct otto_portion *portion;
    uint16_t index;
    bool bound;
    bool peer_gone;
    bool draining;            /* unbound; posted receive descriptors go back as ABORTED */
    bool event_pending;       /* a PEER_GONE VC event waits for a report slot */
    uint16_t vpi, vci;
    uint32_t drain_until;     /* receive ring prod seen at unbind */

    /* transmit */
    uint32_t q_head, q_tail;  /* FIFO of pool items */
    bool tx_listed;           /* in otto->tx_active */
    uint32_t tx_index;
    uint32_t cur;             /* pool item being sent, or OTTO_NIL */
    uint32_t next_cell;
    struct aal5_tx_pdu pdu;

    /* receive */
    uint32_t rx_cons;         /* private consumer counter of the VC's receive ring */
    bool rx_active;           /* a descriptor is taken and a PDU is being reassembled */
    uint64_t rx_cookie;
    struct aal5_reasm reasm;

    /* capture of the cells sent, as they crossed the link */
    uint8_t *cap_buf;
    uint32_t cap_len;

    struct otto_vc_counters c;
};

struct otto_portion {
    struct otto *otto;
    uint32_t id;
    uint32_t list_index;
    uint8_t *base;
    struct otto_geometry geo;          /* the controller's validated private copy */
    struct otto_portion_hdr *hdr;
    struct otto_tx_desc *tx_ring;
    struct otto_rx_desc *rx_ring;
    struct otto_ring_index *rx_index;
    struct otto_report *reports;
    uint8_t *buf;

    uint32_t tx_cons;                  /* private: the shared cons is only written */
    uint32_t report_prod;              /* private: the shared prod is only written */
    uint32_t rx_report_prod;           /* report_prod after the last RX or VC report */
    uint32_t reserved;                 /* report slots promised to taken descriptors */
    uint32_t reserve_limit;            /* report_slots - max_vcs (VC events keep the rest) */

    struct otto_tx_item *pool;
    uint32_t pool_size, free_head;

    struct otto_vc *vcs;
    bool irq_pending;                  /* a report was published since the last irq check */
    bool housekeeping;                 /* some VC drains or has an event pending */
    bool orphan;                       /* its host left: the controller consumes its reports */
    bool wants_reports;                /* hdr->controller_wants_reports is 1 (our copy) */
};

struct otto {
    struct otto_config cfg;
    struct an2_switch *sw;
    unsigned port;
    bool holds_published;              /* controller_holds_cells as last published */
    struct vc_map portion_map;         /* id -> portion */
    struct otto_portion **portions;
    uint32_t nportions;
    struct vc_map rx_map;              /* vpi << 16 | vci -> VC */
    struct otto_vc **tx_active;        /* VCs with transmit work */
    uint32_t ntx_active, tx_active_cap, rr;
    struct link_pacer egress;          /* controller -> switch direction of the link */
    bool waiting_on_clock;
    struct fault_inject faults;
    uint64_t unknown_vc_cells;         /* arrived on a VPI/VCI bound to no VC: discarded */
    uint64_t hec_errors;               /* header failed its HEC: discarded */
    uint8_t scratch[OTTO_SCRATCH_CELLS * AAL5_CELL_BYTES];
};

/* Copies a descriptor out of shared memory once; the barrier keeps the compiler from
 * re-reading the shared original after the copy has been validated. */
static inline void otto_copy_in(void *dst, const void *shared, size_t n)
{
    memcpy(dst, shared, n);
    __asm__ __volatile__("" ::: "memory");
}

static inline uint64_t otto_vc_key(uint16_t vpi, uint16_t vci)
{
    return (uint64_t)vpi << 16 | vci;
}

/* otto_reports.c */
bool otto_report_reserve(struct otto_portion *p);
void otto_report_unreserve(struct otto_portion *p);
/* Publishes a report into a slot reserved earlier. */
void otto_report_publish(struct otto_portion *p, const struct otto_report *r);
/* Publishes without a reservation if a slot is free (VC events); false if full. */
bool otto_report_publish_event(struct otto_portion *p, const struct otto_report *r);
void otto_irq_check(struct otto *o, struct otto_portion *p);

/* otto_tx.c */
bool otto_tx_take(struct otto *o, struct otto_portion *p);
bool otto_tx_run(struct otto *o, uint64_t now);
void otto_tx_list_remove(struct otto *o, struct otto_vc *v);
/* Ends every transmit of v with status (reports written if `report`), aborting a PDU
 * that has begun to leave. */
void otto_tx_flush(struct otto *o, struct otto_vc *v, uint8_t status, bool report);
void otto_tx_free_item(struct otto_portion *p, uint32_t item);

/* otto_rx.c */
uint32_t otto_rx_receive(void *ctx, uint16_t vpi, uint16_t vci, const struct cell_run *run,
                         uint64_t now);
void otto_rx_discard_partial(void *ctx, uint16_t vpi, uint16_t vci);
/* Unbind: the descriptor in use comes back ABORTED; posted ones are drained later. */
void otto_rx_abort(struct otto_vc *v, bool report);
bool otto_rx_drain(struct otto_vc *v);
/* A fragment list inside the buffer area: its total, or -1 (protection violation). */
int64_t otto_frags_check(const struct otto_portion *p, const struct otto_frag *f, unsigned n);

#endif
