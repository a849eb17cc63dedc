/* Message mailboxes kept by the pvmd (TM_DB): putinfo, recvinfo, delinfo, getmboxinfo, and
 * the message-in-a-message packing they travel with (pkmesg, pkmesgbody, upkmesg). */

#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "mbox.h"
#include "msg.h"
#include "requests.h"
#include "trace.h"

/* A whole message (header fields and fragments) packed into m, as stock does. */
static int pack_message(struct msg *m, struct msg *inner)
{
	int hdr[8] = { (int)msg_length(inner), inner->ctx, inner->tag, inner->wid, inner->enc,
	               inner->crc, inner->src, inner->dst };
	int cc = lpvm_pack(m, PVM_INT, hdr, 8, 1);
	for (struct frag *f = inner->head; f && !cc; f = f->next) {
		int len = (int)f->len;
		cc = lpvm_pack_int(m, len);
		if (!cc)
			cc = lpvm_pack(m, PVM_BYTE, f->data, len, 1);
	}
	return cc;
}

/* The reverse: a new registered message, or NULL with *err set. */
struct msg *unpack_message(struct msg *m, int *err)
{
	int hdr[8];
	*err = lpvm_unpack(m, PVM_INT, hdr, 8, 1);
	if (*err)
		return NULL;
	if (hdr[0] < 0) {
		*err = PvmBadMsg;
		return NULL;
	}
	struct msg *inner = msg_new(hdr[4]);
	if (!inner) {
		*err = PvmNoMem;
		return NULL;
	}
	inner->ctx = hdr[1];
	inner->tag = hdr[2];
	inner->wid = hdr[3];
	inner->crc = hdr[5];
	inner->src = hdr[6];
	inner->dst = hdr[7];
	int empty = 0;
	for (int left = hdr[0]; left > 0 && !*err;) {
		int len;
		*err = lpvm_unpack_int(m, &len);
		if (!*err && (len < 0 || len > left))
			*err = PvmBadMsg;   /* fragments must add up to the announced length */
		if (!*err && len == 0 && ++empty > 1024)
			*err = PvmBadMsg;   /* the pvmd sends empty fragments, but not without end */
		if (!*err && len == 0)
			continue;
		struct frag *f = *err ? NULL : frag_new((size_t)len);
		if (!*err && !f)
			*err = PvmNoMem;
		if (!*err)
			*err = lpvm_unpack(m, PVM_BYTE, f->data, len, 1);
		if (f && !*err) {
			f->len = (size_t)len;
			msg_append_frag(inner, f);
			left -= len;
		} else {
			frag_free(f);
		}
	}
	if (*err) {
		msg_free(inner);
		return NULL;
	}
	msg_rewind(inner);
	inner->mode = MODE_NONE;
	return inner;
}

int pvm_pkmesg(int mid)
{
	struct msg *inner = mid > 0 ? msg_lookup(mid) : NULL;
	int cc = mid <= 0 ? PvmBadParam : !inner ? PvmNoSuchBuf : !lpvm.sbuf ? PvmNoBuf
	         : inner == lpvm.sbuf ? PvmBadParam : pack_message(lpvm.sbuf, inner);
	return cc < 0 ? lpvm_error("pvm_pkmesg", cc) : cc;
}

int pvm_pkmesgbody(int mid)
{
	struct msg *inner = mid > 0 ? msg_lookup(mid) : NULL;
	int cc = mid <= 0 ? PvmBadParam : !inner ? PvmNoSuchBuf : !lpvm.sbuf ? PvmNoBuf
	         : inner == lpvm.sbuf ? PvmBadParam : inner->enc != lpvm.sbuf->enc ? PvmMismatch : 0;
	for (struct frag *f = inner && !cc ? inner->head : NULL; f && !cc; f = f->next) {
		struct frag *copy = frag_new(f->len);   /* stock shares; a copy is simpler and safe */
		if (!copy) {
			cc = PvmNoMem;
			break;
		}
		memcpy(copy->data, f->data, f->len);
		copy->len = f->len;
		msg_append_frag(lpvm.sbuf, copy);
	}
	return cc < 0 ? lpvm_error("pvm_pkmesgbody", cc) : cc;
}

int pvm_upkmesg(void)
{
	if (!lpvm.rbuf)
		return lpvm_error("pvm_upkmesg", PvmNoBuf);
	int cc;
	struct msg *inner = unpack_message(lpvm.rbuf, &cc);
	return inner ? inner->mid : lpvm_error("pvm_upkmesg", cc);
}

/* TM_DB request { op, tid, name, index, flags [, message] } -> reply; returns the status. */
int db_call(int op, const char *name, int index, int flags, struct msg *payload,
                   struct msg **reply)
{
	int cc = lpvm_attach();
	if (cc)
		return cc;
	struct msg *req = msg_new(ENC_XDR);
	if (!req)
		return PvmNoMem;
	cc = lpvm_pack_int(req, op);
	if (!cc) cc = lpvm_pack_int(req, lpvm.mytid);
	if (!cc) cc = lpvm_pack_str(req, name);
	if (!cc) cc = lpvm_pack_int(req, index);
	if (!cc) cc = lpvm_pack_int(req, flags);
	if (!cc && payload)
		cc = pack_message(req, payload);
	struct msg *rep = NULL;
	if (!cc)
		cc = lpvm_daemon_call(req, TM_DB, &rep);
	msg_free(req);
	int status = 0;
	if (!cc && lpvm_unpack_int(rep, &status))
		cc = PvmSysErr;
	if (cc) {
		msg_free(rep);
		return cc;
	}
	if (reply)
		*reply = rep;
	else
		msg_free(rep);
	return status;
}

static int putinfo_untraced(char *name, int mid, int flags)
{
	if (!name || !*name)
		return lpvm_error("pvm_putinfo", PvmBadParam);
	struct msg *m = msg_lookup(mid);
	if (!m)
		return lpvm_error("pvm_putinfo", mid <= 0 ? PvmBadParam : PvmNoSuchBuf);
	int cc = db_call(TMDB_PUT, name, -1, flags, m, NULL);
	if (cc == PvmDenied || cc == PvmExists)
		pvm_errno = cc;   /* expected answers: no automatic report, as stock */
	else if (cc < 0)
		lpvm_error("pvm_putinfo", cc);
	return cc;
}

/* the message's id, or the error; *status: the pvmd's answer */
static int recvinfo_untraced(char *name, int index, int flags, int *status)
{
	*status = PvmBadParam;
	if (!name || !*name || index < 0)
		return lpvm_error("pvm_recvinfo", PvmBadParam);
	if (lpvm.rbuf) {   /* like a receive, it replaces the receive buffer */
		msg_free(lpvm.rbuf);
		lpvm.rbuf = NULL;
	}
	struct msg *rep = NULL;
	int cc = *status = db_call(TMDB_GET, name, index, flags, NULL, &rep);
	if (cc >= 0) {
		struct msg *inner = unpack_message(rep, &cc);
		msg_free(rep);
		if (inner) {
			lpvm.rbuf = inner;
			return inner->mid;
		}
	} else {
		msg_free(rep);
	}
	if (cc == PvmNotFound)
		pvm_errno = cc;
	else
		lpvm_error("pvm_recvinfo", cc);
	return cc;
}

static int delinfo_untraced(char *name, int index, int flags)
{
	if (!name || !*name || index < 0)
		return lpvm_error("pvm_delinfo", PvmBadParam);
	int cc = db_call(TMDB_REMOVE, name, index, flags, NULL, NULL);
	if (cc == PvmDenied || cc == PvmNotFound)
		pvm_errno = cc;
	else if (cc < 0)
		lpvm_error("pvm_delinfo", cc);
	return cc;
}

static struct pvmmboxinfo *classes;
static int nclasses;

static void free_classes(void)
{
	for (int i = 0; i < nclasses; i++) {
		free(classes[i].mi_name);
		free(classes[i].mi_indices);
		free(classes[i].mi_owners);
		free(classes[i].mi_flags);
	}
	free(classes);
	classes = NULL;
	nclasses = 0;
}

static int getmboxinfo_untraced(char *pattern, int *nclassesp, struct pvmmboxinfo **classesp)
{
	free_classes();
	struct msg *rep = NULL;
	int cc = db_call(TMDB_NAMES, pattern ? pattern : "", 0, 0, NULL, &rep);
	if (cc < 0)
		return lpvm_error("pvm_getmboxinfo", cc);
	int n = 0;
	if (lpvm_unpack_int(rep, &n) || n < 0 || n > 1 << 16)
		cc = PvmSysErr;
	else if (!(classes = calloc((size_t)(n ? n : 1), sizeof *classes)))
		cc = PvmNoMem;
	for (int i = 0; i < n && cc >= 0; i++, nclasses++) {
		struct pvmmboxinfo *c = &classes[i];
		int k;
		if (lpvm_unpack_str_alloc(rep, &c->mi_name) || lpvm_unpack_int(rep, &k) || k < 0
		    || k > 1 << 16) {
			cc = PvmSysErr;
			break;
		}
		c->mi_nentries = k;
		c->mi_indices = calloc((size_t)(k ? k : 1), sizeof(int));
		c->mi_owners = calloc((size_t)(k ? k : 1), sizeof(int));
		c->mi_flags = calloc((size_t)(k ? k : 1), sizeof(int));
		if (!c->mi_indices || !c->mi_owners || !c->mi_flags)
			cc = PvmNoMem;
		for (int j = 0; j < k && cc >= 0; j++)
			if (lpvm_unpack_int(rep, &c->mi_indices[j]) || lpvm_unpack_int(rep, &c->mi_owners[j])
			    || lpvm_unpack_int(rep, &c->mi_flags[j]))
				cc = PvmSysErr;
	}
	msg_free(rep);
	if (cc < 0) {
		if (classes)
			nclasses = n;   /* calloc'ed: entries not reached hold NULLs */
		free_classes();
		return lpvm_error("pvm_getmboxinfo", cc);
	}
	if (nclassesp)
		*nclassesp = nclasses;
	if (classesp)
		*classesp = classes;
	return 0;
}

/* The four calls as stock traces them: class name, index (-1 for putinfo), flags (and
 * putinfo's message) in; the answer (and recvinfo's message) out. */
static int traced_entry(int kind, char *name, int index, int flags)
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY) {
		trc_str(TEV_DID_CN, name);
		trc_int(TEV_DID_CI, index);
		trc_int(TEV_DID_CF, flags);
	}
	return top;
}

static void traced_exit(int top, int kind, int cc)
{
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
}

int pvm_putinfo(char *name, int mid, int flags)
{
	if (!trc_armed())
		return putinfo_untraced(name, mid, flags);
	int top = trc_claim();
	TRC_EVENT(top, TEV_PUTINFO, TEV_EVENT_ENTRY) {
		trc_str(TEV_DID_CN, name);
		trc_int(TEV_DID_CI, -1);
		trc_int(TEV_DID_CF, flags);
		trc_int(TEV_DID_CD, mid);
	}
	int cc = putinfo_untraced(name, mid, flags);
	traced_exit(top, TEV_PUTINFO, cc);
	return cc;
}

int pvm_recvinfo(char *name, int index, int flags)
{
	int status;
	if (!trc_armed())
		return recvinfo_untraced(name, index, flags, &status);
	int top = traced_entry(TEV_GETINFO, name, index, flags);
	int mid = recvinfo_untraced(name, index, flags, &status);
	TRC_EVENT(top, TEV_GETINFO, TEV_EVENT_EXIT) {
		trc_int(TEV_DID_CC, status);
		trc_int(TEV_DID_CR, mid > 0 ? mid : -1);
	}
	if (top)
		trc_release();
	return mid;
}

int pvm_delinfo(char *name, int index, int flags)
{
	if (!trc_armed())
		return delinfo_untraced(name, index, flags);
	int top = traced_entry(TEV_DELINFO, name, index, flags);
	int cc = delinfo_untraced(name, index, flags);
	traced_exit(top, TEV_DELINFO, cc);
	return cc;
}

int pvm_getmboxinfo(char *pattern, int *nclassesp, struct pvmmboxinfo **classesp)
{
	if (!trc_armed())
		return getmboxinfo_untraced(pattern, nclassesp, classesp);
	int top = trc_claim();
	TRC_EVENT(top, TEV_GETMBOXINFO, TEV_EVENT_ENTRY)
		trc_str(TEV_DID_CN, pattern);
	int cc = getmboxinfo_untraced(pattern, nclassesp, classesp);
	traced_exit(top, TEV_GETMBOXINFO, cc);
	return cc;
}
