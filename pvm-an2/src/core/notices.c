/* notices.c — which incoming messages are the pvmd's word that a task or a host has gone. */
/* The pvmd sends what pvm_notify asked for (PvmTaskExit, PvmHostDelete) as an ordinary
 * message: its tag and context, one int, the tid it is about. It sends the same message when
 * the request is cancelled, although the task or host lives on. So the core keeps what it
 * asked for, and how many of the coming notices answer a cancel: a message is a notice only if
 * it matches a request, and says that its tid has gone only if it answers no cancel. The
 * routes hear of each such tid (route_ops.peer_failed) once the application gets the notice,
 * from control_flush(), where no route is being read. */
#include "notices.h"

#include <stdlib.h>
#include <pvm3.h>

#include "codec.h"
#include "errors.h"
#include "msg.h"
#include "pvm_ids.h"
#include "route_set.h"

/* Notices on their way for one (tag, ctx, tid): requested and not yet arrived. */
struct asked {
	struct asked *next;
	int tag, ctx, tid;
	int pending;   /* notices to come */
	int cancels;   /* how many of them answer a cancel */
};

static struct asked *asked;
/* Tasks and hosts (pvmd tids) gone, for the routes to hear of in control_flush(). */
static int *gone, ngone, gone_cap;

static struct asked **find(int tag, int ctx, int tid)
{
	struct asked **ap = &asked;
	while (*ap && ((*ap)->tag != tag || (*ap)->ctx != ctx || (*ap)->tid != tid))
		ap = &(*ap)->next;
	return ap;
}

void lpvm_notices_asked(int cancel, int tag, int ctx, const int *tids, int count)
{
	for (int i = 0; i < count; i++) {
		struct asked **ap = find(tag, ctx, tids[i]);
		if (cancel) {
			/* the pvmd answers a cancel with one notice still to come, if any */
			if (*ap && (*ap)->pending > (*ap)->cancels)
				(*ap)->cancels++;
			continue;
		}
		if (!*ap) {
			struct asked *a = calloc(1, sizeof *a);
			if (!a) {   /* its notice will not be recognised: the routes learn less */
				lpvm_log("out of memory: the notice about t%x will not reach the routes",
				         (unsigned)tids[i]);
				continue;
			}
			*a = (struct asked){ .next = asked, .tag = tag, .ctx = ctx, .tid = tids[i] };
			asked = a;
			ap = &asked;
		}
		(*ap)->pending++;
	}
}

int lpvm_notice_gone(struct msg *m)
{
	if (!asked || TID_IS_TASK(m->src) || msg_length(m) != 4)
		return 0;   /* notices come from a pvmd and carry one int */
	int mode = m->mode, tid = 0;
	struct frag *rfrag = m->rfrag;
	size_t rpos = m->rpos;
	msg_rewind(m);
	int bad = lpvm_unpack_int(m, &tid);
	m->mode = mode;   /* as it came: the application unpacks it from the start */
	m->rfrag = rfrag;
	m->rpos = rpos;
	if (bad)
		return 0;
	struct asked **ap = find(m->tag, m->ctx, tid);
	struct asked *a = *ap;
	if (!a)
		return 0;
	int answer = a->cancels > 0;
	a->cancels -= answer;
	if (--a->pending == 0) {
		*ap = a->next;
		free(a);
	}
	return answer ? 0 : tid;
}

void lpvm_notice_delivered(int tid)
{
	if (ngone == gone_cap) {
		int cap = gone_cap ? gone_cap * 2 : 8;
		int *g = realloc(gone, sizeof *g * (size_t)cap);
		if (!g) {
			lpvm_log("out of memory: the routes do not hear that t%x has gone", (unsigned)tid);
			return;
		}
		gone = g;
		gone_cap = cap;
	}
	gone[ngone++] = tid;
}

void lpvm_notices_flush(void)
{
	/* first in, first told; a route's peer_failed may deliver more notices meanwhile */
	for (int i = 0; i < ngone; i++)
		lpvm_routes_peer_failed(gone[i]);
	ngone = 0;
}

void lpvm_notices_clear(void)
{
	while (asked) {
		struct asked *a = asked;
		asked = a->next;
		free(a);
	}
	ngone = 0;
}
