/* fp_wait.c — how a task waits while the AN2 route is in use. */
/* Spin, yield with the polling hint, then sleep on the emulated interrupt beside the pvmd
 * socket, which a poll() that does not sleep looks at now and then (three parties share two
 * cores). */
#include "fp_wait.h"

#include "clock.h"
#include "fp_reliable.h"
#include "fp_state.h"

#include <sched.h>
#include <stdlib.h>

#define SPIN_US 0                    /* idle: spin this long (3 parties share 2 cores: yield at once), */
#define YIELD_US 3000                /* then yield up to this long (AN2_YIELD_US), then sleep */
#define RESLEEP_US 50                /* after a wake-up without a message: this long */
#define DAEMON_BUSY_US 10000         /* busy with AN2 traffic: look at the pvmd socket this often */
#define ACK_IDLE_US 50               /* idle this long: acknowledge what came (<= RESLEEP_US) */

/* How long an idle wait yields before it sleeps: $AN2_YIELD_US (read once; at least ACK_IDLE_US,
 * so that what we owe is acknowledged before we sleep; at most a second), else YIELD_US.
 * Shorter leaves more of a shared CPU to tasks that compute; longer answers a message after a
 * pause without the wake-up's cost (docs/waiting.md). */
static long long yield_window_us(void)
{
	static long long us = -1;
	if (us < 0) {
		const char *v = getenv("AN2_YIELD_US");
		char *end = NULL;
		long long n = v && *v ? strtoll(v, &end, 10) : -1;
		us = n >= 0 && n <= 1000000 && end && *end == 0 ? n : YIELD_US;
		if (us < ACK_IDLE_US)
			us = ACK_IDLE_US;
	}
	return us;
}

/* A VC is open or being opened: only then is there AN2 traffic worth spinning for. A task
 * whose peers all use the daemon route (PvmDontRoute, Debian tasks, AN2 off) waits as the
 * daemon route alone does: asleep in poll() on the pvmd socket, which it reads at once. */
static int fastpath_in_use(const struct fp_route *r)
{
	if (r->pending_opens)
		return 1;
	for (uint32_t vc = 0; vc < r->max_vcs; vc++)
		if (r->vc_peer[vc])
			return 1;
	return 0;
}

int fp_wait_others_due(struct route *t, int ready)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep || r->gone || ready || !fastpath_in_use(r))
		return 1;
	/* the pvmd socket costs a system call: while AN2 keeps us busy, read it every
	 * DAEMON_BUSY_US (a wait looks at it with poll(): fp_wait_idle) */
	long long now = lpvm_now_us();
	if (now - r->last_daemon_us < DAEMON_BUSY_US)
		return 0;
	r->last_daemon_us = now;
	return 1;
}

int fp_wait_idle(struct route *t, long long deadline_us, int *look)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep || r->gone || !fastpath_in_use(r))
		return 0;
	long long now = lpvm_now_us();
	if (r->idle_since_us < 0)
		r->idle_since_us = now;
	long long idle = now - r->idle_since_us;
	if (r->acks_owed && idle >= ACK_IDLE_US)
		fp_rel_service(r, 1);   /* about to wait: the peer may wait for our acknowledgement */
	if (idle >= (r->slept ? RESLEEP_US : yield_window_us()) ||
	    (deadline_us >= 0 && now >= deadline_us)) {
		r->idle_since_us = -1;
		fp_wait_over(t);     /* no lease while asleep */
		if (an2_sleep_prepare(r->ep) == 0)
			return 0;                 /* asked for the interrupt: sleep in poll() now */
		an2_sleep_finish(r->ep);
		return 1;
	}
	if (idle >= SPIN_US) {
		/* only a received message ends this wait: a controller sharing our CPU keeps it
		 * rather than take turns with us while it has nothing for us */
		an2_yield(r->ep, true);
		r->hinted = 1;
		now = lpvm_now_us();
	}
	/* waiting for a while (our peer or we descheduled, say, the yield coming back late):
	 * the pvmd socket is due a look, by one poll() without sleeping that looks at an2d's
	 * socket too; only what is ready is read */
	if (now - r->idle_since_us >= DAEMON_CHECK_US &&
	    now - r->last_daemon_us >= DAEMON_CHECK_US) {
		r->last_daemon_us = now;
		*look = 1;
		return 0;
	}
	return 1;
}

void fp_wait_over(struct route *t)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep)
		return;
	if (r->hinted && !r->gone)
		an2_yield_end(r->ep);
	r->hinted = 0;
}

void fp_wait_woke(struct route *t)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep)
		return;
	if (!r->gone)
		an2_sleep_finish(r->ep);
	r->idle_since_us = -1;
	r->last_daemon_us = lpvm_now_us();   /* the poll() looked at the pvmd socket */
	r->slept = 1;
}

void fp_wait_busy(struct route *t)
{
	struct fp_route *r = fp_of(t);
	if (!r->ep)
		return;
	r->idle_since_us = -1;
	r->slept = 0;
}

int fp_wait_poll_ms_max(struct route *t)
{
	struct fp_route *r = fp_of(t);
	/* held exit notices have a deadline that no descriptor announces: look every second;
	 * nor have retransmission timers */
	int ms = r->ep && !r->gone && r->exit_notices_held ? 1000 : -1, rel = fp_rel_poll_ms(r);
	return rel >= 0 && (ms < 0 || rel < ms) ? rel : ms;
}
