/* an2switch.h — the standalone AN2 switch's state, shared by its program (an2switch_main.c)
 * and its signalling (an2switch_calls.c). */
#ifndef AN2SWITCH_H
#define AN2SWITCH_H

#include <stdint.h>

#include "an2_fiber.h"
#include "vc_map.h"

struct an2_switch;
struct an2_link;

struct an2sw {
    struct an2_switch *sw;
    uint32_t id;                /* 1..255: host addresses behind us are (id << 8) | port */
    unsigned nports;
    struct an2_link **links;    /* by port; NULL: free */
    struct vc_map calls;        /* (port << 16 | vci) -> struct an2sw_call */
    uint32_t ncalls;
    uint64_t sig_dropped;       /* signalling messages not forwarded (queue full, no route) */
};

/* One VC through the switch: the two (port, VCI) ends it joins. */
struct an2sw_call {
    unsigned port[2];
    uint16_t vci[2];
};

/* A signalling message from the link on `port` (the link's on_sig). */
void an2sw_on_sig(struct an2sw *s, unsigned port, const struct an2_sig_msg *msg);
/* The link on port has gone: every VC through it is released at its other end, with
 * cause LINK_DOWN. Call before destroying the link. */
void an2sw_port_down(struct an2sw *s, unsigned port);
/* Frees every call (the switch is stopping). */
void an2sw_calls_free(struct an2sw *s);

#endif
