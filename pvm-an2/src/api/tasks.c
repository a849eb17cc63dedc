/* Requests to the pvmd about tasks: spawn, signals, kill, status, the task list, notify,
 * siblings. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "notices.h"
#include "pvm_ids.h"
#include "requests.h"
#include "route_set.h"
#include "rxqueue.h"
#include "send.h"
#include "trace.h"

/* Non-negative entries first, in order; stock's exchange order for the rest. */
static int move_errors_last(int n, int *a)
{
	int w = 0;
	for (int r = 0; r < n; r++) {
		if (a[w] < 0) {
			if (a[r] >= 0) {
				int t = a[w];
				a[w] = a[r];
				a[r] = t;
				w++;
			}
		} else {
			w++;
		}
	}
	return w;
}

static int pack_spawn_env(struct msg *m)
{
	/* PVM_EXPORT names variables the children inherit, stock's rule */
	const char *xp = getenv("PVM_EXPORT");
	char **vars = NULL;
	int nvars = 0, cc = 0;
	if (xp) {
		char *copy = strdup(xp);
		vars = calloc(strlen(xp) + 2, sizeof *vars);
		if (!copy || !vars) {
			free(copy);
			free(vars);
			return PvmNoMem;
		}
		vars[nvars++] = (char *)xp - strlen("PVM_EXPORT=");   /* the environ entry */
		for (char *save = NULL, *name = strtok_r(copy, ":", &save); name;
		     name = strtok_r(NULL, ":", &save)) {
			char *v = getenv(name);
			if (v)
				vars[nvars++] = v - strlen(name) - 1;
		}
		free(copy);
	}
	char buf[64];
	cc = lpvm_pack_int(m, nvars + 4);
	snprintf(buf, sizeof buf, "PVMTMASK=%s", lpvm_trc.child_mask);
	if (!cc)
		cc = lpvm_pack_str(m, buf);
	snprintf(buf, sizeof buf, "PVMTRCBUF=%d", lpvm.trc_buf);
	if (!cc)
		cc = lpvm_pack_str(m, buf);
	snprintf(buf, sizeof buf, "PVMTRCOPT=%d", lpvm.trc_opt);
	if (!cc)
		cc = lpvm_pack_str(m, buf);
	snprintf(buf, sizeof buf, "PVMCTX=0x%x", (unsigned)lpvm.ctx);
	if (!cc)
		cc = lpvm_pack_str(m, buf);
	for (int i = 0; i < nvars && !cc; i++)
		cc = lpvm_pack_str(m, vars[i]);
	free(vars);
	return cc;
}

static int spawn_untraced(char *file, char **argv, int flags, char *where, int count, int *tids)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_spawn", cc);
	if (count < 1 || !file)
		return lpvm_error("pvm_spawn", PvmBadParam);
	const char *pt = getenv("PVMTASK");
	if (pt)
		flags |= (int)strtol(pt, NULL, 0);
	int nargs = 0;
	while (argv && argv[nargs])
		nargs++;
	struct msg *req = msg_new(ENC_XDR);
	if (!req)
		return lpvm_error("pvm_spawn", PvmNoMem);
	cc = lpvm_pack_str(req, file);
	if (!cc) cc = lpvm_pack_int(req, flags);
	if (!cc) cc = lpvm_pack_str(req, where ? where : "");
	if (!cc) cc = lpvm_pack_int(req, count);
	if (!cc) cc = lpvm_pack_strs(req, argv, nargs);
	int out[6] = { lpvm.out_tid, lpvm.out_ctx, lpvm.out_tag, lpvm.trc_tid, lpvm.trc_ctx, lpvm.trc_tag };
	if (!cc) cc = lpvm_pack(req, PVM_INT, out, 6, 1);
	if (!cc) cc = pack_spawn_env(req);
	if (cc) {
		msg_free(req);
		return lpvm_error("pvm_spawn", cc);
	}
	struct msg *rep;
	cc = lpvm_daemon_ask(req, TM_SPAWN, &rep);
	if (cc)
		return lpvm_error("pvm_spawn", cc);
	int n;
	int *list = tids ? tids : malloc(sizeof(int) * (size_t)count);
	if (!list || lpvm_unpack_int(rep, &n)) {
		cc = list ? PvmSysErr : PvmNoMem;
	} else if (n != count) {
		cc = n < 0 ? n : PvmSysErr;   /* the pvmd's error for the whole request */
	} else if (lpvm_unpack(rep, PVM_INT, list, n, 1)) {
		cc = PvmSysErr;
	} else {
		cc = move_errors_last(n, list);
	}
	msg_free(rep);
	if (cc > 0) {   /* tell the children who their siblings are */
		struct msg *s = msg_new(ENC_XDR);
		int c2 = s ? lpvm_pack_int(s, cc) : PvmNoMem;
		if (!c2)
			c2 = lpvm_pack(s, PVM_INT, list, cc, 1);
		if (!c2)
			c2 = lpvm_mcast_ctx(s, list, cc, TC_SIBLINGS, SYSCTX_TC);
		msg_free(s);
		if (c2 < 0)
			cc = c2;
	}
	if (list != tids)
		free(list);
	return cc < 0 ? lpvm_error("pvm_spawn", cc) : cc;
}

static int traced_spawn(char *file, char **argv, int flags, char *where, int count, int *tids)
{
	int top = trc_claim();
	const char *pt = getenv("PVMTASK");
	TRC_EVENT(top, TEV_SPAWN, TEV_EVENT_ENTRY) {
		trc_str(TEV_DID_SE, file);
		trc_str(TEV_DID_SW, where);
		trc_int(TEV_DID_SF, pt ? (int)strtol(pt, NULL, 0) | flags : flags);
		trc_int(TEV_DID_SC, count);
	}
	int *list = tids, *own = NULL;
	if (!list && count > 0 && count < 1 << 20)   /* the exit event lists the new tids */
		list = own = malloc(sizeof(int) * (size_t)count);
	int cc = spawn_untraced(file, argv, flags, where, count, list);
	TRC_EVENT(top, TEV_SPAWN, TEV_EVENT_EXIT) {
		trc_int(TEV_DID_CC, cc);
		trc_ints(TEV_DID_STL, list, cc > 0 ? cc : 0);
	}
	free(own);
	if (top)
		trc_release();
	return cc;
}

int pvm_spawn(char *file, char **argv, int flags, char *where, int count, int *tids)
{
	if (trc_armed())
		return traced_spawn(file, argv, flags, where, count, tids);
	return spawn_untraced(file, argv, flags, where, count, tids);
}

static int sendsig_untraced(int tid, int signum)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_sendsig", cc);
	if (!TID_IS_TASK(tid))
		return lpvm_error("pvm_sendsig", PvmBadParam);
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	if (!req)
		return lpvm_error("pvm_sendsig", PvmNoMem);
	cc = lpvm_pack_int(req, tid);
	if (!cc)
		cc = lpvm_pack_int(req, signum);
	cc = cc ? (msg_free(req), cc) : lpvm_daemon_ask(req, TM_SENDSIG, &rep);
	msg_free(rep);
	return cc < 0 ? lpvm_error("pvm_sendsig", cc) : 0;
}

static int kill_untraced(int tid)
{
	int cc = pvm_sendsig(tid, SIGTERM);
	return cc < 0 ? lpvm_error("pvm_kill", cc) : cc;
}

static int pstat_untraced(int tid)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_pstat", cc);
	if (!TID_IS_TASK(tid))
		return lpvm_error("pvm_pstat", PvmBadParam);
	struct msg *req = msg_new(ENC_XDR);
	if (!req)
		return lpvm_error("pvm_pstat", PvmNoMem);
	int st;
	cc = lpvm_pack_int(req, tid);
	cc = cc ? (msg_free(req), cc) : lpvm_daemon_ask_int(req, TM_PSTAT, &st);
	if (!cc)
		cc = st;
	if (cc == PvmNoTask)   /* the pvmd says it has gone */
		lpvm_routes_peer_failed(tid);
	return cc < 0 && cc != PvmNoTask ? lpvm_error("pvm_pstat", cc) : cc;
}

static struct pvmtaskinfo *task_list;
static int task_count;

static int tasks_untraced(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
	for (int i = 0; i < task_count; i++)
		free(task_list[i].ti_a_out);
	free(task_list);
	task_list = NULL;
	task_count = 0;
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_tasks", cc);
	struct msg *req = msg_new(ENC_XDR), *rep;
	if (!req)
		return lpvm_error("pvm_tasks", PvmNoMem);
	cc = lpvm_pack_int(req, where);
	cc = cc ? (msg_free(req), cc) : lpvm_daemon_ask(req, TM_TASK, &rep);
	if (cc)
		return lpvm_error("pvm_tasks", cc);
	int ec;
	if (lpvm_unpack_int(rep, &ec))
		ec = PvmSysErr;
	int cap = 0;
	while (ec >= 0) {
		struct pvmtaskinfo t = { 0 };
		if (lpvm_unpack_int(rep, &t.ti_tid))
			break;   /* the list ends where the message ends */
		int bad = lpvm_unpack_int(rep, &t.ti_ptid) || lpvm_unpack_int(rep, &t.ti_host)
		          || lpvm_unpack_int(rep, &t.ti_flag) || lpvm_unpack_str_alloc(rep, &t.ti_a_out)
		          || lpvm_unpack_int(rep, &t.ti_pid);
		if (bad) {
			free(t.ti_a_out);
			ec = PvmSysErr;
			break;
		}
		if (task_count == cap) {
			cap = cap ? cap * 2 : 16;
			struct pvmtaskinfo *nl = realloc(task_list, (size_t)cap * sizeof *nl);
			if (!nl) {
				free(t.ti_a_out);
				ec = PvmNoMem;
				break;
			}
			task_list = nl;
		}
		task_list[task_count++] = t;
	}
	msg_free(rep);
	if (ec < 0)
		return lpvm_error("pvm_tasks", ec);
	if (ntaskp)
		*ntaskp = task_count;
	if (taskp)
		*taskp = task_list;
	return 0;
}

static int notify_untraced(int what, int code, int count, int *vals)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_notify", cc);
	int flags = what, kind = what & ~PvmNotifyCancel, none = 0;
	if (!lpvm.resv_tids && code < 0)
		return lpvm_error("pvm_notify", PvmBadParam);
	int ntids = count;
	switch (kind) {
	case PvmTaskExit:
		if (count < 1 || !vals)
			return lpvm_error("pvm_notify", PvmBadParam);
		for (int i = 0; i < count; i++)
			if (!TID_IS_TASK(vals[i]))
				return lpvm_error("pvm_notify", PvmBadParam);
		break;
	case PvmHostDelete:
		if (count < 1 || !vals)
			return lpvm_error("pvm_notify", PvmBadParam);
		break;
	case PvmHostAdd:
		ntids = 0;   /* count is how many additions to report (-1: all) */
		vals = &none;
		break;
	case PvmRouteAdd:
		return 0;    /* no direct routes exist on this library's daemon route */
	case PvmRouteDelete:
		if (count < 1 || !vals)
			return lpvm_error("pvm_notify", PvmBadParam);
		return 0;
	default:
		return lpvm_error("pvm_notify", PvmBadParam);
	}
	struct msg *req = msg_new(ENC_XDR);
	if (!req)
		return lpvm_error("pvm_notify", PvmNoMem);
	cc = lpvm_pack_int(req, flags);
	if (!cc) cc = lpvm_pack_int(req, lpvm.ctx);
	if (!cc) cc = lpvm_pack_int(req, code);
	if (!cc) cc = lpvm_pack_int(req, count);
	if (!cc) cc = lpvm_pack(req, PVM_INT, vals, ntids, 1);
	int rm_tag = rm_request_tag(TM_NOTIFY);   /* no reply; to the resource manager if one runs */
	if (!cc) cc = rm_tag ? lpvm_route_send(req, lpvm.sched_tid, rm_tag, lpvm.ctx)
	                     : lpvm_route_send(req, TIDPVMD, TM_NOTIFY, SYSCTX_TM);
	msg_free(req);
	if (cc >= 0 && !rm_tag && (kind == PvmTaskExit || kind == PvmHostDelete))
		lpvm_notices_asked(what & PvmNotifyCancel, code, lpvm.ctx, vals, count);
	return cc < 0 ? lpvm_error("pvm_notify", cc) : 0;
}

static int siblings_untraced(int **tidsp)
{
	static int me[1];
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_siblings", cc);
	if (lpvm.nsibs == -1) {
		cc = pvm_parent();
		if (cc == PvmNoParent) {
			me[0] = lpvm.mytid;
			if (tidsp)
				*tidsp = me;
			return 1;
		}
		while (lpvm.nsibs == -1) {   /* the parent announces them right after spawning */
			cc = lpvm_pump(NULL);
			if (cc < 0)
				return lpvm_error("pvm_siblings", cc);
		}
	}
	if (tidsp)
		*tidsp = lpvm.sib_tids;
	return lpvm.nsibs;
}

int pvm_kill(int tid)
{
	if (trc_armed())
		return trc_call_int(TEV_KILL, TEV_DID_TT, tid, TEV_DID_CC, kill_untraced);
	return kill_untraced(tid);
}

int pvm_pstat(int tid)
{
	if (trc_armed())
		return trc_call_int(TEV_PSTAT, TEV_DID_TT, tid, TEV_DID_TST, pstat_untraced);
	return pstat_untraced(tid);
}

static int traced_sendsig(int tid, int signum)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_SENDSIG, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_TT, tid);
		trc_int(TEV_DID_SN, signum);
	}
	int cc = sendsig_untraced(tid, signum);
	TRC_EVENT(top, TEV_SENDSIG, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_sendsig(int tid, int signum)
{
	if (trc_armed())
		return traced_sendsig(tid, signum);
	return sendsig_untraced(tid, signum);
}

static int traced_notify(int what, int code, int count, int *vals)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_NOTIFY, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_NE, what);
		trc_int(TEV_DID_NMC, code);
		trc_ints(TEV_DID_NTL, vals, what != PvmHostAdd ? count : 0);
	}
	int cc = notify_untraced(what, code, count, vals);
	TRC_EVENT(top, TEV_NOTIFY, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_notify(int what, int code, int count, int *vals)
{
	if (trc_armed())
		return traced_notify(what, code, count, vals);
	return notify_untraced(what, code, count, vals);
}

static int traced_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_TASKS, TEV_EVENT_ENTRY)
		trc_int(TEV_DID_TW, where);
	int n = 0;
	int cc = tasks_untraced(where, &n, taskp);
	if (ntaskp && cc >= 0)
		*ntaskp = n;
	TRC_EVENT(top, TEV_TASKS, TEV_EVENT_EXIT) {
		trc_int(TEV_DID_CC, cc);
		trc_int(TEV_DID_TNT, cc >= 0 ? n : 0);
	}
	if (top)
		trc_release();
	return cc;
}

int pvm_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
	if (trc_armed())
		return traced_tasks(where, ntaskp, taskp);
	return tasks_untraced(where, ntaskp, taskp);
}

static int traced_siblings(int **tidsp)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_SIBLINGS, TEV_EVENT_ENTRY) {}
	int *tids = NULL;
	int cc = siblings_untraced(&tids);
	if (tidsp)
		*tidsp = tids;
	TRC_EVENT(top, TEV_SIBLINGS, TEV_EVENT_EXIT)
		trc_ints(TEV_DID_SIB, tids, cc > 0 ? cc : 0);
	if (top)
		trc_release();
	return cc;
}

int pvm_siblings(int **tidsp)
{
	if (trc_armed())
		return traced_siblings(tidsp);
	return siblings_untraced(tidsp);
}
