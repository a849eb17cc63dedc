/* an2_data.c — the fast path: descriptors into the rings, the doorbell, reports out of the
 * report ring, and adaptive waiting (spin, yield, then sleep on the emulated interrupt).
 * No system call here unless the controller sleeps (kick) or the task does (futex). */
#include "an2_internal.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The doorbell, then the kick if the controller said it sleeps (otto_hw.h's Dekker pair). */
static void ring_doorbell(an2_ep *ep)
{
    otto_shared_count(&ep->hdr->doorbell);
    /* the doorbell handshake: our doorbell before our read of controller_asleep */
    otto_handshake_fence();
    if (otto_shared_get(&ep->hdr->controller_asleep)) {
        uint64_t one = 1;
        ssize_t n = write(ep->kick_fd, &one, sizeof one);
        (void)n; /* EAGAIN means a kick is pending already */
    }
}

static int check_frags(const an2_ep *ep, const struct an2_frag *frags, unsigned nfrags,
                       uint64_t *total)
{
    if (nfrags > OTTO_MAX_FRAGS || (nfrags && !frags))
        return -EINVAL;
    uint64_t sum = 0;
    for (unsigned i = 0; i < nfrags; i++) {
        if ((uint64_t)frags[i].offset + frags[i].length > ep->geo.buf_size)
            return -EFAULT;
        sum += frags[i].length;
    }
    *total = sum;
    return 0;
}

static bool vc_open(const an2_ep *ep, uint16_t vc)
{
    return vc < ep->geo.max_vcs && ep->vcs[vc].peer_id != 0;
}

int an2_post_recv(an2_ep *ep, uint16_t vc, const struct an2_frag *frags, unsigned nfrags,
                  uint64_t cookie)
{
    uint64_t total;
    int rc = check_frags(ep, frags, nfrags, &total);
    if (rc != 0)
        return rc;
    if (nfrags == 0)
        return -EINVAL;
    if (!vc_open(ep, vc))
        return -EBADF;
    struct otto_ring_index *ix = &ep->rx_index[vc];
    uint32_t prod = ep->rx_prod[vc];
    if (otto_ring_used(prod, otto_ring_peek(&ix->cons)) >= ep->geo.rx_slots)
        return -EAGAIN;
    size_t slot = (size_t)vc * ep->geo.rx_slots + otto_ring_slot(prod, ep->geo.rx_slots);
    struct otto_rx_desc *d = &ep->rx[slot];
    d->cookie = cookie;
    d->nfrags = (uint8_t)nfrags;
    memcpy(d->frag, frags, nfrags * sizeof *frags);
    ep->rx_prod[vc] = prod + 1;
    otto_ring_publish(&ix->prod, prod + 1);
    ring_doorbell(ep);
    return 0;
}

unsigned an2_tx_space(const an2_ep *ep)
{
    return ep->geo.tx_slots - otto_ring_used(ep->tx_prod, otto_ring_peek(&ep->hdr->tx.cons));
}

int an2_send(an2_ep *ep, uint16_t vc, const struct an2_frag *frags, unsigned nfrags,
             uint8_t uu, uint64_t cookie)
{
    uint64_t total;
    int rc = check_frags(ep, frags, nfrags, &total);
    if (rc != 0)
        return rc;
    if (total > OTTO_MAX_PDU)
        return -EMSGSIZE;
    if (!vc_open(ep, vc))
        return -EBADF;
    if (an2_tx_space(ep) == 0)
        return -EAGAIN;
    uint32_t prod = ep->tx_prod;
    struct otto_tx_desc *d = &ep->tx[otto_ring_slot(prod, ep->geo.tx_slots)];
    d->cookie = cookie;
    d->vc = vc;
    d->nfrags = (uint8_t)nfrags;
    d->uu = uu;
    d->cpi = 0;
    memcpy(d->frag, frags, nfrags * sizeof *frags);
    ep->tx_prod = prod + 1;
    otto_ring_publish(&ep->hdr->tx.prod, prod + 1);
    ring_doorbell(ep);
    return 0;
}

int an2_poll(an2_ep *ep, struct an2_report *out, int max)
{
    if (max <= 0 || !out)
        return -EINVAL;
    uint32_t cons = ep->report_cons;
    uint32_t avail = otto_ring_used(otto_ring_peek(&ep->hdr->report.prod), cons);
    if (avail > ep->geo.report_slots)
        return -EIO; /* the controller broke the ring's rule */
    int n = 0;
    for (; n < max && (uint32_t)n < avail; n++) {
        uint32_t slot = otto_ring_slot(cons + (uint32_t)n, ep->geo.report_slots);
        const struct otto_report *r = &ep->reports[slot];
        out[n] = (struct an2_report){.cookie = r->cookie, .length = r->length, .vc = r->vc,
                                     .kind = r->kind, .status = r->status, .uu = r->uu};
    }
    if (n > 0) {
        ep->report_cons = cons + (uint32_t)n;
        otto_ring_publish(&ep->hdr->report.cons, ep->report_cons);
        /* the report-slots handshake with a controller that a full ring held back: our cons
         * before our read of its request, or it sees the freed slots */
        otto_handshake_fence();
        if (otto_shared_get(&ep->hdr->controller_wants_reports))
            ring_doorbell(ep);
    }
    return n;
}

#define POLL_LEASE_NS 50000u /* the longest a controller keeps a shared CPU on our word */

#define NAP_NS 20000u /* a yield that does not reach the controller becomes a sleep this long */

/* The controller's pulse if it is awake and has not run for OTTO_STARVED_NS (it waits for a
 * CPU), else 0. Hints, read relaxed and never trusted: a wrong one costs a nap, a yield or a
 * move. */
static uint64_t controller_starved_pulse(const an2_ep *ep, uint64_t now)
{
    uint64_t awake = otto_shared_get64(&ep->hdr->controller_awake_ns);
    bool starved = awake != 0 && now > awake && now - awake >= OTTO_STARVED_NS &&
                   !otto_shared_get(&ep->hdr->controller_asleep);
    return starved ? awake : 0;
}

/* Moves a controller that waits for another CPU to ours (otto_hw.h's move hint): there a
 * task computes and never leaves the CPU before the scheduler's tick, while the scheduler
 * counts ours, where we only wait, as busy and leaves the controller where it is (a
 * Mandelbrot worker on one host got 10 of 512 rows so, where it usually gets 200). One try
 * per pulse, and only to a CPU an2d may run on. True if an2d is now ours to yield to. */
static bool controller_moved_here(an2_ep *ep, uint64_t pulse, uint32_t cpu, uint64_t now)
{
    if (pulse == ep->move_pulse) /* tried on this pulse: an2d has not run since */
        return ep->moved_to_cpu == cpu;
    if (!ep->controller_pid || now - pulse < OTTO_MOVE_NS || now - pulse > OTTO_MOVE_MAX_NS ||
        cpu >= CPU_SETSIZE)
        return false;
    ep->move_pulse = pulse;
    ep->moved_to_cpu = UINT32_MAX;
    cpu_set_t allowed, here;
    if (sched_getaffinity(ep->controller_pid, sizeof allowed, &allowed) != 0 ||
        !CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) == 1)
        return false; /* pinned where it is (by its user, or by a move not yet undone) */
    CPU_ZERO(&here);
    CPU_SET(cpu, &here);
    if (sched_setaffinity(ep->controller_pid, sizeof here, &here) != 0)
        return false;
    ep->moved_to_cpu = cpu;
    otto_shared_set(&ep->hdr->host_moved_controller, 1); /* after the move: a hint */
    return true;
}

void an2_yield(an2_ep *ep, bool rx_only)
{
    uint32_t cpu = (uint32_t)sched_getcpu();
    uint64_t now = an2_now_ns();
    /* a hint the controller reads without trusting (otto_hw.h) */
    otto_shared_set(&ep->hdr->host_polls_cpu, cpu);
    otto_shared_set(&ep->hdr->host_polls_for, rx_only ? OTTO_POLLS_RX : OTTO_POLLS_ANY);
    otto_shared_set64(&ep->hdr->host_polls_until_ns, now + POLL_LEASE_NS);
    uint64_t pulse = controller_starved_pulse(ep, now);
    bool here = pulse && (otto_shared_get(&ep->hdr->controller_cpu) == cpu ||
                          controller_moved_here(ep, pulse, cpu, now));
    /* Within the controller's scheduling group a yield reaches it, and a nap would only
     * wake later and preempt it (a 32-task all-to-all on one host moved 80,000 messages a
     * second so, 210,000 yielding); from another group only a nap lets it have our CPU. */
    if (here && ep->controller_apart) {
        struct timespec nap = {.tv_sec = 0, .tv_nsec = NAP_NS};
        ep->naps++;
        clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
    } else {
        an2_yield_cpu(&ep->yielder);
    }
}

bool an2_controller_waits_here(const an2_ep *ep)
{
    /* relaxed hints (otto_hw.h's pulse): a stale one costs one needless yield or one missed */
    return !otto_shared_get(&ep->hdr->controller_asleep) &&
           otto_shared_get64(&ep->hdr->controller_awake_ns) != 0 &&
           otto_shared_get(&ep->hdr->controller_cpu) == (uint32_t)sched_getcpu();
}

bool an2_controller_holds_cells(const an2_ep *ep)
{
    /* relaxed: a hint (otto_hw.h) */
    return otto_shared_get(&ep->hdr->controller_holds_cells) != 0;
}

void an2_yield_end(an2_ep *ep)
{
    /* a controller that still sees the lease keeps the CPU 50 us at most */
    otto_shared_set64(&ep->hdr->host_polls_until_ns, 0);
}

int an2_sleep_prepare(an2_ep *ep)
{
    /* the interrupt handshake: our request before we look at the ring once more (the
     * controller fences between publishing a report and reading the request) */
    otto_shared_set(&ep->hdr->host_wants_irq, 1);
    otto_handshake_fence();
    return (int)otto_ring_used(otto_ring_peek(&ep->hdr->report.prod), ep->report_cons);
}

void an2_sleep_finish(an2_ep *ep)
{
    /* a stale 1 costs one spurious interrupt */
    otto_shared_set(&ep->hdr->host_wants_irq, 0);
    uint64_t count;
    ssize_t n = read(ep->irq_fd, &count, sizeof count); /* EAGAIN: no interrupt came */
    (void)n;
}

#define DEATH_CHECK_NS 100000000u /* a sleeping an2_wait looks for an2d's death this often */

/* Whether an2d closed our control connection (it died or stopped). One poll(). */
static bool an2d_gone(const an2_ep *ep)
{
    struct pollfd p = {.fd = ep->ctl_fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* A tuning knob from the environment, read once; cache starts at -1. */
static uint64_t env_ns(_Atomic long *cache, const char *name, long dflt_us)
{
    /* relaxed: every thread computes the same value; a race only repeats the getenv */
    long v = atomic_load_explicit(cache, memory_order_relaxed);
    if (v < 0) {
        const char *s = getenv(name);
        v = s && *s ? strtol(s, NULL, 10) : dflt_us;
        if (v < 0)
            v = dflt_us;
        atomic_store_explicit(cache, v, memory_order_relaxed);
    }
    return (uint64_t)v * 1000u;
}

/* an2_wait once nothing was there at the first look. */
static int wait_reports(an2_ep *ep, struct an2_report *out, int max, int timeout_ms)
{
    int n;
    uint64_t start = an2_now_ns();
    uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : start + (uint64_t)timeout_ms * 1000000u;
    static _Atomic long spin_us = -1, yield_us = -1;
    uint64_t spin_ns = env_ns(&spin_us, "AN2_SPIN_US", 0);
    uint64_t yield_ns = env_ns(&yield_us, "AN2_YIELD_US", 2000);
    for (;;) {
        n = an2_poll(ep, out, max);
        if (n != 0)
            return n;
        uint64_t now = an2_now_ns();
        if (now >= deadline)
            return 0;
        if (now - start < spin_ns) {
            an2_cpu_relax();
            continue;
        }
        if (now - start < yield_ns) {
            an2_yield(ep, false);
            continue;
        }
        /* Sleep (otto_hw.h's interrupt protocol). The count is read before asking, so an
         * interrupt raised after our last look changes it and the futex does not sleep. */
        uint32_t seen = otto_shared_count_get(&ep->hdr->irq_count);
        /* the interrupt handshake: our request before our recheck of the ring */
        otto_shared_set(&ep->hdr->host_wants_irq, 1);
        otto_handshake_fence();
        n = an2_poll(ep, out, max);
        bool woken = false;
        if (n == 0) {
            /* in slices, so that an an2d that died is noticed (its interrupt never comes) */
            uint64_t left = deadline == UINT64_MAX ? UINT64_MAX : deadline - now;
            uint64_t slice = left < DEATH_CHECK_NS ? left : DEATH_CHECK_NS;
            struct timespec ts = {.tv_sec = (time_t)(slice / 1000000000u),
                                  .tv_nsec = (long)(slice % 1000000000u)};
            woken = syscall(SYS_futex, &ep->hdr->irq_count, FUTEX_WAIT, seen, &ts, NULL, 0) == 0;
            n = an2_poll(ep, out, max);
        }
        an2_sleep_finish(ep); /* also drains an2_irq_fd, so that a poll() later is not fooled */
        if (n != 0)
            return n;
        if (!woken && an2d_gone(ep)) {
            an2_set_detail("an2d has gone: no more reports will come");
            return -ECONNRESET;
        }
        start = an2_now_ns(); /* woken without a report: spin a little again */
    }
}

int an2_wait(an2_ep *ep, struct an2_report *out, int max, int timeout_ms)
{
    int n = an2_poll(ep, out, max);
    if (n != 0 || timeout_ms == 0)
        return n;
    n = wait_reports(ep, out, max, timeout_ms);
    an2_yield_end(ep);
    return n;
}
