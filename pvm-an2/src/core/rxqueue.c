/* rxqueue.c — the one receive queue all routes deliver into, and the wait loop that feeds it. */
#include "rxqueue.h"

#include <errno.h>
#include <poll.h>
#include <pvm3.h>

#include "clock.h"
#include "control.h"
#include "lib_state.h"
#include "mhf.h"
#include "msg.h"
#include "notices.h"
#include "pvm_ids.h"
#include "route.h"
#include "route_set.h"

/* The queue: a ring through this sentinel, oldest first (queue.next). */
static struct msg queue = { .prev = &queue, .next = &queue };

void rxq_deliver(struct msg *m)
{
	m->gone_tid = lpvm_notice_gone(m);   /* before a route's filter may hold the notice */
	if (!lpvm_routes_filter(m))
		rxq_enqueue(m);
}

void rxq_enqueue(struct msg *m)
{
	if (control_handle(m))
		return;
	m->next = &queue;
	m->prev = queue.prev;
	queue.prev->next = m;
	queue.prev = m;
}

int lpvm_default_match(int mid, int tid, int tag)
{
	struct msg *m = msg_lookup(mid);
	if (!m)
		return PvmNoSuchBuf;
	return (tid == -1 || tid == m->src) && (tag == -1 || tag == m->tag)
	       && (lpvm.ctx == -1 || lpvm.ctx == m->ctx);
}

struct msg *rxq_take_match(int tid, int tag, int remove)
{
	mhf_run_pending();   /* handlers first: their messages came before what is queued now */
	int (*match)(int, int, int) = lpvm.recv_match ? lpvm.recv_match : lpvm_default_match;
	struct msg *best = NULL;
	int best_score = 0;
	for (struct msg *m = queue.next; m != &queue; m = m->next) {
		if (m->ctx == SYSCTX_TM)
			continue;   /* replies of the pvmd are for lpvm_daemon_call only */
		int score = match(m->mid, tid, tag);
		if (score < 0)
			return NULL;
		if (score > best_score) {
			best_score = score;
			best = m;
			if (score == 1)
				break;
		}
	}
	if (best && remove)
		msg_unlink(best);
	return best;
}

struct msg *rxq_take_system(int from_pvmd, int tag, int ctx, int wid)
{
	(void)wid;   /* the pvmd echoes it; stock only matches source and tag */
	for (struct msg *m = queue.next; m != &queue; m = m->next)
		if (m->tag == tag && m->ctx == ctx && (!from_pvmd || TID_IS_PVMD(m->src)
		                                        || m->src == TIDPVMD)) {
			msg_unlink(m);
			return m;
		}
	return NULL;
}

void rxq_clear(void)
{
	while (queue.next != &queue)
		msg_free(queue.next);   /* (unlinks it) */
}

static long long now_ms(void)
{
	return lpvm_now_us() / 1000;
}

/* Whether every other route lets r's progress (a system call) be made now. */
static int due(const struct route *r)
{
	for (int i = 0; i < lpvm.nroutes; i++) {
		struct route *other = lpvm.routes[i];
		if (other != r && !other->ops->others_due(other, r->ready != 0))
			return 0;
	}
	return 1;
}

/* Runs one wait hook on every route. */
static void each_route(void (*hook)(struct route *))
{
	for (int i = 0; i < lpvm.nroutes; i++)
		hook(lpvm.routes[i]);
}

static void woke(struct route *r) { r->ops->woke(r); }
static void busy(struct route *r) { r->ops->busy(r); }
static void wait_over(struct route *r) { r->ops->wait_over(r); }

/* Lets every route move what it has; returns messages delivered or < 0. */
static int progress_all(void)
{
	int got = 0;
	for (int i = 0; i < lpvm.nroutes; i++) {
		struct route *t = lpvm.routes[i];
		if (!due(t))
			continue;   /* a route spins: one that costs a system call only now and then */
		int cc = t->ops->progress(t);
		t->ready = 0;
		if (cc < 0)
			return cc;
		got += cc;
	}
	return got;
}

static int pump(const struct timeval *tmo)
{
	long long deadline = -1;
	if (tmo) {
		long long ms = (long long)tmo->tv_sec * 1000 + (tmo->tv_usec + 999) / 1000;
		deadline = now_ms() + (ms < 0 ? 0 : ms);
	}
	for (;;) {
		int got = progress_all();
		int fl = control_flush();
		if (got != 0) {
			each_route(busy);
			return got;   /* messages first; a broken route shows again on the next call */
		}
		if (fl < 0)
			return fl;
		int wait_ms = -1;
		if (deadline >= 0) {
			long long left = deadline - now_ms();
			if (left <= 0)
				return 0;
			wait_ms = left > 0x7fffffff ? 0x7fffffff : (int)left;
		}
		int look = 0, again = 0;
		for (int i = 0; i < lpvm.nroutes && !again; i++)
			again = lpvm.routes[i]->ops->idle(lpvm.routes[i],
			                                  deadline < 0 ? -1 : deadline * 1000, &look);
		if (again)
			continue;     /* a route spins or yields before anyone sleeps */
		struct pollfd fds[MAX_ROUTES * 2];
		int nfds = 0, first[MAX_ROUTES + 1];
		for (int i = 0; i < lpvm.nroutes; i++) {
			struct route *t = lpvm.routes[i];
			first[i] = nfds;
			nfds += t->ops->pollfds(t, fds + nfds, MAX_ROUTES * 2 - nfds);
			int max_ms = t->ops->poll_ms_max(t);
			if (max_ms >= 0 && (wait_ms < 0 || max_ms < wait_ms))
				wait_ms = max_ms;
		}
		first[lpvm.nroutes] = nfds;
		if (nfds == 0 && wait_ms < 0)
			return PvmSysErr;   /* nothing could ever wake us */
		int n = poll(fds, (nfds_t)nfds, look ? 0 : wait_ms);
		if (!look)
			each_route(woke);
		if (n < 0 && errno != EINTR)
			return PvmSysErr;
		for (int i = 0; n > 0 && i < lpvm.nroutes; i++)   /* progress() reads what is ready */
			for (int j = first[i]; j < first[i + 1]; j++)
				if (fds[j].revents)
					lpvm.routes[i]->ready |= 1u << (j - first[i]);
	}
}

int lpvm_pump(const struct timeval *tmo)
{
	if (!lpvm.nroutes)
		return PvmSysErr;
	lpvm.sends_since_pump = 0;
	int cc = pump(tmo);
	each_route(wait_over);
	return cc;
}
