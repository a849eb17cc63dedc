/* The pvmd's helper roles: hoster (starts slave pvmds, TM_HOSTER), tasker (starts tasks,
 * TM_TASKER), resource manager (TM_SCHED); each registered task is also listed in its
 * mailbox class, as stock does. The requests the pvmd then sends (SM_STHOST, SM_STTASK,
 * SM_* for a resource manager) reach the program as ordinary messages. And pvm_getnoresets,
 * the tasks listed in the PvmNoReset class. */
#include <pvm3.h>
#include <pvmproto.h>
#include <stdlib.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "trace.h"

/* TM_{HOSTER,TASKER} { 1 register | 0 unregister } -> { status } */
static int role_call(int tag, int on)
{
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	int cc = req ? lpvm_pack_int(req, on) : PvmNoMem;
	if (!cc)
		cc = lpvm_daemon_call(req, tag, &rep);
	msg_free(req);
	int status = 0;
	if (!cc && lpvm_unpack_int(rep, &status))
		cc = PvmSysErr;
	msg_free(rep);
	return cc ? cc : status;
}

/* A mailbox entry holding our tid in class (the index, or a negative error). */
static int list_me(const char *class)
{
	int mid = pvm_mkbuf(PvmDataDefault);
	if (mid < 0)
		return mid;
	int cc = lpvm_pack_int(msg_lookup(mid), lpvm.mytid);
	if (!cc)
		cc = pvm_putinfo((char *)class, mid, PvmMboxMultiInstance);
	pvm_freebuf(mid);
	return cc;
}

struct role {
	const char *fn, *class;
	int tag;
	int registered;
	int index;        /* our entry in the class, -1 none */
	int tid;          /* the connection it was registered on */
};

/* Every call toggles: the first registers, the next unregisters, as stock. */
static int toggle(struct role *r)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error(r->fn, cc);
	if (r->tid != lpvm.mytid)   /* a new connection: nothing registered yet */
		*r = (struct role){ r->fn, r->class, r->tag, 0, -1, lpvm.mytid };
	cc = role_call(r->tag, !r->registered);
	if (cc == 0) {
		r->registered = !r->registered;
		if (r->registered) {
			r->index = list_me(r->class);
		} else if (r->index >= 0 && pvm_delinfo((char *)r->class, r->index,
		                                         PvmMboxDefault) >= 0) {
			r->index = -1;
		}
	}
	return cc < 0 ? lpvm_error(r->fn, cc) : cc;
}

static int reg_hoster_untraced(void)
{
	static struct role r = { "pvm_reg_hoster", PVMHOSTERCLASS, TM_HOSTER, 0, -1, -1 };
	return toggle(&r);
}

static int reg_tasker_untraced(void)
{
	static struct role r = { "pvm_reg_tasker", PVMTASKERCLASS, TM_TASKER, 0, -1, -1 };
	return toggle(&r);
}

/* TM_SCHED {} (or SM_SCHED to the running resource manager) -> { status, tid, name, arch,
 * speed } describing the host the new resource manager runs on. */
static int reg_rm_untraced(struct pvmhostinfo **hip)
{
	static struct pvmhostinfo host;
	static int index = -1;
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_reg_rm", cc);
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	if (!req)
		return lpvm_error("pvm_reg_rm", PvmNoMem);
	if (lpvm.sched_tid && lpvm.sched_tid != lpvm.mytid) {   /* the running one is asked */
		cc = rm_call(req, SM_SCHED, &rep);
	} else {
		cc = lpvm_daemon_call(req, TM_SCHED, &rep);
	}
	msg_free(req);
	int status = 0;
	if (!cc && lpvm_unpack_int(rep, &status))
		cc = PvmSysErr;
	if (!cc && status >= 0) {
		struct pvmhostinfo h = { 0 };
		if (lpvm_unpack_int(rep, &h.hi_tid) || lpvm_unpack_str_alloc(rep, &h.hi_name)
		    || lpvm_unpack_str_alloc(rep, &h.hi_arch) || lpvm_unpack_int(rep, &h.hi_speed)) {
			free(h.hi_name);
			free(h.hi_arch);
			cc = PvmSysErr;
		} else {
			free(host.hi_name);
			free(host.hi_arch);
			host = h;
			if (hip)
				*hip = &host;
			if (index >= 0)
				pvm_delinfo(PVMRMCLASS, index, PvmMboxDefault);
			index = list_me(PVMRMCLASS);
		}
	}
	msg_free(rep);
	if (!cc)
		cc = status;
	return cc < 0 ? lpvm_error("pvm_reg_rm", cc) : cc;
}

/* The three as stock traces them: nothing in, the answer out. */
int pvm_reg_hoster(void)
{
	if (trc_armed())
		return trc_call_none(TEV_REG_HOSTER, TEV_DID_CC, reg_hoster_untraced);
	return reg_hoster_untraced();
}

int pvm_reg_tasker(void)
{
	if (trc_armed())
		return trc_call_none(TEV_REG_TASKER, TEV_DID_CC, reg_tasker_untraced);
	return reg_tasker_untraced();
}

int pvm_reg_rm(struct pvmhostinfo **hip)
{
	if (!trc_armed())
		return reg_rm_untraced(hip);
	int top = trc_claim();
	TRC_EVENT(top, TEV_REG_RM, TEV_EVENT_ENTRY) {}
	int cc = reg_rm_untraced(hip);
	TRC_EVENT(top, TEV_REG_RM, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_getnoresets(int **tids, int *ntids)
{
	static int *list;
	static int cap;
	int n = 0, cc = 0;
	struct msg *saved = lpvm.rbuf;   /* recvinfo replaces the receive buffer: keep ours */
	lpvm.rbuf = NULL;
	for (int index = 0;; index++) {
		int mid = pvm_recvinfo(PVMNORESETCLASS, index, PvmMboxFirstAvail);
		if (mid <= 0)
			break;   /* no more entries */
		if (n == cap) {
			int *l = realloc(list, sizeof *l * (size_t)(cap ? cap * 2 : 16));
			if (!l) {
				cc = PvmNoMem;
				break;
			}
			list = l;
			cap = cap ? cap * 2 : 16;
		}
		if (lpvm_unpack_int(msg_lookup(mid), &list[n]) == 0)
			n++;
		pvm_freebuf(mid);
	}
	lpvm.rbuf = saved;
	if (cc)
		return lpvm_error("pvm_getnoresets", cc);
	if (tids)
		*tids = list;
	if (ntids)
		*ntids = n;
	return PvmOk;
}
