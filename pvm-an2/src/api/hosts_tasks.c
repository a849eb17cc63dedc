/* Requests to the pvmd about tasks and hosts: spawn, kill, signals, config, tasks, status,
 * host add/delete, notify, halt. */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

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

/* New XDR request message. */
static struct msg *request(void)
{
	return msg_new(ENC_XDR);
}

/* Sends req (consumed) and waits for the reply. */
static int ask(struct msg *req, int tag, struct msg **reply)
{
	int cc = lpvm_daemon_call(req, tag, reply);
	msg_free(req);
	return cc;
}

/* For requests whose answer is one int. */
static int ask_int(struct msg *req, int tag, int *value)
{
	struct msg *rep;
	int cc = ask(req, tag, &rep);
	if (!cc && lpvm_unpack_int(rep, value))
		cc = PvmSysErr;
	msg_free(rep);
	return cc;
}

static int pack_strs(struct msg *m, char **names, int count)
{
	int cc = lpvm_pack_int(m, count);
	for (int i = 0; i < count && !cc; i++)
		cc = lpvm_pack_str(m, names[i] ? names[i] : "");
	return cc;
}

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
	if (!cc)
		cc = lpvm_pack_str(m, "PVMTMASK=");
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

int pvm_spawn(char *file, char **argv, int flags, char *where, int count, int *tids)
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
	struct msg *req = request();
	if (!req)
		return lpvm_error("pvm_spawn", PvmNoMem);
	cc = lpvm_pack_str(req, file);
	if (!cc) cc = lpvm_pack_int(req, flags);
	if (!cc) cc = lpvm_pack_str(req, where ? where : "");
	if (!cc) cc = lpvm_pack_int(req, count);
	if (!cc) cc = pack_strs(req, argv, nargs);
	int out[6] = { lpvm.out_tid, lpvm.out_ctx, lpvm.out_tag, lpvm.trc_tid, lpvm.trc_ctx, lpvm.trc_tag };
	if (!cc) cc = lpvm_pack(req, PVM_INT, out, 6, 1);
	if (!cc) cc = pack_spawn_env(req);
	if (cc) {
		msg_free(req);
		return lpvm_error("pvm_spawn", cc);
	}
	struct msg *rep;
	cc = ask(req, TM_SPAWN, &rep);
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
		struct msg *s = request();
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

int pvm_sendsig(int tid, int signum)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_sendsig", cc);
	if (!TID_IS_TASK(tid))
		return lpvm_error("pvm_sendsig", PvmBadParam);
	struct msg *req = request(), *rep = NULL;
	if (!req)
		return lpvm_error("pvm_sendsig", PvmNoMem);
	cc = lpvm_pack_int(req, tid);
	if (!cc)
		cc = lpvm_pack_int(req, signum);
	cc = cc ? (msg_free(req), cc) : ask(req, TM_SENDSIG, &rep);
	msg_free(rep);
	return cc < 0 ? lpvm_error("pvm_sendsig", cc) : 0;
}

int pvm_kill(int tid)
{
	int cc = pvm_sendsig(tid, SIGTERM);
	return cc < 0 ? lpvm_error("pvm_kill", cc) : cc;
}

int pvm_pstat(int tid)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_pstat", cc);
	if (!TID_IS_TASK(tid))
		return lpvm_error("pvm_pstat", PvmBadParam);
	struct msg *req = request();
	if (!req)
		return lpvm_error("pvm_pstat", PvmNoMem);
	int st;
	cc = lpvm_pack_int(req, tid);
	cc = cc ? (msg_free(req), cc) : ask_int(req, TM_PSTAT, &st);
	if (!cc)
		cc = st;
	if (cc == PvmNoTask)   /* the pvmd says it has gone */
		lpvm_routes_peer_failed(tid);
	return cc < 0 && cc != PvmNoTask ? lpvm_error("pvm_pstat", cc) : cc;
}

int pvm_mstat(char *host)
{
	if (!host || !*host)
		return lpvm_error("pvm_mstat", PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_mstat", cc);
	struct msg *req = request();
	if (!req)
		return lpvm_error("pvm_mstat", PvmNoMem);
	int st;
	cc = lpvm_pack_str(req, host);
	cc = cc ? (msg_free(req), cc) : ask_int(req, TM_MSTAT, &st);
	if (!cc)
		cc = st;
	return cc < 0 && cc != PvmNoHost && cc != PvmHostFail ? lpvm_error("pvm_mstat", cc) : cc;
}

/* Host list as TM_CONFIG returns it, kept until the next pvm_config call (stock's rule). */
static struct pvmhostinfo *config_hosts;
static int config_nhosts;

static void free_hosts(struct pvmhostinfo *h, int n)
{
	for (int i = 0; i < n; i++) {
		free(h[i].hi_name);
		free(h[i].hi_arch);
	}
	free(h);
}

static int fetch_config(struct pvmhostinfo **hosts, int *nhosts, int *narch)
{
	struct msg *req = request(), *rep;
	if (!req)
		return PvmNoMem;
	int cc = ask(req, TM_CONFIG, &rep);
	if (cc)
		return cc;
	int n = 0, na = 0;
	if (lpvm_unpack_int(rep, &n) || lpvm_unpack_int(rep, &na) || n < 0 || n > 4096) {
		msg_free(rep);
		return PvmSysErr;
	}
	struct pvmhostinfo *h = calloc((size_t)(n ? n : 1), sizeof *h);
	if (!h) {
		msg_free(rep);
		return PvmNoMem;
	}
	for (int i = 0; i < n && !cc; i++) {
		cc = lpvm_unpack_int(rep, &h[i].hi_tid);
		if (!cc) cc = lpvm_unpack_str_alloc(rep, &h[i].hi_name);
		if (!cc) cc = lpvm_unpack_str_alloc(rep, &h[i].hi_arch);
		if (!cc) cc = lpvm_unpack_int(rep, &h[i].hi_speed);
		if (!cc) cc = lpvm_unpack_int(rep, &h[i].hi_dsig);
	}
	msg_free(rep);
	if (cc) {
		free_hosts(h, n);
		return PvmSysErr;
	}
	*hosts = h;
	*nhosts = n;
	if (narch)
		*narch = na;
	return 0;
}

int pvm_config(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
{
	free_hosts(config_hosts, config_nhosts);
	config_hosts = NULL;
	config_nhosts = 0;
	int cc = lpvm_attach();
	int narch = 0;
	if (!cc)
		cc = fetch_config(&config_hosts, &config_nhosts, &narch);
	if (cc)
		return lpvm_error("pvm_config", cc);
	if (nhostp)
		*nhostp = config_nhosts;
	if (narchp)
		*narchp = narch;
	if (hostp)
		*hostp = config_hosts;
	return 0;
}

int pvm_archcode(char *arch)
{
	if (!arch)
		return lpvm_error("pvm_archcode", PvmBadParam);
	int cc = lpvm_attach();
	struct pvmhostinfo *h = NULL;
	int n = 0;
	if (!cc)
		cc = fetch_config(&h, &n, NULL);
	if (cc)
		return lpvm_error("pvm_archcode", cc);
	cc = PvmNotFound;
	for (int i = 0; i < n; i++)
		if (h[i].hi_arch && !strcmp(h[i].hi_arch, arch)) {
			cc = h[i].hi_dsig;
			break;
		}
	free_hosts(h, n);
	return cc < 0 ? lpvm_error("pvm_archcode", cc) : cc;
}

static struct pvmtaskinfo *task_list;
static int task_count;

int pvm_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
	for (int i = 0; i < task_count; i++)
		free(task_list[i].ti_a_out);
	free(task_list);
	task_list = NULL;
	task_count = 0;
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_tasks", cc);
	struct msg *req = request(), *rep;
	if (!req)
		return lpvm_error("pvm_tasks", PvmNoMem);
	cc = lpvm_pack_int(req, where);
	cc = cc ? (msg_free(req), cc) : ask(req, TM_TASK, &rep);
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

static int host_request(const char *fn, int tag, char **names, int count, int *svp)
{
	if (count < 1 || count > (TIDHOST >> 18) || !names)
		return lpvm_error(fn, PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error(fn, cc);
	struct msg *req = request(), *rep;
	if (!req)
		return lpvm_error(fn, PvmNoMem);
	cc = pack_strs(req, names, count);
	cc = cc ? (msg_free(req), cc) : ask(req, tag, &rep);
	if (cc)
		return lpvm_error(fn, cc);
	int n;
	int *sv = calloc((size_t)count, sizeof *sv);
	if (!sv)
		cc = PvmNoMem;
	else if (lpvm_unpack_int(rep, &n))
		cc = PvmSysErr;
	else if (n < 0)
		cc = n;
	else if (n != count)
		cc = PvmOutOfRes;
	else if (tag == TM_DELHOST) {
		cc = lpvm_unpack(rep, PVM_INT, sv, count, 1) ? PvmSysErr : 0;
	} else {
		int narch;
		cc = lpvm_unpack_int(rep, &narch) ? PvmSysErr : 0;
		for (int i = 0; i < count && !cc; i++) {
			char *s1 = NULL, *s2 = NULL;
			int sp, ds;
			if (lpvm_unpack_int(rep, &sv[i]) || lpvm_unpack_str_alloc(rep, &s1)
			    || lpvm_unpack_str_alloc(rep, &s2) || lpvm_unpack_int(rep, &sp)
			    || lpvm_unpack_int(rep, &ds))
				cc = PvmSysErr;
			free(s1);
			free(s2);
		}
	}
	if (!cc) {
		for (int i = 0; i < count; i++)
			if (sv[i] >= 0)
				cc++;
		if (svp)
			memcpy(svp, sv, sizeof(int) * (size_t)count);
	}
	free(sv);
	msg_free(rep);
	return cc < 0 ? lpvm_error(fn, cc) : cc;
}

int pvm_addhosts(char **names, int count, int *svp)
{
	return host_request("pvm_addhosts", TM_ADDHOST, names, count, svp);
}

int pvm_delhosts(char **names, int count, int *svp)
{
	return host_request("pvm_delhosts", TM_DELHOST, names, count, svp);
}

int pvm_notify(int what, int code, int count, int *vals)
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
	struct msg *req = request();
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

int pvm_halt(void)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_halt", cc);
	struct msg *req = request(), *rep = NULL;
	if (!req)
		return lpvm_error("pvm_halt", PvmNoMem);
	cc = ask(req, TM_HALT, &rep);   /* the pvmd goes away instead of answering */
	msg_free(rep);
	lpvm_detach();
	return cc < 0 ? 0 : lpvm_error("pvm_halt", PvmSysErr);
}

int pvm_siblings(int **tidsp)
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

int pvm_tickle(int narg, int *argp, int *nresp, int *resp)
{
	if (narg < 1 || narg > 10 || !argp)
		return lpvm_error("pvm_tickle", PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_tickle", cc);
	struct msg *req = request(), *rep;
	if (!req)
		return lpvm_error("pvm_tickle", PvmNoMem);
	cc = lpvm_pack_int(req, narg);
	if (!cc)
		cc = lpvm_pack(req, PVM_INT, argp, narg, 1);
	cc = cc ? (msg_free(req), cc) : ask(req, TM_TICKLE, &rep);
	if (cc)
		return lpvm_error("pvm_tickle", cc);
	int n;
	if (lpvm_unpack_int(rep, &n) || n < 0 || n > 1 << 16)
		cc = PvmSysErr;
	else {
		if (nresp)
			*nresp = n;
		if (resp && lpvm_unpack(rep, PVM_INT, resp, n, 1))
			cc = PvmSysErr;
	}
	msg_free(rep);
	return cc < 0 ? lpvm_error("pvm_tickle", cc) : 0;
}
