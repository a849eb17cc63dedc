/* harness.h — a host's side of a portion for otto-emul's tests: rings driven by hand,
 * portions surrounded by canary memory, a fabric of controllers on one switch. */
#ifndef OTTO_TEST_HARNESS_H
#define OTTO_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "an2_switch.h"
#include "otto.h"

#define CANARY_BYTES 65536u
#define CANARY_BYTE 0xA5u

struct host {
    uint8_t *mem;                 /* canary | portion | canary */
    uint8_t *base;
    size_t size;
    struct otto_geometry geo;
    struct otto_portion_hdr *hdr;
    uint8_t *buf;
    uint32_t id;
    uint32_t report_cons;
};

int host_create(struct host *h, uint32_t id, uint32_t max_vcs, uint32_t tx_slots,
                uint32_t rx_slots, uint64_t buf_size);
void host_destroy(struct host *h);
bool host_canaries_intact(const struct host *h);

/* Puts a transmit descriptor on the ring and rings the doorbell; false if the ring is full. */
bool host_send(struct host *h, uint16_t vc, uint64_t cookie, const struct otto_frag *frags,
               unsigned nfrags, uint8_t uu);
/* Writes a raw descriptor as is (for protection tests). */
bool host_send_raw(struct host *h, const struct otto_tx_desc *d);
bool host_post_rx(struct host *h, uint16_t vc, uint64_t cookie, const struct otto_frag *frags,
                  unsigned nfrags);
bool host_post_rx_raw(struct host *h, uint16_t vc, const struct otto_rx_desc *d);
bool host_report(struct host *h, struct otto_report *out);

/* Polls every controller until nothing moves (or max_rounds), at a fake clock advancing
 * by step_ns per round from *now. */
void fabric_run(struct otto **ottos, unsigned n, uint64_t *now, uint64_t step_ns,
                unsigned max_rounds);

#endif
