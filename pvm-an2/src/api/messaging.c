/* Sending and receiving: send, mcast, psend/precv, recv, nrecv, trecv, probe, recvf. */
#include <pvm3.h>
#include <string.h>
#include <sys/time.h>

#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "codec.h"
#include "pvm_ids.h"
#include "route_set.h"
#include "rxqueue.h"
#include "send.h"
#include "trace.h"

static int bad_tag(int tag)
{
	return !lpvm.resv_tids && tag < 0;
}

static int send_untraced(int tid, int tag)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_send", cc);
	if (tid == PVM_TRACE_TID && tag == PVM_TRACE_CODE) {   /* a user-defined trace event */
		cc = lpvm.sbuf ? trc_send_user_event(lpvm.sbuf) : PvmNoBuf;
		return cc < 0 ? lpvm_error("pvm_send", cc) : 0;
	}
	if (!lpvm.resv_tids && (!TID_IS_TASK(tid) || bad_tag(tag)))
		return lpvm_error("pvm_send", PvmBadParam);
	if (!lpvm.sbuf)
		return lpvm_error("pvm_send", PvmNoBuf);
	cc = lpvm_route_send(lpvm.sbuf, tid, tag, lpvm.ctx);
	return cc < 0 ? lpvm_error("pvm_send", cc) : 0;
}

static int mcast_untraced(int *tids, int count, int tag)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_mcast", cc);
	if (!lpvm.sbuf)
		return lpvm_error("pvm_mcast", PvmNoBuf);
	if (count < 0 || bad_tag(tag) || (count > 0 && !tids))
		return lpvm_error("pvm_mcast", PvmBadParam);
	if (!lpvm.resv_tids)
		for (int i = 0; i < count; i++)
			if (!TID_IS_TASK(tids[i]))
				return lpvm_error("pvm_mcast", PvmBadParam);
	if (count == 0)
		return 0;
	cc = lpvm_mcast_ctx(lpvm.sbuf, tids, count, tag, lpvm.ctx);
	return cc < 0 ? lpvm_error("pvm_mcast", cc) : 0;
}

/* Finds a matching message; tmo NULL waits forever, {0,0} only looks. */
static int receive(const char *fn, int tid, int tag, const struct timeval *tmo, int remove)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error(fn, cc);
	if (remove && lpvm.rbuf) {
		msg_free(lpvm.rbuf);   /* as stock: receiving frees the current receive buffer */
		lpvm.rbuf = NULL;
	}
	struct timeval start;
	gettimeofday(&start, NULL);
	int looked = 0;
	for (;;) {
		cc = lpvm_routes_recv_error(tid);   /* a route lost a message from tid: say so once */
		if (cc)
			return lpvm_error(fn, cc);
		struct msg *m = rxq_take_match(tid, tag, remove);
		if (m) {
			if (remove) {
				m->mode = MODE_NONE;
				lpvm.rbuf = m;
				msg_rewind(m);
			}
			return m->mid;
		}
		struct timeval left, *wait = NULL;
		if (tmo) {
			struct timeval now, spent;
			gettimeofday(&now, NULL);
			timersub(&now, &start, &spent);
			if (timercmp(&spent, tmo, >=)) {
				if (looked)
					return 0;
				left = (struct timeval){ 0, 0 };
			} else {
				timersub(tmo, &spent, &left);
			}
			wait = &left;
		}
		looked = 1;
		cc = lpvm_pump(wait);
		if (cc < 0)
			return lpvm_error(fn, cc);
	}
}

static int trecv_untraced(int tid, int tag, struct timeval *tmout)
{
	if (tmout && (tmout->tv_sec < 0 || tmout->tv_usec < 0))
		return lpvm_error("pvm_trecv", PvmBadParam);
	return receive("pvm_trecv", tid, tag, tmout, 1);
}

/* The length of the active send buffer, as the send events give it; -1 without one. */
static int send_length(void)
{
	return lpvm.sbuf ? (int)msg_length(lpvm.sbuf) : -1;
}

/* a receive's exit event: the buffer, its length, tag, context and source (-1s if none) */
static void received(int mid)
{
	struct msg *m = mid > 0 ? msg_lookup(mid) : NULL;
	trc_int(TEV_DID_MB, mid);
	trc_int(TEV_DID_MNB, m ? (int)msg_length(m) : -1);
	trc_int(TEV_DID_MC, m ? m->tag : -1);
	trc_int(TEV_DID_MCX, lpvm.ctx);
	trc_int(TEV_DID_SRC, m ? m->src : -1);
}

static int traced_send(int tid, int tag)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_SEND, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_MNB, send_length());
		trc_int(TEV_DID_DST, tid);
		trc_int(TEV_DID_MC, tag);
		trc_int(TEV_DID_MCX, lpvm.ctx);
	}
	int cc = send_untraced(tid, tag);
	TRC_EVENT(top, TEV_SEND, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_send(int tid, int tag)
{
	if (trc_armed())
		return traced_send(tid, tag);
	return send_untraced(tid, tag);
}

static int traced_mcast(int *tids, int count, int tag)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_MCAST, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_MNB, send_length());
		trc_int(TEV_DID_MC, tag);
		trc_int(TEV_DID_MCX, lpvm.ctx);
		trc_ints(TEV_DID_MDL, tids, count);
	}
	int cc = mcast_untraced(tids, count, tag);
	TRC_EVENT(top, TEV_MCAST, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_mcast(int *tids, int count, int tag)
{
	if (trc_armed())
		return traced_mcast(tids, count, tag);
	return mcast_untraced(tids, count, tag);
}

/* recv, nrecv, trecv (with its timeout, -1s for none) and probe */
static int traced_receive(int kind, int tid, int tag, struct timeval *tmo)
{
	static const struct timeval zero = { 0, 0 };
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_RST, tid);
		trc_int(TEV_DID_RMC, tag);
		trc_int(TEV_DID_RCX, lpvm.ctx);
		if (kind == TEV_TRECV) {
			trc_int(TEV_DID_MTS, tmo ? (int)tmo->tv_sec : -1);
			trc_int(TEV_DID_MTU, tmo ? (int)tmo->tv_usec : -1);
		}
	}
	int cc = kind == TEV_RECV ? receive("pvm_recv", tid, tag, NULL, 1)
	       : kind == TEV_NRECV ? receive("pvm_nrecv", tid, tag, &zero, 1)
	       : kind == TEV_TRECV ? trecv_untraced(tid, tag, tmo)
	       : receive("pvm_probe", tid, tag, &zero, 0);
	TRC_EVENT(top, kind, TEV_EVENT_EXIT) {
		if (kind == TEV_PROBE)
			trc_int(TEV_DID_CC, cc);
		else
			received(cc);
	}
	if (top)
		trc_release();
	return cc;
}

int pvm_recv(int tid, int tag)
{
	if (trc_armed())
		return traced_receive(TEV_RECV, tid, tag, NULL);
	return receive("pvm_recv", tid, tag, NULL, 1);
}

int pvm_nrecv(int tid, int tag)
{
	static const struct timeval zero = { 0, 0 };
	if (trc_armed())
		return traced_receive(TEV_NRECV, tid, tag, NULL);
	return receive("pvm_nrecv", tid, tag, &zero, 1);
}

int pvm_trecv(int tid, int tag, struct timeval *tmout)
{
	if (trc_armed())
		return traced_receive(TEV_TRECV, tid, tag, tmout);
	return trecv_untraced(tid, tag, tmout);
}

int pvm_probe(int tid, int tag)
{
	static const struct timeval zero = { 0, 0 };
	if (trc_armed())
		return traced_receive(TEV_PROBE, tid, tag, NULL);
	return receive("pvm_probe", tid, tag, &zero, 0);
}

/* <pvm3.h> declares the result as a pointer to a function taking a matcher (a slip in the
 * stock prototype); callers cast it back to the matcher type, so we return the old matcher. */
typedef int (*matcher)(int, int, int);
typedef int (*declared_result)(matcher);

static declared_result recvf_untraced(matcher new)
{
	matcher old = lpvm.recv_match ? lpvm.recv_match : lpvm_default_match;
	lpvm.recv_match = new ? new : lpvm_default_match;
	return (declared_result)(void *)old;
}

/* Bytes per element for psend/precv, 0 for a bad type, -1 for PVM_STR. */
static int elem_size(int type)
{
	switch (type) {
	case PVM_BYTE: return 1;
	case PVM_SHORT: case PVM_USHORT: return (int)sizeof(short);
	case PVM_INT: case PVM_UINT: return (int)sizeof(int);
	case PVM_LONG: case PVM_ULONG: return (int)sizeof(long);
	case PVM_FLOAT: return (int)sizeof(float);
	case PVM_CPLX: return 2 * (int)sizeof(float);
	case PVM_DOUBLE: return (int)sizeof(double);
	case PVM_DCPLX: return 2 * (int)sizeof(double);
	case PVM_STR: return -1;
	default: return 0;
	}
}

static int psend_untraced(int tid, int tag, void *buf, int len, int type)
{
	int es = elem_size(type);
	if (es < 0)
		return lpvm_error("pvm_psend", PvmNotImpl);
	if (es == 0 || len < 0 || (len > 0 && !buf))
		return lpvm_error("pvm_psend", PvmBadParam);
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_psend", cc);
	if (!lpvm.resv_tids && (!TID_IS_TASK(tid) || bad_tag(tag)))
		return lpvm_error("pvm_psend", PvmBadParam);
	struct msg *m = msg_new(ENC_INPLACE);
	if (!m)
		return lpvm_error("pvm_psend", PvmNoMem);
	cc = lpvm_pack(m, PVM_BYTE, buf, len * es, 1);
	if (!cc)
		cc = lpvm_route_send(m, tid, tag, lpvm.ctx);
	msg_free(m);
	return cc < 0 ? lpvm_error("pvm_psend", cc) : 0;
}

static int precv_untraced(int tid, int tag, void *buf, int len, int type, int *rtid, int *rtag,
                          int *rlen)
{
	int es = elem_size(type);
	if (es < 0)
		return lpvm_error("pvm_precv", PvmNotImpl);
	if (es == 0 || len < 0 || (len > 0 && !buf))
		return lpvm_error("pvm_precv", PvmBadParam);
	struct msg *saved = lpvm.rbuf;
	lpvm.rbuf = NULL;
	int mid = pvm_recv(tid, tag);
	if (mid < 0) {
		lpvm.rbuf = saved;
		return mid;
	}
	struct msg *m = msg_lookup(mid);
	int nb = (int)msg_length(m);
	if (rlen)
		*rlen = nb;
	if (rtag)
		*rtag = m->tag;
	if (rtid)
		*rtid = m->src;
	int want = len * es < nb ? len * es : nb;
	/* the raw bytes, whatever the sender's encoding, as stock does */
	msg_rewind(m);
	for (struct frag *f = m->head; f && want > 0; f = f->next) {
		size_t n = f->len < (size_t)want ? f->len : (size_t)want;
		memcpy(buf, f->data, n);
		buf = (char *)buf + n;
		want -= (int)n;
	}
	msg_free(m);
	lpvm.rbuf = saved;
	return 0;
}

declared_result pvm_recvf(matcher new)
{
	if (!trc_armed())
		return recvf_untraced(new);
	int top = trc_claim();
	TRC_EVENT(top, TEV_RECVF, TEV_EVENT_ENTRY) {}
	declared_result old = recvf_untraced(new);
	TRC_EVENT(top, TEV_RECVF, TEV_EVENT_EXIT) {}
	if (top)
		trc_release();
	return old;
}

static int traced_psend(int tid, int tag, void *buf, int len, int type)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_PSEND, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_DST, tid);
		trc_int(TEV_DID_MC, tag);
		trc_int(TEV_DID_MCX, lpvm.ctx);
		trc_long(TEV_DID_PDA, (long)buf);
		trc_int(TEV_DID_PC, len);
		trc_int(TEV_DID_PDT, type);
	}
	int cc = psend_untraced(tid, tag, buf, len, type);
	TRC_EVENT(top, TEV_PSEND, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_psend(int tid, int tag, void *buf, int len, int type)
{
	if (trc_armed())
		return traced_psend(tid, tag, buf, len, type);
	return psend_untraced(tid, tag, buf, len, type);
}

static int traced_precv(int tid, int tag, void *buf, int len, int type, int *rtid, int *rtag,
                        int *rlen)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_PRECV, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_RST, tid);
		trc_int(TEV_DID_RMC, tag);
		trc_int(TEV_DID_RCX, lpvm.ctx);
		trc_long(TEV_DID_PDA, (long)buf);
		trc_int(TEV_DID_PC, len);
		trc_int(TEV_DID_PDT, type);
	}
	int src = -1, mc = -1, nb = -1;
	int cc = precv_untraced(tid, tag, buf, len, type, &src, &mc, &nb);
	if (cc >= 0) {
		if (rtid)
			*rtid = src;
		if (rtag)
			*rtag = mc;
		if (rlen)
			*rlen = nb;
	}
	TRC_EVENT(top, TEV_PRECV, TEV_EVENT_EXIT) {
		trc_int(TEV_DID_CC, cc);
		trc_int(TEV_DID_MNB, cc < 0 ? -1 : nb);
		trc_int(TEV_DID_MC, cc < 0 ? -1 : mc);
		trc_int(TEV_DID_MCX, lpvm.ctx);
		trc_int(TEV_DID_SRC, cc < 0 ? -1 : src);
	}
	if (top)
		trc_release();
	return cc;
}

int pvm_precv(int tid, int tag, void *buf, int len, int type, int *rtid, int *rtag, int *rlen)
{
	if (trc_armed())
		return traced_precv(tid, tag, buf, len, type, rtid, rtag, rlen);
	return precv_untraced(tid, tag, buf, len, type, rtid, rtag, rlen);
}
