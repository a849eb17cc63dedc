/* an2switch_loop.c — an2switch's event loop: serves its descriptors, moves cells through the
 * switch and its links, and idles by spinning, then yielding, then sleeping in epoll. */
#include "an2switch_daemon.h"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "an2_clock.h"
#include "an2_link.h"
#include "an2_log.h"
#include "an2_switch.h"
#include "an2_yield.h"

/* Busy (spinning or yielding) with every link polled (in shared memory, through libfabric),
 * the descriptors (control, signals, listeners, handshakes, the links' ends) are looked at
 * this often rather than on every pass: a system call saved per pass. */
#define DESCRIPTORS_BUSY_NS 100000u

/* Cells and signalling that crossed the switch's links so far: what counts as traffic (a
 * keepalive does not keep the switch awake). */
static uint64_t traffic(const struct an2sw_daemon *st)
{
    uint64_t t = 0;
    for (unsigned p = 0; p < st->s.nports; p++)
        if (st->s.links[p])
            t += an2_link_traffic(st->s.links[p]);
    return t;
}

/* Whether every link is one the loop polls (shared memory, libfabric): none needs epoll. */
static bool every_link_polled(const struct an2sw_daemon *st)
{
    for (unsigned p = 0; p < st->s.nports; p++)
        if (st->s.links[p] && !an2_link_polled(st->s.links[p]))
            return false;
    return true;
}

/* Moves cells until nothing moves (bounded). */
static void pump(struct an2sw_daemon *st, uint64_t now)
{
    for (int round = 0; round < 64; round++) {
        bool moved = an2_switch_poll(st->s.sw, now);
        for (unsigned p = 0; p < st->s.nports; p++)
            if (st->s.links[p])
                moved |= an2_link_poll(st->s.links[p], now);
        if (!moved)
            break;
    }
}

static uint64_t next_deadline(const struct an2sw_daemon *st, uint64_t now)
{
    uint64_t t = an2_switch_next_deadline(st->s.sw);
    for (unsigned p = 0; p < st->s.nports; p++)
        if (st->s.links[p]) {
            uint64_t d = an2_link_next_deadline(st->s.links[p]);
            if (d < t)
                t = d;
        }
    for (unsigned i = 0; i < st->o->ntrunks; i++)
        if (st->o->trunks[i].port == -1 && st->o->trunks[i].next_try_ns < t)
            t = st->o->trunks[i].next_try_ns;
    if (st->s.next_advert_ns < t)
        t = st->s.next_advert_ns;
    if (an2sw_drains_deadline(&st->s) < t)
        t = an2sw_drains_deadline(&st->s);
    if (an2sw_handshakes_deadline(st) < t)
        t = an2sw_handshakes_deadline(st);
    if (st->accept_paused_until && st->accept_paused_until < t)
        t = st->accept_paused_until;
    return t < now ? now : t;
}


void an2sw_run(struct an2sw_daemon *st, int sigfd, const int *lfds)
{
    uint64_t last_progress = 0, last_traffic = 0, descriptors_due = 0;
    uint64_t spin_ns = st->o->spin_us * 1000ull, yield_ns = st->o->yield_us * 1000ull;
    struct an2_yielder yielder = {0};
    for (;;) {
        uint64_t now = an2_now_ns();
        uint64_t deadline = next_deadline(st, now);
        int timeout_ms;
        if (now - last_progress < spin_ns) {
            timeout_ms = 0;
        } else if (now - last_progress < yield_ns) {
            an2_yield_cpu(&yielder);
            timeout_ms = 0;
        } else {
            timeout_ms = deadline == UINT64_MAX ? 1000
                         : (int)((deadline - now + 999999) / 1000000);
            /* links in shared memory are woken only if they asked; one with something
             * waiting already keeps us awake */
            for (unsigned p = 0; p < st->s.nports && timeout_ms; p++)
                if (st->s.links[p] && !an2_link_arm(st->s.links[p]))
                    timeout_ms = 0;
        }
        if (timeout_ms > 1000)
            timeout_ms = 1000;
        struct epoll_event ev[64];
        bool look = timeout_ms || now >= descriptors_due || !every_link_polled(st);
        int n = look ? epoll_wait(st->epfd, ev, 64, timeout_ms) : 0;
        now = an2_now_ns();
        if (look)
            descriptors_due = now + DESCRIPTORS_BUSY_NS;
        for (int i = 0; i < n; i++) {
            uint64_t tag = ev[i].data.u64;
            if (tag == EV_SIGNAL) {
                struct signalfd_siginfo si;
                if (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    an2_log("signal %u: stopping", si.ssi_signo);
                    return;
                }
            } else if (tag == EV_CONTROL) {
                an2sw_control_answer(st);
            } else if (tag >= EV_PENDING) {
                an2sw_handshake_event(st, (unsigned)(tag - EV_PENDING), now);
                now = an2_now_ns(); /* a carrier's set-up may have taken long: what the links
                                     * read next must not be stamped from before it (a link
                                     * would look silent for that long at the next look) */
            } else if (tag >= EV_LINK) {
                unsigned port = (unsigned)(tag - EV_LINK);
                if (port < st->s.nports && st->s.links[port])
                    an2_link_service(st->s.links[port], now);
            } else if (tag >= EV_LISTEN) {
                an2sw_links_accept(st, lfds, lfds[tag - EV_LISTEN], now);
                now = an2_now_ns();
            }
        }
        an2sw_drains_tick(&st->s, now); /* before pump: a RELEASE it lets go leaves now */
        pump(st, now);
        uint64_t t = traffic(st);
        if (t != last_traffic) {
            last_traffic = t;
            last_progress = now;
        }
        an2sw_handshakes_tick(st, now);
        an2sw_trunks_connect(st, now);
        now = an2_now_ns(); /* (as after a handshake's event) */
        an2sw_routes_tick(&st->s, now);
        if (st->accept_paused_until && now >= st->accept_paused_until)
            an2sw_listen_pause(st, lfds, false, now);
        for (unsigned p = 0; p < st->s.nports; p++) {
            struct an2_link *l = st->s.links[p];
            if (!l)
                continue;
            if (now >= an2_link_next_deadline(l))
                an2_link_service(l, now);
            if (!an2_link_is_up(l) && an2_link_why(l)[0]) {
                an2sw_link_remove(st, p);
                continue;
            }
            if (an2_link_is_up(l) && !st->announced[p])
                an2sw_link_announce(st, p);
            if (an2_link_is_up(l) && !st->o->window_given)
                an2sw_window_update(st, p);
            bool want = an2_link_wants_write(l);
            if (want != st->writing[p]) {
                struct epoll_event e = {.events = EPOLLIN |
                                                  (want ? an2_link_write_events(l) : 0u),
                                        .data.u64 = EV_LINK + p};
                epoll_ctl(st->epfd, EPOLL_CTL_MOD, an2_link_fd(l), &e);
                st->writing[p] = want;
            }
        }
    }
}
