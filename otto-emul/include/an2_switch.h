/* an2_switch.h — the AN2 switch model's interface: ports, VC routing, credits, counters. */
#ifndef AN2_SWITCH_H
#define AN2_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

/* Single-threaded, like otto.h: the thread that polls the controllers makes these calls. */

struct an2_switch_config {
    unsigned nports;            /* >= 1; the host controller of an2d is on port 0 */
    uint32_t vc_credit_cells;   /* per-VC credit window (= buffer cells) on every link */
    double   cells_per_second;  /* per-link rate; 0 = unpaced */
};

struct an2_port_counters {
    uint64_t cells_in, cells_out, credits_granted, stalls, drops;
};

struct an2_vc_switch_counters {
    uint64_t cells_in, cells_out, credits_granted, stalls, drops;
    uint32_t cells_buffered;    /* now, in the switch's buffer for this VC */
};

struct an2_switch *an2_switch_create(const struct an2_switch_config *config);
void an2_switch_destroy(struct an2_switch *sw);

/* Routes cells arriving on in_port with in_vpi.in_vci to out_port as out_vpi.out_vci.
 * 0, or -EINVAL (bad port/VCI) / -EEXIST (already routed) / -ENOMEM. */
int an2_switch_route_add(struct an2_switch *sw, unsigned in_port, uint16_t in_vpi,
                         uint16_t in_vci, unsigned out_port, uint16_t out_vpi, uint16_t out_vci);
/* Removes a route; cells buffered for it are discarded (counted as drops of a closed VC,
 * not of congestion) and its credits are returned. 0 or -ENOENT. */
int an2_switch_route_del(struct an2_switch *sw, unsigned in_port, uint16_t in_vpi,
                         uint16_t in_vci);

/* Sets the buffer (credit window) of every VC coming in from `port`: those routed from now
 * on, and those already there, whose upstream device gets the extra credit. Windows only
 * grow (a smaller value is ignored), so credit limits already granted stay valid; the port's
 * window returns to the switch's when its device detaches. 0, -EINVAL, or -ENOMEM (some
 * routes kept their smaller window). */
int an2_switch_port_set_window(struct an2_switch *sw, unsigned port, uint32_t cells);

/* Paces the switch -> device direction of one port's link at cells_per_second (0: unpaced),
 * instead of the rate of the config. 0 or -EINVAL. */
int an2_switch_port_set_rate(struct an2_switch *sw, unsigned port, double cells_per_second);

/* Moves buffered cells on as pacing and the receivers allow. True if any moved. */
bool an2_switch_poll(struct an2_switch *sw, uint64_t now_ns);
/* When pacing next lets buffered cells move; UINT64_MAX if none is waiting for the clock. */
uint64_t an2_switch_next_deadline(const struct an2_switch *sw);
/* True while cells wait in the switch (for credit, for a receiver). */
bool an2_switch_holds_cells(const struct an2_switch *sw);

int an2_switch_port_counters(const struct an2_switch *sw, unsigned port,
                             struct an2_port_counters *out);
int an2_switch_vc_counters(const struct an2_switch *sw, unsigned in_port, uint16_t in_vpi,
                           uint16_t in_vci, struct an2_vc_switch_counters *out);

#endif
