/* Joining, leaving and asking about groups: the calls answered by pvmgs (or, for a frozen
 * group, by the local cache). */
#include <stdlib.h>

#include "gpvm.h"
#include "group_trace.h"

/* A request whose reply starts with one int; for queries (with_state) a state, and a frozen
 * group's map, follow an answer that is not an error. Returns the int or an error code. */
static int query_int(const char *group, int request, const int *arg, int with_state)
{
	struct gs_call call;
	int value = 0;
	int cc = gs_call_begin(&call, group, request, arg);
	if (cc == 0)
		cc = pvm_upkint(&value, 1, 1);
	if (cc == 0 && value >= 0 && with_state)
		cc = gs_unpack_state();
	gs_call_end(&call);
	return cc < 0 ? cc : value;
}

static int set_errno(int cc)
{
	if (cc < 0)
		pvm_errno = cc;
	return cc;
}

int pvm_joingroup(char *group)
{
	int top = grp_trace_begin(TEV_JOINGROUP, group, 0, NULL);
	int gid = query_int(group, GS_JOIN, NULL, 0);
	grp_trace_end(top, TEV_JOINGROUP, TEV_DID_CC, gid);
	return set_errno(gid);
}

int pvm_lvgroup(char *group)
{
	int top = grp_trace_begin(TEV_LVGROUP, group, 0, NULL);
	if (group && *group)
		frozen_forget(group);
	int cc = query_int(group, GS_LEAVE, NULL, 0);
	grp_trace_end(top, TEV_LVGROUP, TEV_DID_CC, cc);
	return set_errno(cc);
}

int grp_getinst(const char *group, int tid)
{
	struct frozen_group *g = group ? frozen_find(group) : NULL;
	for (int i = 0; g && i < g->maxntids; i++)
		if (g->tids[i] == tid)
			return i;
	return query_int(group, GS_GETINST, &tid, 1);
}

int grp_gettid(const char *group, int inst)
{
	struct frozen_group *g = group ? frozen_find(group) : NULL;
	if (g && inst >= 0 && inst < g->maxntids && g->tids[inst] != GS_NO_TID)
		return g->tids[inst];
	return query_int(group, GS_GETTID, &inst, 1);
}

int pvm_getinst(char *group, int tid)
{
	int top = grp_trace_begin(TEV_GETINST, group, TEV_DID_GT, &tid);
	int inst = grp_getinst(group, tid);
	grp_trace_end(top, TEV_GETINST, TEV_DID_GI, inst);
	return set_errno(inst);
}

int pvm_gettid(char *group, int inst)
{
	int top = grp_trace_begin(TEV_GETTID, group, TEV_DID_GI, &inst);
	int tid = grp_gettid(group, inst);
	grp_trace_end(top, TEV_GETTID, TEV_DID_GT, tid);
	return set_errno(tid);
}

int pvm_gsize(char *group)
{
	int top = grp_trace_begin(TEV_GSIZE, group, 0, NULL);
	struct frozen_group *g = group ? frozen_find(group) : NULL;
	int size = g ? g->ntids : query_int(group, GS_GSIZE, NULL, 1);
	grp_trace_end(top, TEV_GSIZE, TEV_DID_GS, size);
	return g ? size : set_errno(size);
}

int pvm_barrier(char *group, int count)
{
	int top = grp_trace_begin(TEV_BARRIER, group, TEV_DID_GBC, &count);
	int cc = query_int(group, GS_BARRIER, &count, 0);
	cc = cc > 0 ? 0 : cc;
	grp_trace_end(top, TEV_BARRIER, TEV_DID_CC, cc);
	return set_errno(cc);
}

/* Returns the group's size once every one of `size` members has called it, as stock does. */
int pvm_freezegroup(char *group, int size)
{
	return set_errno(query_int(group, GS_STATICGROUP, &size, 1));
}

/* Asks pvmgs to print its state on its output (the pvmd log); no reply. */
void pvm_gsdump(void)
{
	gs_send_only(GS_DUMP);
}

int grp_hostinfo(const char *group, int host, int *coordinator, int *members_on_host, int *nhosts)
{
	struct frozen_group *g = group ? frozen_find(group) : NULL;
	for (int i = 0; g && i < g->nhosts; i++) {
		if (pvm_tidtohost(g->coordinators[i]) == host) {
			*coordinator = g->coordinators[i];
			*members_on_host = g->members_on_host[i];
			*nhosts = g->nhosts;
			return 0;
		}
	}
	struct gs_call call;
	int cc = gs_call_begin(&call, group, GS_HOSTCHAR, &host);
	if (cc == 0)
		cc = pvm_upkint(nhosts, 1, 1);
	if (cc == 0)
		cc = pvm_upkint(members_on_host, 1, 1);
	if (cc == 0)
		cc = pvm_upkint(coordinator, 1, 1);
	if (cc == 0)
		cc = gs_unpack_state();
	gs_call_end(&call);
	return cc;
}

int pvm_grphostinfo(char *group, int host, int *coordinator, int *members_on_host, int *nhosts)
{
	return set_errno(grp_hostinfo(group, host, coordinator, members_on_host, nhosts));
}

/* The vectors stay valid until the next call, as documented for the stock library. */
static int *host_coordinators, *host_members;
static int host_room;

int pvm_grpvhostinfo(char *group, int **coordinators, int **members_on_host, int *nhosts)
{
	struct frozen_group *g = group ? frozen_find(group) : NULL;
	if (g) {
		*coordinators = g->coordinators;
		*members_on_host = g->members_on_host;
		*nhosts = g->nhosts;
		return 0;
	}
	struct gs_call call;
	int n = 0;
	int cc = gs_call_begin(&call, group, GS_HOSTCHARV, NULL);
	if (cc == 0)
		cc = pvm_upkint(&n, 1, 1);
	if (cc == 0 && (n < 0 || n > (1 << 22)))
		cc = PvmBadMsg;
	if (cc == 0 && n > host_room) {
		int *c = realloc(host_coordinators, (size_t)n * sizeof *c);
		if (c)
			host_coordinators = c;
		int *m = realloc(host_members, (size_t)n * sizeof *m);
		if (m)
			host_members = m;
		if (c && m)
			host_room = n;
		else
			cc = PvmNoMem;
	}
	if (cc == 0 && n > 0)
		cc = pvm_upkint(host_members, n, 1);
	if (cc == 0 && n > 0)
		cc = pvm_upkint(host_coordinators, n, 1);
	if (cc == 0)
		cc = gs_unpack_state();
	gs_call_end(&call);
	if (cc == 0) {
		*coordinators = host_coordinators;
		*members_on_host = host_members;
		*nhosts = n;
	}
	return set_errno(cc);
}

int grp_tidlist(const char *group, int no_holes, int **tids, int *ntids)
{
	*tids = NULL;
	*ntids = 0;
	struct frozen_group *g = group ? frozen_find(group) : NULL;
	if (g) {
		if (!(*tids = malloc(((size_t)g->ntids + 1) * sizeof **tids)))
			return PvmNoMem;
		for (int i = 0; i < g->maxntids && *ntids < g->ntids; i++) {
			if (g->tids[i] != GS_NO_TID)
				(*tids)[(*ntids)++] = g->tids[i];
			else if (no_holes)
				break;
		}
		if (*ntids == g->ntids && *ntids > 0)
			return 0;
		free(*tids);
		*tids = NULL;
		*ntids = 0;
		return PvmNoInst;
	}
	struct gs_call call;
	int n = 0;
	int cc = gs_call_begin(&call, group, no_holes ? GS_TIDLIST : GS_BCAST, NULL);
	if (cc == 0)
		cc = pvm_upkint(&n, 1, 1);
	if (cc == 0 && n < 0)
		cc = n;
	else if (cc == 0 && n == 0)
		cc = PvmNoInst;
	else if (cc == 0 && n > (1 << 22))
		cc = PvmBadMsg;
	if (cc == 0 && !(*tids = malloc((size_t)n * sizeof **tids)))
		cc = PvmNoMem;
	if (cc == 0)
		cc = pvm_upkint(*tids, n, 1);
	if (cc == 0)
		cc = gs_unpack_state();
	gs_call_end(&call);
	if (cc < 0) {
		free(*tids);
		*tids = NULL;
		return cc;
	}
	*ntids = n;
	return 0;
}
