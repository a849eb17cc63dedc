/* an2switch_handshakes.c — links that have not yet proven themselves (an2_link_auth.h): each
 * connection, accepted or a trunk we opened, authenticates in a slot of a fixed table before
 * it gets a port; a stranger costs the switch a slot for at most AN2_AUTH_WAIT_MS and one
 * rate-limited log line. */
#include "an2switch_daemon.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>

#include "an2_carrier.h"
#include "an2_clock.h"
#include "an2_link_auth.h"
#include "an2_log.h"

static void slot_end(struct an2sw_daemon *st, struct an2sw_pending *p, bool close_carrier)
{
    struct an2_carrier *c = an2_handshake_carrier(p->hs);
    epoll_ctl(st->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    if (close_carrier)
        an2_carrier_close(c);
    an2_handshake_free(p->hs);
    p->hs = NULL;
    if (p->trunk >= 0 && st->o->trunks[p->trunk].port == AN2SW_TRUNK_AUTHENTICATING)
        st->o->trunks[p->trunk].port = -1;
}

static void refuse(struct an2sw_daemon *st, struct an2sw_pending *p, const char *why)
{
    static struct an2_log_limit limit;
    st->links_refused++;
    if (p->trunk >= 0)
        an2_log_limited(&limit, "trunk %s refused: %s", st->o->trunks[p->trunk].spec, why);
    else
        an2_log_limited(&limit, "link from %s refused: %s", an2_handshake_carrier(p->hs)->peer,
                        why);
    slot_end(st, p, true);
}

void an2sw_handshake_begin(struct an2sw_daemon *st, struct an2_carrier *carrier, int trunk,
                           uint64_t now)
{
    unsigned free_slot = AN2SW_MAX_PENDING, oldest = 0;
    for (unsigned i = 0; i < AN2SW_MAX_PENDING; i++) {
        if (!st->pending[i].hs) {
            free_slot = i;
            break;
        }
        if (st->pending[i].started_ns < st->pending[oldest].started_ns)
            oldest = i;
    }
    if (free_slot == AN2SW_MAX_PENDING) { /* a flood: the oldest stranger makes room */
        refuse(st, &st->pending[oldest], "the table of links authenticating is full (it "
                                         "was the oldest)");
        free_slot = oldest;
    }
    struct an2sw_pending *p = &st->pending[free_slot];
    *p = (struct an2sw_pending){.trunk = trunk, .started_ns = now};
    p->hs = an2_handshake_start(carrier, st->auth, trunk >= 0, now);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_PENDING + free_slot};
    if (!p->hs || epoll_ctl(st->epfd, EPOLL_CTL_ADD, carrier->fd, &ev) != 0) {
        an2_log("link from %s: cannot authenticate it: %s", carrier->peer, strerror(errno));
        if (p->hs)
            an2_handshake_free(p->hs);
        p->hs = NULL;
        an2_carrier_close(carrier);
        return;
    }
    if (trunk >= 0)
        st->o->trunks[trunk].port = AN2SW_TRUNK_AUTHENTICATING;
    an2sw_handshake_event(st, free_slot, now); /* the other end may have spoken already */
}

void an2sw_handshake_event(struct an2sw_daemon *st, unsigned slot, uint64_t now)
{
    if (slot >= AN2SW_MAX_PENDING || !st->pending[slot].hs)
        return;
    struct an2sw_pending *p = &st->pending[slot];
    enum an2_handshake_state s = an2_handshake_step(p->hs, now);
    if (s == AN2_HANDSHAKE_FAILED) {
        refuse(st, p, an2_handshake_why(p->hs));
    } else if (s == AN2_HANDSHAKE_DONE) {
        struct an2_carrier *c = an2_handshake_carrier(p->hs);
        int trunk = p->trunk;
        slot_end(st, p, false);
        an2sw_link_add(st, c, trunk, an2_now_ns()); /* (the step may have taken long) */
    }
}

void an2sw_handshakes_tick(struct an2sw_daemon *st, uint64_t now)
{
    for (unsigned i = 0; i < AN2SW_MAX_PENDING; i++)
        if (st->pending[i].hs && now >= an2_handshake_deadline(st->pending[i].hs))
            an2sw_handshake_event(st, i, now);
}

uint64_t an2sw_handshakes_deadline(const struct an2sw_daemon *st)
{
    uint64_t t = UINT64_MAX;
    for (unsigned i = 0; i < AN2SW_MAX_PENDING; i++)
        if (st->pending[i].hs && an2_handshake_deadline(st->pending[i].hs) < t)
            t = an2_handshake_deadline(st->pending[i].hs);
    return t;
}

void an2sw_handshakes_free(struct an2sw_daemon *st)
{
    for (unsigned i = 0; i < AN2SW_MAX_PENDING; i++)
        if (st->pending[i].hs)
            slot_end(st, &st->pending[i], true);
}
