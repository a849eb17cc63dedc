/* Public message-buffer calls: mkbuf, freebuf, initsend, set/get of the active buffers, info. */
#include <pvm3.h>

#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "trace.h"

static int mkbuf_untraced(int encoding)
{
	int enc;
	switch (encoding) {
	case PvmDataDefault: enc = ENC_XDR; break;
	case PvmDataRaw: enc = lpvm.dsig; break;
	case PvmDataInPlace: enc = ENC_INPLACE; break;
	case PvmDataTrace: enc = ENC_TRACE; break;   /* a user-defined trace event */
	default: return lpvm_error("pvm_mkbuf", PvmBadParam);
	}
	struct msg *m = msg_new(enc);
	if (!m)
		return lpvm_error("pvm_mkbuf", PvmNoMem);
	m->mode = MODE_PACK;
	if (enc == ENC_TRACE && trc_user_event_head(m)) {
		msg_free(m);
		return lpvm_error("pvm_mkbuf", PvmNoMem);
	}
	return m->mid;
}

static int freebuf_untraced(int mid)
{
	if (mid < 0)
		return lpvm_error("pvm_freebuf", PvmBadParam);
	if (mid == 0)
		return PvmOk;   /* stock tolerates freeing the null buffer */
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_freebuf", PvmNoSuchBuf);
	msg_free(m);
	return PvmOk;
}

static int initsend_untraced(int encoding)
{
	int mid = mkbuf_untraced(encoding);
	if (mid < 0)
		return lpvm_error("pvm_initsend", mid);
	if (lpvm.sbuf)
		msg_free(lpvm.sbuf);
	lpvm.sbuf = msg_lookup(mid);
	return mid;
}

static int getsbuf_untraced(void)
{
	return lpvm.sbuf ? lpvm.sbuf->mid : 0;
}

static int getrbuf_untraced(void)
{
	return lpvm.rbuf ? lpvm.rbuf->mid : 0;
}

static int setsbuf_untraced(int mid)
{
	if (mid < 0)
		return lpvm_error("pvm_setsbuf", PvmBadParam);
	int old = lpvm.sbuf ? lpvm.sbuf->mid : 0;
	if (mid == 0) {
		lpvm.sbuf = NULL;
		return old;
	}
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_setsbuf", PvmNoSuchBuf);
	if (lpvm.rbuf == m)
		lpvm.rbuf = NULL;
	lpvm.sbuf = m;
	m->mode = MODE_PACK;
	return old;
}

static int setrbuf_untraced(int mid)
{
	if (mid < 0)
		return lpvm_error("pvm_setrbuf", PvmBadParam);
	int old = lpvm.rbuf ? lpvm.rbuf->mid : 0;
	if (mid == 0) {
		lpvm.rbuf = NULL;
		return old;
	}
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_setrbuf", PvmNoSuchBuf);
	if (lpvm.sbuf == m)
		lpvm.sbuf = NULL;
	lpvm.rbuf = m;
	if (m->mode != MODE_UNPACK)   /* as stock: a buffer already being unpacked keeps its place */
		msg_rewind(m);
	return old;
}

static int bufinfo_untraced(int mid, int *len, int *tag, int *tid)
{
	if (mid <= 0)
		return lpvm_error("pvm_bufinfo", PvmBadParam);
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_bufinfo", PvmNoSuchBuf);
	if (len)
		*len = (int)msg_length(m);
	if (tag)
		*tag = m->tag;
	if (tid)
		*tid = m->src;
	return PvmOk;
}

static int getminfo_untraced(int mid, struct pvmminfo *info)
{
	if (mid <= 0 || !info)
		return lpvm_error("pvm_getminfo", PvmBadParam);
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_getminfo", PvmNoSuchBuf);
	info->len = (int)msg_length(m);
	info->ctx = m->ctx;
	info->tag = m->tag;
	info->wid = m->wid;
	info->enc = m->enc;
	info->crc = m->crc;
	info->src = m->src;
	info->dst = m->dst;
	return PvmOk;
}

static int setminfo_untraced(int mid, struct pvmminfo *info)
{
	if (mid <= 0 || !info)
		return lpvm_error("pvm_setminfo", PvmBadParam);
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_setminfo", PvmNoSuchBuf);
	/* stock lets the caller change everything but the length */
	m->ctx = info->ctx;
	m->tag = info->tag;
	m->wid = info->wid;
	m->enc = info->enc;
	m->crc = info->crc;
	m->src = info->src;
	m->dst = info->dst;
	return PvmOk;
}

/* getminfo and setminfo as stock traces them: the buffer in, the answer out */
static int traced_minfo(int kind, int (*untraced)(int, struct pvmminfo *), int mid,
                        struct pvmminfo *info)
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY)
		trc_int(TEV_DID_MB, mid);
	int cc = untraced(mid, info);
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_getminfo(int mid, struct pvmminfo *info)
{
	if (trc_armed())
		return traced_minfo(TEV_GETMINFO, getminfo_untraced, mid, info);
	return getminfo_untraced(mid, info);
}

int pvm_setminfo(int mid, struct pvmminfo *info)
{
	if (trc_armed())
		return traced_minfo(TEV_SETMINFO, setminfo_untraced, mid, info);
	return setminfo_untraced(mid, info);
}

int pvm_mkbuf(int encoding)
{
	if (trc_armed())
		return trc_call_int(TEV_MKBUF, TEV_DID_ME, encoding, TEV_DID_MB, mkbuf_untraced);
	return mkbuf_untraced(encoding);
}

int pvm_freebuf(int mid)
{
	if (trc_armed())
		return trc_call_int(TEV_FREEBUF, TEV_DID_MB, mid, TEV_DID_CC, freebuf_untraced);
	return freebuf_untraced(mid);
}

int pvm_initsend(int encoding)
{
	if (trc_armed())
		return trc_call_int(TEV_INITSEND, TEV_DID_ME, encoding, TEV_DID_MSB, initsend_untraced);
	return initsend_untraced(encoding);
}

static int traced_bufinfo(int mid, int *len, int *tag, int *tid)
{
	int top = trc_claim();
	TRC_EVENT(top, TEV_BUFINFO, TEV_EVENT_ENTRY)
		trc_int(TEV_DID_MB, mid);
	int l, t, s;
	int cc = bufinfo_untraced(mid, &l, &t, &s);
	if (!cc) {
		if (len)
			*len = l;
		if (tag)
			*tag = t;
		if (tid)
			*tid = s;
	}
	TRC_EVENT(top, TEV_BUFINFO, TEV_EVENT_EXIT) {
		trc_int(TEV_DID_CC, cc);
		trc_int(TEV_DID_INB, cc ? cc : l);
		trc_int(TEV_DID_IMC, cc ? cc : t);
		trc_int(TEV_DID_IST, cc ? cc : s);
	}
	if (top)
		trc_release();
	return cc;
}

int pvm_bufinfo(int mid, int *len, int *tag, int *tid)
{
	if (trc_armed())
		return traced_bufinfo(mid, len, tag, tid);
	return bufinfo_untraced(mid, len, tag, tid);
}

int pvm_getsbuf(void)
{
	if (trc_armed())
		return trc_call_none(TEV_GETSBUF, TEV_DID_MSB, getsbuf_untraced);
	return getsbuf_untraced();
}

int pvm_getrbuf(void)
{
	if (trc_armed())
		return trc_call_none(TEV_GETRBUF, TEV_DID_MRB, getrbuf_untraced);
	return getrbuf_untraced();
}

int pvm_setsbuf(int mid)
{
	if (trc_armed())
		return trc_call_int(TEV_SETSBUF, TEV_DID_MB, mid, TEV_DID_MSB, setsbuf_untraced);
	return setsbuf_untraced(mid);
}

int pvm_setrbuf(int mid)
{
	if (trc_armed())
		return trc_call_int(TEV_SETRBUF, TEV_DID_MB, mid, TEV_DID_MRB, setrbuf_untraced);
	return setrbuf_untraced(mid);
}
