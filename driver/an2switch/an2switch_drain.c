/* an2switch_drain.c — a normal RELEASE waits at the switch until the cells its end sent
 * before it have left the switch, so the far end receives them all before it learns of the
 * release; a drain that does not move for AN2_FIBER_DRAIN_STALL_MS goes on without them. */
#include <stdio.h>

#include "an2_log.h"
#include "an2_switch.h"
#include "an2switch.h"

#define STALL_NS ((uint64_t)AN2_FIBER_DRAIN_STALL_MS * 1000000u)

/* The buffered cells and cells out of the route from the releasing end; false if it is gone. */
static bool drain_state(const struct an2sw *s, const struct an2sw_call *c,
                        struct an2_vc_switch_counters *out)
{
    int from = c->drain_from;
    return an2_switch_vc_counters(s->sw, c->port[from], 0, c->vci[from], out) == 0;
}

bool an2sw_release_hold(struct an2sw *s, struct an2sw_call *c, int from,
                        const struct an2_sig_msg *release, uint64_t now_ns)
{
    struct an2_vc_switch_counters vc;
    if (c->draining ||
        an2_switch_vc_counters(s->sw, c->port[from], 0, c->vci[from], &vc) != 0 ||
        vc.cells_buffered == 0)
        return false;
    int to = !from;
    /* the releasing end takes nothing more: cells toward it go (counted as drops) */
    an2_switch_route_del(s->sw, c->port[to], 0, c->vci[to]);
    c->draining = true;
    c->drain_from = (uint8_t)from;
    c->drain_release = *release;
    c->drain_moved_ns = now_ns;
    c->drain_cells_out = vc.cells_out;
    c->next_draining = s->draining;
    s->draining = c;
    s->ndraining++;
    s->releases_held++;
    return true;
}

static void unlink_draining(struct an2sw *s, struct an2sw_call *c)
{
    /* bounded: the list holds ndraining calls, each at most once */
    for (struct an2sw_call **p = &s->draining; *p; p = &(*p)->next_draining)
        if (*p == c) {
            *p = c->next_draining;
            s->ndraining--;
            return;
        }
}

void an2sw_drain_end(struct an2sw *s, struct an2sw_call *c, bool forward)
{
    unlink_draining(s, c);
    int to = !c->drain_from;
    unsigned out = c->port[to];
    struct an2_sig_msg release = c->drain_release;
    an2sw_call_free(s, c);
    if (forward)
        an2sw_send_sig(s, out, &release);
}

void an2sw_drains_tick(struct an2sw *s, uint64_t now_ns)
{
    struct an2sw_call *c = s->draining;
    /* bounded by ndraining: each call is looked at once, the next taken before it is freed */
    while (c) {
        struct an2sw_call *next = c->next_draining;
        struct an2_vc_switch_counters vc = {0};
        bool alive = drain_state(s, c, &vc);
        if (!alive || vc.cells_buffered == 0) {
            an2sw_drain_end(s, c, true);
        } else if (vc.cells_out != c->drain_cells_out) {
            c->drain_cells_out = vc.cells_out;
            c->drain_moved_ns = now_ns;
        } else if (now_ns > c->drain_moved_ns && now_ns - c->drain_moved_ns >= STALL_NS) {
            static struct an2_log_limit limit;
            int from = c->drain_from;
            an2_log_limited(&limit,
                             "port %u VCI %u: RELEASE held with %u cells buffered that did not "
                             "move for %u ms (the receiver stalled): released, cells dropped",
                             c->port[from], c->vci[from], vc.cells_buffered,
                             AN2_FIBER_DRAIN_STALL_MS);
            s->releases_given_up++;
            an2sw_drain_end(s, c, true);
        }
        c = next;
    }
}

uint64_t an2sw_drains_deadline(const struct an2sw *s)
{
    uint64_t t = UINT64_MAX;
    for (const struct an2sw_call *c = s->draining; c; c = c->next_draining)
        if (c->drain_moved_ns + STALL_NS < t)
            t = c->drain_moved_ns + STALL_NS;
    return t;
}
