/* an2d_loop.c — an2d's event loop: polls the controller, looks at the control socket every
 * ctl_period by the clock (not a system call per iteration), idles adaptively, and once a
 * second does housekeeping (silent clients, idle exit, the control socket still there). */
#include "an2d_loop.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "an2_clock.h"
#include "an2_log.h"
#include "an2d_files.h"
#include "an2d_uplink.h"
#include "driver.h"
#include "otto.h"

#define STALE_DEADLINE_NS 1000000u /* paced work due but no progress for this long: idle */
#define MIN_SLEEP_NS 100000u       /* the shortest sleep */
#define TICK_NS 1000000000u        /* housekeeping period */

/* One pass of the controller and switch; VCs closed with cells in the switch finish once
 * those cells have moved on. True if anything moved. */
static bool poll_hardware(struct an2d_loop *L, uint64_t now)
{
    if (now - L->pulse_ns >= OTTO_PULSE_NS) {
        L->pulse_ns = now;
        if (otto_pulse(L->otto, now, (uint32_t)sched_getcpu()) && L->started_cpus_known)
            sched_setaffinity(0, sizeof L->started_cpus, &L->started_cpus); /* a hint: may fail */
    }
    bool progress = otto_poll(L->otto, now);
    if (L->uplink)
        progress |= an2d_uplink_poll(L->uplink, now);
    if (progress)
        an2_driver_drains_check(L->drv);
    otto_publish_holding(L->otto);
    return progress;
}

/* Out of descriptors: stop listening (a level-triggered listening socket would wake us in a
 * loop) until a client has gone or the next tick; connections wait in the backlog meanwhile. */
static void pause_accepting(struct an2d_loop *L)
{
    static struct an2_log_limit limit;
    struct epoll_event ev = {.events = 0, .data.u64 = AN2D_EV_LISTEN};
    epoll_ctl(L->epoll_fd, EPOLL_CTL_MOD, L->listen_fd, &ev);
    L->accept_paused = true;
    L->clients_at_pause = an2_driver_clients(L->drv);
    an2_log_limited(&limit, "accept: %s: not accepting until a client goes (or for 1 s)",
                     strerror(errno));
}

static void resume_accepting(struct an2d_loop *L)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = AN2D_EV_LISTEN};
    epoll_ctl(L->epoll_fd, EPOLL_CTL_MOD, L->listen_fd, &ev);
    L->accept_paused = false;
}

/* Once a second. False when an2d must stop. */
static bool tick(struct an2d_loop *L, uint64_t now)
{
    L->next_tick = now + TICK_NS;
    an2_driver_tick(L->drv, now);
    if (L->accept_paused)
        resume_accepting(L);
    if (L->files && !an2d_files_socket_present(L->files)) {
        an2_log("control socket %s was removed or replaced: stopping", L->files->sock.path);
        return false;
    }
    bool idle_over = L->idle_exit_ns && now - L->idle_since >= L->idle_exit_ns;
    if (idle_over && an2_driver_accept(L->drv, L->listen_fd) != 0) /* one arriving keeps us */
        pause_accepting(L);
    if (an2_driver_clients(L->drv) > 0) {
        L->idle_since = now;
    } else if (idle_over) {
        an2_log("no client for %llu s: stopping",
                 (unsigned long long)(L->idle_exit_ns / 1000000000u));
        return false;
    }
    return true;
}

/* Handles what epoll reports, waiting up to timeout_ns (0: just look; UINT64_MAX: forever).
 * Returns -1 when an2d must stop, else the number of events (the uplink's only if it carried
 * traffic: a keepalive is no reason to stay awake). */
static int handle_events(struct an2d_loop *L, uint64_t timeout_ns)
{
    struct epoll_event ev[32];
    struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000u),
                          .tv_nsec = (long)(timeout_ns % 1000000000u)};
    int n = epoll_pwait2(L->epoll_fd, ev, 32, timeout_ns == UINT64_MAX ? NULL : &ts, NULL);
    if (n < 0) {
        static struct an2_log_limit limit;
        if (errno != EINTR)
            an2_log_limited(&limit, "epoll: %s", strerror(errno));
        return 0;
    }
    bool keep_going = true;
    int quiet = 0;
    for (int i = 0; i < n; i++) {
        uint64_t tag = ev[i].data.u64;
        if (tag == AN2D_EV_LISTEN) {
            if (an2_driver_accept(L->drv, L->listen_fd) != 0)
                pause_accepting(L);
        } else if (tag == AN2D_EV_SIGNAL) {
            struct signalfd_siginfo si;
            if (read(L->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
                an2_log("signal %u: stopping", si.ssi_signo);
                keep_going = false;
            }
        } else if (tag == AN2D_EV_UPLINK) {
            uint64_t before = L->uplink ? an2d_uplink_traffic(L->uplink) : 0;
            if (L->uplink)
                an2d_uplink_event(L->uplink, an2_now_ns());
            if (!L->uplink || an2d_uplink_traffic(L->uplink) == before)
                quiet++;
        } else if (tag >= AN2_DRIVER_EPOLL_BASE) {
            an2_driver_event(L->drv, tag - AN2_DRIVER_EPOLL_BASE, ev[i].events);
        }
    }
    if (L->accept_paused && an2_driver_clients(L->drv) < L->clients_at_pause)
        resume_accepting(L);
    return keep_going && !an2_driver_stop_requested(L->drv) ? n - quiet : -1;
}

void an2d_loop_run(struct an2d_loop *L)
{
    L->started_cpus_known = sched_getaffinity(0, sizeof L->started_cpus, &L->started_cpus) == 0;
    uint64_t now = an2_now_ns();
    uint64_t next_ctl = now, last_progress = now;
    L->next_tick = now + TICK_NS;
    L->idle_since = now;
    for (;;) {
        /* the clock read afresh: a yield may have kept us off the CPU for long, and input
         * read with a stamp from before it would look older than it is (a link "silent") */
        bool progress = poll_hardware(L, an2_now_ns());
        now = an2_now_ns();
        if (now >= next_ctl) {
            if (handle_events(L, 0) < 0 || (now >= L->next_tick && !tick(L, now)))
                return;
            an2_driver_drains_check(L->drv); /* a close or a departure may have ended one */
            if (L->uplink && now >= an2d_uplink_deadline(L->uplink))
                an2d_uplink_housekeeping(L->uplink, now);
            next_ctl = now + L->ctl_period_ns;
        }
        if (progress) {
            last_progress = now;
            continue;
        }
        uint64_t deadline = otto_next_deadline(L->otto);
        uint64_t idle = now - last_progress;
        if (deadline != UINT64_MAX && deadline < now + L->pace_spin_ns &&
            idle < STALE_DEADLINE_NS) {
            an2_cpu_relax(); /* paced work is due any moment: keep the CPU, the link is on time */
            continue;
        }
        if (idle < L->spin_ns) {
            an2_cpu_relax();
            continue;
        }
        if (idle < L->yield_ns && (deadline == UINT64_MAX || deadline < now + L->yield_ns)) {
            /* a task on our CPU that only polls for what we have not delivered would hand
             * the CPU straight back: keep it while its polling hint says so (otto_hw.h).
             * Not on a fabric: what the task waits for may come over the uplink, and the
             * switch or the other host's an2d that sends it may need this CPU. Nor once idle
             * for hold_ns: what the task waits for then comes from a peer that computes (or
             * sleeps), and a peer on this CPU would wait for us */
            if (!L->uplink && idle < L->hold_ns &&
                otto_hosts_only_poll_on(L->otto, (uint32_t)sched_getcpu(), now))
                an2_cpu_relax();
            else
                an2_yield_cpu(&L->yielder);
            continue;
        }
        /* Sleep: tell every portion first, then look once more (see otto_hw.h). */
        otto_set_asleep(L->otto, true);
        if ((L->uplink && !an2d_uplink_arm(L->uplink)) || poll_hardware(L, an2_now_ns())) {
            otto_set_asleep(L->otto, false);
            now = last_progress = an2_now_ns();
            continue;
        }
        deadline = otto_next_deadline(L->otto);
        bool for_uplink = L->uplink && an2d_uplink_deadline(L->uplink) < deadline;
        if (for_uplink)
            deadline = an2d_uplink_deadline(L->uplink);
        now = an2_now_ns();
        /* a deadline already past that brought no progress is stale: don't spin on it */
        uint64_t timeout = deadline == UINT64_MAX      ? UINT64_MAX
                           : deadline > now + MIN_SLEEP_NS ? deadline - now
                                                           : MIN_SLEEP_NS;
        bool for_tick = L->next_tick <= now || L->next_tick - now < timeout;
        if (for_tick)
            timeout = L->next_tick > now ? L->next_tick - now : 0;
        int events = handle_events(L, timeout);
        an2_driver_drains_check(L->drv);
        if (L->uplink && an2_now_ns() >= an2d_uplink_deadline(L->uplink))
            an2d_uplink_housekeeping(L->uplink, an2_now_ns());
        otto_set_asleep(L->otto, false);
        now = an2_now_ns();
        if (events < 0 || (now >= L->next_tick && !tick(L, now)))
            return;
        next_ctl = now + L->ctl_period_ns;
        /* woken by the tick or the uplink's keepalive alone: nothing to move, so back to
         * sleep without the idle spin and yield (a stalled task or an idle an2d costs
         * nothing) */
        if (events > 0 || !(for_tick || for_uplink))
            last_progress = now;
    }
}
