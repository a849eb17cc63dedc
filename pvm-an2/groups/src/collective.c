/* Broadcast, reduce, scatter and gather over a group. The message pattern is the stock
 * library's, so that its tasks and ours can share a group: reduce fans in to each host's
 * coordinator (named by pvmgs) and then to the root; scatter and gather go root <-> each
 * member in instance order. Data messages use the group context, never the user's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatypes.h"
#include "gpvm.h"
#include "group_trace.h"

int grp_error(const char *fn, int cc)
{
	pvm_errno = cc;
	int level = pvm_getopt(PvmAutoErr);
	if (level > 0) {
		char what[96];
		snprintf(what, sizeof what, "%s()", fn);
		pvm_perror(what);
		fflush(stderr);
		if (level == 3)
			abort();
		if (level == 2) {
			pvm_setopt(PvmAutoErr, 1);
			pvm_exit();
			exit(cc);
		}
	}
	return cc;
}

/* The user's buffers and context, put aside while a collective call runs. */
struct saved_state {
	int sbuf, rbuf, ctx;
};

static void save_state(struct saved_state *s)
{
	s->rbuf = pvm_setrbuf(0);
	s->sbuf = pvm_setsbuf(0);
	s->ctx = pvm_setcontext(GS_CONTEXT);
}

static void restore_state(const struct saved_state *s)
{
	int ours = pvm_setrbuf(s->rbuf > 0 ? s->rbuf : 0);
	if (ours > 0)
		pvm_freebuf(ours);
	ours = pvm_setsbuf(s->sbuf > 0 ? s->sbuf : 0);
	if (ours > 0)
		pvm_freebuf(ours);
	if (s->ctx >= 0)
		pvm_setcontext(s->ctx);
}

static int send_items(int tid, int tag, int type, void *p, int n)
{
	int cc = pvm_initsend(PvmDataDefault);
	if (cc >= 0)
		cc = grp_pack(type, p, n);
	if (cc >= 0)
		cc = pvm_send(tid, tag);
	return cc < 0 ? cc : 0;
}

static int recv_items(int tid, int tag, int type, void *p, int n)
{
	int cc = pvm_recv(tid, tag);
	if (cc >= 0)
		cc = grp_unpack(type, p, n);
	return cc < 0 ? cc : 0;
}

int pvm_bcast(char *group, int msgtag)
{
	int top = grp_trace_begin(TEV_BCAST, group, TEV_DID_MC, &msgtag);
	int me = pvm_mytid();
	int *tids = NULL, n = 0;
	int cc = me < 0 ? me : grp_tidlist(group, 0, &tids, &n);
	if (cc == 0) {
		for (int i = 0; i < n; i++) {
			if (tids[i] == me) {
				tids[i] = tids[--n];
				break;
			}
		}
		/* the user's send buffer, in the user's context; no one else -> PvmNoInst */
		cc = n == 0 ? PvmNoInst : pvm_mcast(tids, n, msgtag);
	}
	grp_trace_end_list(top, TEV_BCAST, TEV_DID_CC, cc, tids, cc < 0 ? 0 : n);
	free(tids);
	if (cc < 0)
		return pvm_errno = cc;
	return 0;
}

/* Combines one received contribution into data. */
static int combine_from(int tid, int tag, void (*func)(int *, void *, void *, int *, int *),
                        int type, void *data, void *work, int count)
{
	int cc = recv_items(tid, tag, type, work, count);
	if (cc < 0)
		return cc;
	func(&type, data, work, &count, &cc);
	return cc < 0 ? cc : 0;
}

static int reduce_steps(void (*func)(int *, void *, void *, int *, int *), void *data, int count,
                        int type, int tag, const char *group, int rootinst)
{
	if (!func || !data || count <= 0)
		return PvmBadParam;
	int me = pvm_mytid();
	if (me < 0)
		return me;
	int cc = grp_getinst(group, me);   /* the caller must be a member */
	if (cc < 0)
		return cc;
	int root = grp_gettid(group, rootinst);
	if (root < 0)
		return root;
	int size = grp_type_size(type);
	if (size < 0)
		return size;
	int coordinator = -1, on_host = 0, nhosts = 0;
	cc = grp_hostinfo(group, pvm_tidtohost(me), &coordinator, &on_host, &nhosts);
	if (cc < 0)
		return cc;
	void *work = malloc((size_t)count * (size_t)size + 1);
	if (!work)
		return PvmNoMem;
	if (me == coordinator) {
		for (int i = 1; i < on_host && cc == 0; i++)
			cc = combine_from(-1, tag, func, type, data, work, count);
	} else {
		cc = send_items(coordinator, tag, type, data, count);
	}
	if (cc == 0 && me == coordinator && me != root)
		cc = send_items(root, tag, type, data, count);
	if (cc == 0 && me == root) {
		if (me != coordinator)
			cc = recv_items(coordinator, tag, type, data, count);
		for (int i = 1; i < nhosts && cc == 0; i++)
			cc = combine_from(-1, tag, func, type, data, work, count);
	}
	free(work);
	return cc;
}

int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data, int count,
               int datatype, int msgtag, char *group, int rootinst)
{
	int top = grp_trace_begin(TEV_REDUCE, group, TEV_DID_MC, &msgtag);
	struct saved_state s;
	save_state(&s);
	int cc = reduce_steps(func, data, count, datatype, msgtag, group, rootinst);
	restore_state(&s);
	grp_trace_end(top, TEV_REDUCE, TEV_DID_CC, cc < 0 ? cc : 0);
	return cc < 0 ? grp_error("pvm_reduce", cc) : 0;
}

/* For scatter and gather: the element size, the root's tid and the caller's instance in
 * group. 0, or a negative PVM error. */
static int roles(int type, const char *group, int rootinst, int *size, int *root, int *inst)
{
	*size = grp_type_size(type);
	if (*size < 0)
		return *size;
	*root = grp_gettid(group, rootinst);
	if (*root < 0)
		return *root;
	int me = pvm_mytid();
	*inst = me < 0 ? me : grp_getinst(group, me);
	return *inst < 0 ? *inst : 0;
}

static int scatter_steps(char *result, char *data, int count, int type, int tag,
                         const char *group, int rootinst)
{
	if (!result || count <= 0)
		return PvmBadParam;
	int size, root, inst;
	int cc = roles(type, group, rootinst, &size, &root, &inst);
	if (cc < 0)
		return cc;
	if (inst != rootinst)
		return recv_items(root, tag, type, result, count);
	if (!data)
		return PvmBadParam;
	int *tids = NULL, n = 0;
	cc = grp_tidlist(group, 1, &tids, &n);
	size_t chunk = (size_t)size * (size_t)count;
	for (int i = 0; i < n && cc == 0; i++) {
		if (i == inst)
			memcpy(result, data + (size_t)i * chunk, chunk);
		else
			cc = send_items(tids[i], tag, type, data + (size_t)i * chunk, count);
	}
	free(tids);
	return cc;
}

int pvm_scatter(void *result, void *data, int count, int datatype, int msgtag, char *group,
                int rootinst)
{
	int top = grp_trace_begin(TEV_SCATTER, group, TEV_DID_MC, &msgtag);
	struct saved_state s;
	save_state(&s);
	int cc = scatter_steps(result, data, count, datatype, msgtag, group, rootinst);
	restore_state(&s);
	grp_trace_end(top, TEV_SCATTER, TEV_DID_CC, cc < 0 ? cc : 0);
	return cc < 0 ? grp_error("pvm_scatter", cc) : 0;
}

static int gather_steps(char *result, char *data, int count, int type, int tag,
                        const char *group, int rootinst)
{
	if (!data || count <= 0)
		return PvmBadParam;
	int size, root, inst;
	int cc = roles(type, group, rootinst, &size, &root, &inst);
	if (cc < 0)
		return cc;
	if (inst != rootinst)
		return send_items(root, tag, type, data, count);
	if (!result)
		return PvmBadParam;
	int *tids = NULL, n = 0;
	cc = grp_tidlist(group, 1, &tids, &n);
	size_t chunk = (size_t)size * (size_t)count;
	for (int i = 0; i < n && cc == 0; i++) {
		if (i == inst)
			memcpy(result + (size_t)i * chunk, data, chunk);
		else
			cc = recv_items(tids[i], tag, type, result + (size_t)i * chunk, count);
	}
	free(tids);
	return cc;
}

int pvm_gather(void *result, void *data, int count, int datatype, int msgtag, char *group,
               int rootinst)
{
	int top = grp_trace_begin(TEV_GATHER, group, TEV_DID_MC, &msgtag);
	struct saved_state s;
	save_state(&s);
	int cc = gather_steps(result, data, count, datatype, msgtag, group, rootinst);
	restore_state(&s);
	grp_trace_end(top, TEV_GATHER, TEV_DID_CC, cc < 0 ? cc : 0);
	return cc < 0 ? grp_error("pvm_gather", cc) : 0;
}
