/* notices_check.c — white-box check that the routes hear of a task or host gone, and only then. */
/* The core's notices (src/notices.c): a pvmd's PvmTaskExit or PvmHostDelete notice that
 * pvm_notify asked for reaches every route's peer_failed once the message is queued and
 * control_flush() runs; the answer to a cancel, a look-alike from a task, a notice nobody asked
 * for, and one that came already do not. The application still unpacks the notice from its
 * start. A route of our own stands in for the real ones. Needs no pvmd. */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "control.h"
#include "lib_state.h"
#include "msg.h"
#include "notices.h"
#include "route.h"
#include "rxqueue.h"

#define PVMD ((int)0x80040000)   /* the pvmd of host 1 */
#define TASK1 0x40001
#define TASK2 0x40002
#define HOST2 ((int)0x80080000)

static int failures;
#define CHECK(c, what) do { if (!(c)) { failures++; fprintf(stderr, "notices_check: FAIL %s\n", what); } } while (0)

/* The stand-in route: records what peer_failed was told, takes no message. */
static int told[16], ntold;

static int fake_peer_failed(struct route *r, int tid)
{
	(void)r;
	if (ntold < 16)
		told[ntold++] = tid;
	return 0;
}

static int fake_filter(struct route *r, struct msg *m)
{
	(void)r;
	(void)m;
	return 0;
}

static int fake_flush(struct route *r)
{
	(void)r;
	return 0;
}

static const struct route_ops fake_ops = {
	.name = "fake", .filter = fake_filter, .peer_failed = fake_peer_failed, .flush = fake_flush,
};
static struct route fake = { .ops = &fake_ops };

/* A message as a route hands it over: from src, one int. */
static struct msg *arrival(int src, int tag, int value)
{
	struct msg *m = msg_new(ENC_XDR);
	if (!m || lpvm_pack_int(m, value))
		return NULL;
	m->src = src;
	m->tag = tag;
	m->ctx = 0;
	m->mode = MODE_NONE;
	return m;
}

/* Delivers a message as a route would, then lets the core flush: how many tids the route heard
 * of, the first in *tid. The message stays queued. */
static int deliver(struct msg *m, int *tid)
{
	ntold = 0;
	rxq_deliver(m);
	control_flush();
	*tid = ntold ? told[0] : 0;
	return ntold;
}

int main(void)
{
	pvm_setopt(PvmAutoErr, 0);
	lpvm.routes[0] = &fake;
	lpvm.nroutes = 1;
	int tid = 0;

	int t1 = TASK1, t2 = TASK2, h2 = HOST2;
	CHECK(deliver(arrival(PVMD, 5, t1), &tid) == 0, "a notice nobody asked for told the routes");

	lpvm_notices_asked(0, 5, 0, &t1, 1);
	CHECK(deliver(arrival(TASK2, 5, t1), &tid) == 0, "a task's look-alike told the routes");
	CHECK(deliver(arrival(PVMD, 6, t1), &tid) == 0, "a notice of another tag told the routes");
	struct msg *m = arrival(PVMD, 5, t1);
	CHECK(deliver(m, &tid) == 1 && tid == t1, "the task's exit did not reach the routes");
	CHECK(m->mode == MODE_NONE, "looking at the notice left it half unpacked");
	int v = 0;
	pvm_setrbuf(m->mid);
	CHECK(pvm_upkint(&v, 1, 1) == 0 && v == t1, "the notice does not unpack from its start");
	pvm_setrbuf(0);
	CHECK(deliver(arrival(PVMD, 5, t1), &tid) == 0, "a second notice for one request told the routes");

	/* asked twice, cancelled once: the first notice answers the cancel, the second is real */
	lpvm_notices_asked(0, 7, 0, &t2, 1);
	lpvm_notices_asked(0, 7, 0, &t2, 1);
	lpvm_notices_asked(1, 7, 0, &t2, 1);
	CHECK(deliver(arrival(PVMD, 7, t2), &tid) == 0, "the answer to a cancel told the routes");
	CHECK(deliver(arrival(PVMD, 7, t2), &tid) == 1 && tid == t2, "the exit after a cancel did not reach the routes");

	/* a cancel for what was never asked expects no answer */
	lpvm_notices_asked(1, 8, 0, &t1, 1);
	lpvm_notices_asked(0, 8, 0, &t1, 1);
	CHECK(deliver(arrival(PVMD, 8, t1), &tid) == 1 && tid == t1, "a stray cancel hid an exit");

	/* a host deleted: the routes hear of its pvmd */
	lpvm_notices_asked(0, 9, 0, &h2, 1);
	CHECK(deliver(arrival(PVMD, 9, h2), &tid) == 1 && tid == h2, "the host's deletion did not reach the routes");

	/* leaving forgets what was asked */
	lpvm_notices_asked(0, 10, 0, &t1, 1);
	lpvm_notices_clear();
	CHECK(deliver(arrival(PVMD, 10, t1), &tid) == 0, "a notice asked before leaving told the routes");

	rxq_clear();
	lpvm.nroutes = 0;
	lpvm.routes[0] = NULL;
	if (failures)
		return 1;
	printf("notices_check: ok\n");
	return 0;
}
