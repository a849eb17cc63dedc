/* an2switch.h — the standalone AN2 switch's state, shared by its program (an2switch_main.c)
 * and its signalling (an2switch_calls.c). */
#ifndef AN2SWITCH_H
#define AN2SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "an2_fiber.h"
#include "vc_map.h"

struct an2_switch;
struct an2_link;

/* How to reach another switch: through which port, how many trunks away, last heard. */
struct an2sw_route {
    int port;                   /* -1: unknown */
    uint8_t hops;
    uint64_t heard_ns;
};

struct an2sw {
    struct an2_switch *sw;
    uint32_t id;                /* 1..255: host addresses behind us are (id << 8) | port */
    unsigned nports;
    struct an2_link **links;    /* by port; NULL: free */
    struct vc_map calls;        /* (port << 16 | vci) -> struct an2sw_call */
    uint32_t ncalls;
    uint64_t sig_dropped;       /* signalling messages not forwarded (queue full, no route) */
    struct an2sw_route routes[256];   /* by switch id, learned from ROUTE messages */
    uint64_t lookups_seen[64];  /* (asker << 32 | its number) of recent LOOKUPs, so that a
                                 * LOOKUP that comes round a loop of trunks goes no further */
    unsigned lookups_next;
    uint64_t next_advert_ns;
};

/* One VC through the switch: the two (port, VCI) ends it joins. */
struct an2sw_call {
    unsigned port[2];
    uint16_t vci[2];
};

/* A signalling message from the link on `port` (the link's on_sig). */
void an2sw_on_sig(struct an2sw *s, unsigned port, const struct an2_sig_msg *msg,
                  uint64_t now_ns);
/* The link on port has gone: every VC through it is released at its other end, with
 * cause LINK_DOWN. Call before destroying the link. */
void an2sw_port_down(struct an2sw *s, unsigned port);
/* Every second: tells the switches on its trunks which switches it reaches, and forgets
 * routes not heard for three seconds. */
void an2sw_routes_tick(struct an2sw *s, uint64_t now_ns);
/* Frees every call (the switch is stopping). */
void an2sw_calls_free(struct an2sw *s);

#endif
