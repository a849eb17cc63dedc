/* Message handlers (pvm_addmhf/pvm_delmhf's table): incoming messages matching a handler go to it
 * instead of the receive queue. The table keeps stock's layout and numbering (handler ids
 * with a LIFO free list, the task-control handlers in the first slots of every connection),
 * because programs print it with pvmdisplaymhfinfo and rely on the ids they get. */
#include "mhf.h"

#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>

#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"
#include "trace.h"

struct handler {
	int mhid;            /* the id given to the caller */
	int src, tag, ctx;   /* what it matches; -1 is a wildcard */
	int (*user)(int);    /* a program's handler, run later at a safe point ... */
	void (*internal)(struct msg *);   /* ... or the library's own, run at once */
	int system;          /* a task-control tag control.c handles */
};

/* active[0..nactive) are the live handlers, newest last; ids[mhid] says where an id's handler
 * sits in active[] (>= nactive: free) or, for a free id, the next free id (-1 ends). */
struct id_slot {
	int next_free;
	int index;
};

static struct handler *active;
static struct id_slot *ids;
static int nactive, nids, free_head = -1;
static int table_tid = -1;       /* the connection the system entries belong to */

/* Messages claimed by a program's handler, run by mhf_run_pending() outside any route. */
struct pending {
	struct pending *next;
	struct msg *m;
	int (*f)(int);
	int traced;   /* its invocation was traced: the handler's calls are top-level calls */
};
static struct pending *pend_head, *pend_tail;

static int matches(const struct handler *h, int src, int tag, int ctx)
{
	return (h->tag == -1 || h->tag == tag) && (h->ctx == -1 || h->ctx == ctx)
	       && (h->src == -1 || h->src == src);
}

/* Overlap in both directions: a new handler may not share any message with an old one. */
static int overlaps(const struct handler *h, int src, int tag, int ctx)
{
	return (h->tag == -1 || tag == -1 || h->tag == tag) && (h->ctx == -1 || ctx == -1
	        || h->ctx == ctx) && (h->src == -1 || src == -1 || h->src == src);
}

static int add(struct handler h)
{
	for (int i = nactive - 1; i >= 0; i--)
		if (overlaps(&active[i], h.src, h.tag, h.ctx))
			return PvmExists;
	if (nids == nactive) {   /* every id is in use: one more */
		struct handler *a = realloc(active, sizeof *a * (size_t)(nids + 1));
		if (a)
			active = a;
		struct id_slot *d = a ? realloc(ids, sizeof *d * (size_t)(nids + 1)) : NULL;
		if (!d)
			return PvmNoMem;
		ids = d;
		ids[nids] = (struct id_slot){ .next_free = nids, .index = nids };
		h.mhid = nids++;
	} else {                  /* the most recently freed id, whose slot is next in active[] */
		h.mhid = free_head;
		free_head = ids[h.mhid].next_free;
		ids[h.mhid].next_free = h.mhid;
	}
	active[ids[h.mhid].index] = h;
	nactive++;
	return h.mhid;
}

static int delete(int mhid)
{
	if (mhid < 0)
		return PvmBadParam;
	if (mhid >= nids || ids[mhid].index >= nactive)
		return PvmNotFound;
	int hole = ids[mhid].index, last = --nactive;
	if (hole != last) {   /* the newest handler fills the hole; the freed id gets its slot */
		active[hole] = active[last];
		ids[active[hole].mhid].index = hole;
		ids[mhid].index = last;
	}
	ids[mhid].next_free = free_head;
	free_head = mhid;
	return 0;
}

/* The task-control handlers stock installs when a task joins, in its order. */
static void install_system(void)
{
	static const int tags[] = { TC_CONREQ, TC_CONACK, TC_TASKEXIT, TC_NOOP, TC_SETTRACE,
	                            TC_SETTRCBUF, TC_SETTRCOPT, TC_SETTMASK, TC_SIBLINGS };
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		add((struct handler){ .src = -1, .tag = tags[i], .ctx = SYSCTX_TC, .system = 1 });
}

void mhf_sync(void)
{
	if (table_tid != -1 && table_tid != lpvm.mytid) {
		/* the task left (pvm_exit): every handler goes, newest id first, as stock */
		for (int i = nids - 1; i >= 0; i--)
			delete(i);
		mhf_reset();
		table_tid = -1;
	}
	if (table_tid == -1 && lpvm.mytid != -1) {
		table_tid = lpvm.mytid;
		install_system();
	}
}

void mhf_at_exit(void)
{
	/* as stock's pvm_exit: every id is deleted, newest first, while we are still the task;
	 * ids already free say so (PvmAutoErr reports them as stock does) */
	mhf_sync();   /* the task-control entries exist from joining on, as in stock */
	for (int i = nids - 1; i >= 0; i--)
		if (delete(i) == PvmNotFound)
			lpvm_error("pvm_delmhf", PvmNotFound);
	mhf_reset();
	table_tid = -1;
}

int mhf_add_internal(int src, int tag, int ctx, void (*f)(struct msg *))
{
	mhf_sync();
	return add((struct handler){ .src = src, .tag = tag, .ctx = ctx, .internal = f });
}

int mhf_add_program(int src, int tag, int ctx, int (*f)(int))
{
	mhf_sync();
	return add((struct handler){ .src = src, .tag = tag, .ctx = ctx, .user = f });
}

int mhf_delete(int mhid)
{
	mhf_sync();
	return delete(mhid);
}

int mhf_ids(void)
{
	return nids;
}

int mhf_claim(struct msg *m)
{
	if (m->ctx == SYSCTX_TM && (TID_IS_PVMD(m->src) || m->src == TIDPVMD))
		return 0;   /* the pvmd's replies belong to the call waiting for them */
	mhf_sync();
	for (int i = nactive - 1; i >= 0; i--) {
		const struct handler *h = &active[i];
		if (!matches(h, m->src, m->tag, m->ctx))
			continue;
		int traced = trc_armed() && trc_mhf_invoke(h->src, h->tag, h->ctx, m);
		if (h->system) {
			lpvm_trc.system_handler_traced = traced;
			return 0;
		}
		m->mode = MODE_NONE;
		msg_rewind(m);
		if (h->internal) {   /* the library's own: it only reads m, no route is touched */
			h->internal(m);
			msg_free(m);
			return 1;
		}
		struct pending *p = malloc(sizeof *p);
		if (!p) {
			lpvm_log("out of memory: message tag %d from t%x for a handler dropped", m->tag,
			         (unsigned)m->src);
			msg_free(m);
			return 1;
		}
		*p = (struct pending){ .m = m, .f = h->user, .traced = traced };
		if (pend_tail)
			pend_tail->next = p;
		else
			pend_head = p;
		pend_tail = p;
		return 1;
	}
	return 0;
}

/* As stock: the handler runs with no send buffer, the message as receive buffer and the
 * message's context; afterwards whatever buffers it left active are freed and the caller's
 * buffers and context come back. */
static void invoke(struct pending *p)
{
	if (p->traced && lpvm_trc.run_traced_handler) {   /* as stock: its calls are traced, */
		struct trc_top top = trc_push_top();            /* even inside a traced call */
		lpvm_trc.run_traced_handler(p->f, p->m->mid, p->m->ctx);
		trc_pop_top(top);
		return;
	}
	struct msg *saved_s = lpvm.sbuf, *saved_r = lpvm.rbuf;
	int saved_ctx = lpvm.ctx;
	lpvm.sbuf = NULL;
	lpvm.rbuf = p->m;
	lpvm.ctx = p->m->ctx;
	int mid = p->m->mid;
	p->f(mid);
	lpvm.ctx = saved_ctx;
	struct msg *left_s = lpvm.sbuf, *left_r = lpvm.rbuf;
	/* the caller's buffers, unless the handler freed them */
	lpvm.sbuf = saved_s && msg_lookup(saved_s->mid) == saved_s ? saved_s : NULL;
	lpvm.rbuf = saved_r && msg_lookup(saved_r->mid) == saved_r ? saved_r : NULL;
	if (left_s != lpvm.sbuf)
		msg_free(left_s);
	if (left_r != lpvm.rbuf && left_r != left_s)
		msg_free(left_r);
}

void mhf_run_pending(void)
{
	if (lpvm.exiting)
		return;
	while (pend_head) {   /* a handler may receive, and so run the next ones itself */
		struct pending *p = pend_head;
		pend_head = p->next;
		if (!pend_head)
			pend_tail = NULL;
		invoke(p);
		free(p);
	}
}

void mhf_reset(void)
{
	while (pend_head) {
		struct pending *p = pend_head;
		pend_head = p->next;
		msg_free(p->m);
		free(p);
	}
	pend_tail = NULL;
}

/* Stock's debugging display of the table, kept in its format (mhf_server prints it). */
int pvmdisplaymhfinfo(char *who, char *msg, int tid);
int pvmdisplaymhfinfo(char *who, char *msg, int tid)
{
	mhf_sync();
	const char *me = "pvmdisplaymhfinfo";
	printf("\n%s t%x: Display Message Handler Information: ", who, (unsigned)tid);
	printf("ndhandles = %d\tnhandles = %d\tfl_dhandles = %d", nids, nactive, free_head);
	printf("\n%s: free list.  head <-", me);
	for (int i = free_head, n = 0; i != -1 && n <= nids; i = ids[i].next_free, n++)
		printf(" %d", i);
	printf(" -< tail");
	printf("\n%s t%x: %s\n", who, (unsigned)tid, msg);
	for (int i = 0; i < nids; i++) {
		/* a free slot shows what its last handler left there, as stock's does */
		printf("%s t%x: dhandles[%2d].mhid = %2d  .handle = %2d     ", who, (unsigned)tid, i,
		       ids[i].next_free, ids[i].index);
		printf("handles[%2d].mhid = %2d  .header.src = t%-8x  ", i, active[i].mhid,
		       (unsigned)active[i].src);
		printf(".header.ctx = %8d  .header.tag= %8d\n", active[i].ctx, active[i].tag);
	}
	printf("\n\n");
	fflush(stdout);
	return 0;
}
