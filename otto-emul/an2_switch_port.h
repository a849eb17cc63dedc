/* an2_switch_port.h — the link between the switch and the device (controller) on a port:
 * cell runs, credits and delivery. Internal to otto-emul (the driver never sees it). */
#ifndef AN2_SWITCH_PORT_H
#define AN2_SWITCH_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "aal5_pdu.h"

struct an2_switch;

/* n consecutive cells of one VC. Either materialised (cells: n x 53 bytes, header included)
 * or virtual (cells first .. first+n-1 of a PDU being sent, whose CRC already covers them):
 * a virtual run is what a cut-through moves without building the cells. */
struct cell_run {
    uint32_t ncells;
    const uint8_t *cells;
    struct aal5_tx_pdu *pdu;
    uint32_t first;
};

/* The device on a port. receive() is offered cells arriving on vpi.vci of the port's link
 * and returns how many it took (a prefix of the run; 0 when it has no room). Each cell taken
 * is a credit back to the switch. discard_partial() tells it that the PDU it is reassembling
 * on vpi.vci will never be completed. */
struct an2_port_device {
    uint32_t (*receive)(void *ctx, uint16_t vpi, uint16_t vci, const struct cell_run *run,
                        uint64_t now_ns);
    void (*discard_partial)(void *ctx, uint16_t vpi, uint16_t vci);
    void *ctx;
};

/* 0, -EINVAL (no such port) or -EBUSY (a device is there). */
int an2_switch_port_attach(struct an2_switch *sw, unsigned port, const struct an2_port_device *dev);
void an2_switch_port_detach(struct an2_switch *sw, unsigned port);

/* Credits the device on `port` holds for vpi.vci: cells it may send now; 0 if unrouted. */
uint32_t an2_switch_tx_credit(const struct an2_switch *sw, unsigned port, uint16_t vpi,
                              uint16_t vci);
/* The device on `port` sends run (run->ncells <= its credit) on vpi.vci. */
void an2_switch_send(struct an2_switch *sw, unsigned port, uint16_t vpi, uint16_t vci,
                     const struct cell_run *run, uint64_t now_ns);
/* The sender on `port` abandons the PDU it was sending on vpi.vci: its cells still buffered
 * are discarded, and the receiver's partial reassembly too if it already began. */
void an2_switch_abort_pdu(struct an2_switch *sw, unsigned port, uint16_t vpi, uint16_t vci);


/* Writes cell i of a run (materialised or virtual) with vpi.vci in its header. */
void cell_run_cell(const struct cell_run *run, uint32_t i, uint16_t vpi, uint16_t vci,
                   uint8_t out[AAL5_CELL_BYTES]);
/* Cells i .. i+n-1 of a run, AAL5_CELL_BYTES apart from out on: as n calls of cell_run_cell,
 * with one HEC check and rewrite for each stretch of cells whose headers are alike. */
void cell_run_cells(const struct cell_run *run, uint32_t i, uint32_t n, uint16_t vpi,
                    uint16_t vci, uint8_t *out);

#endif
