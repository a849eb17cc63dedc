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
    uint64_t sig_refused;       /* SETUP, LOOKUP or FOUND from a port that spoke for a host
                                 * not its own */
    struct an2sw_route routes[256];   /* by switch id, learned from ROUTE messages */
    uint64_t lookups_seen[64];  /* (asker << 32 | its number) of recent LOOKUPs, so that a
                                 * LOOKUP that comes round a loop of trunks goes no further */
    unsigned lookups_next;
    uint64_t next_advert_ns;
    struct an2sw_call *draining;   /* calls whose RELEASE waits for their buffered cells */
    uint32_t ndraining;
    uint64_t releases_held;        /* RELEASEs that waited here for buffered cells */
    uint64_t releases_given_up;    /* of which went on with cells that could not leave */
};

/* One VC through the switch: the two (port, VCI) ends it joins. */
struct an2sw_call {
    unsigned port[2];
    uint16_t vci[2];
    /* A RELEASE from end drain_from, held until the cells that end sent have left */
    bool draining;
    uint8_t drain_from;
    struct an2_sig_msg drain_release;   /* to forward to the other end, its VCI set */
    uint64_t drain_moved_ns;            /* when one of those cells last left */
    uint64_t drain_cells_out;           /* the route's cells out then */
    struct an2sw_call *next_draining;
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

/* an2switch_calls.c, for an2switch_drain.c */
void an2sw_send_sig(struct an2sw *s, unsigned port, const struct an2_sig_msg *msg);
/* Removes the call's routes and link VCs, and the call (not from the draining list). */
void an2sw_call_free(struct an2sw *s, struct an2sw_call *c);

/* an2switch_drain.c: a RELEASE waits at this switch for the cells sent before it.
 * A normal RELEASE from end `from` of c (release: the message to forward, its VCI set): true
 * if it is held because cells from that end are still buffered here (the routes toward that
 * end go at once); false: nothing buffered, release the call now. */
bool an2sw_release_hold(struct an2sw *s, struct an2sw_call *c, int from,
                        const struct an2_sig_msg *release, uint64_t now_ns);
/* Every loop pass: held RELEASEs whose cells have all left go on; those whose cells have not
 * moved for AN2_FIBER_DRAIN_STALL_MS go on anyway (the cells dropped, counted, logged). */
void an2sw_drains_tick(struct an2sw *s, uint64_t now_ns);
/* When the oldest stalled drain gives up; UINT64_MAX if none is held. */
uint64_t an2sw_drains_deadline(const struct an2sw *s);
/* Ends c's drain at once: `forward` sends the held RELEASE on (cells still buffered are
 * dropped), else it is dropped too (the other end released or its link went). Frees c. */
void an2sw_drain_end(struct an2sw *s, struct an2sw_call *c, bool forward);

#endif
