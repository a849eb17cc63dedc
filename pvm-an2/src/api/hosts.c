/* Requests to the pvmd about hosts and the virtual machine: mstat, config, archcode, host
 * add/delete, halt, tickle. */
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

static int mstat_untraced(char *host)
{
	if (!host || !*host)
		return lpvm_error("pvm_mstat", PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_mstat", cc);
	struct msg *req = msg_new(ENC_XDR);
	if (!req)
		return lpvm_error("pvm_mstat", PvmNoMem);
	int st;
	cc = lpvm_pack_str(req, host);
	cc = cc ? (msg_free(req), cc) : lpvm_daemon_ask_int(req, TM_MSTAT, &st);
	if (!cc)
		cc = st;
	return cc < 0 && cc != PvmNoHost && cc != PvmHostFail ? lpvm_error("pvm_mstat", cc) : cc;
}

int pvm_mstat(char *host)
{
	if (trc_armed())
		return trc_call_str(TEV_MSTAT, TEV_DID_HN, host, TEV_DID_HS, mstat_untraced);
	return mstat_untraced(host);
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
	struct msg *req = msg_new(ENC_XDR), *rep;
	if (!req)
		return PvmNoMem;
	int cc = lpvm_daemon_ask(req, TM_CONFIG, &rep);
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

static int config_untraced(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
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

static int archcode_untraced(char *arch)
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

int pvm_archcode(char *arch)
{
	if (trc_armed())
		return trc_call_str(TEV_ARCHCODE, TEV_DID_AN, arch, TEV_DID_AC, archcode_untraced);
	return archcode_untraced(arch);
}

static int host_request(const char *fn, int tag, char **names, int count, int *svp)
{
	if (count < 1 || count > (TIDHOST >> 18) || !names)
		return lpvm_error(fn, PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error(fn, cc);
	struct msg *req = msg_new(ENC_XDR), *rep;
	if (!req)
		return lpvm_error(fn, PvmNoMem);
	cc = lpvm_pack_strs(req, names, count);
	cc = cc ? (msg_free(req), cc) : lpvm_daemon_ask(req, tag, &rep);
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

/* addhosts and delhosts as stock traces them: the names in, the answer out */
static int traced_host_request(int kind, const char *fn, int tag, char **names, int count,
                               int *svp)
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY)
		trc_strs(TEV_DID_HNL, names, count);
	int cc = host_request(fn, tag, names, count, svp);
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_addhosts(char **names, int count, int *svp)
{
	if (trc_armed())
		return traced_host_request(TEV_ADDHOSTS, "pvm_addhosts", TM_ADDHOST, names, count, svp);
	return host_request("pvm_addhosts", TM_ADDHOST, names, count, svp);
}

int pvm_delhosts(char **names, int count, int *svp)
{
	if (trc_armed())
		return traced_host_request(TEV_DELHOSTS, "pvm_delhosts", TM_DELHOST, names, count, svp);
	return host_request("pvm_delhosts", TM_DELHOST, names, count, svp);
}

static int halt_untraced(void);

int pvm_halt(void)
{
	if (!trc_armed())
		return halt_untraced();
	int top = trc_claim();   /* as stock: an entry event alone (the pvmd goes) */
	TRC_EVENT(top, TEV_HALT, TEV_EVENT_ENTRY) {}
	int cc = halt_untraced();
	if (top)
		trc_release();
	return cc;
}

static int halt_untraced(void)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_halt", cc);
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	if (!req)
		return lpvm_error("pvm_halt", PvmNoMem);
	cc = lpvm_daemon_ask(req, TM_HALT, &rep);   /* the pvmd goes away instead of answering */
	msg_free(rep);
	lpvm_detach();
	return cc < 0 ? 0 : lpvm_error("pvm_halt", PvmSysErr);
}

int pvm_tickle(int narg, int *argp, int *nresp, int *resp)
{
	if (narg < 1 || narg > 10 || !argp)
		return lpvm_error("pvm_tickle", PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_tickle", cc);
	struct msg *req = msg_new(ENC_XDR), *rep;
	if (!req)
		return lpvm_error("pvm_tickle", PvmNoMem);
	cc = lpvm_pack_int(req, narg);
	if (!cc)
		cc = lpvm_pack(req, PVM_INT, argp, narg, 1);
	cc = cc ? (msg_free(req), cc) : lpvm_daemon_ask(req, TM_TICKLE, &rep);
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

static int traced_config(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_CONFIG, TEV_EVENT_ENTRY) {}
	int nhost = 0, narch = 0;
	int cc = config_untraced(&nhost, &narch, hostp);
	if (cc >= 0) {
		if (nhostp)
			*nhostp = nhost;
		if (narchp)
			*narchp = narch;
	}
	TRC_EVENT(top, TEV_CONFIG, TEV_EVENT_EXIT) {
		trc_int(TEV_DID_NH, nhost);
		trc_int(TEV_DID_NA, narch);
		trc_int(TEV_DID_CC, cc);
	}
	if (top)
		trc_release();
	return cc;
}

int pvm_config(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
{
	if (trc_armed())
		return traced_config(nhostp, narchp, hostp);
	return config_untraced(nhostp, narchp, hostp);
}
