/* Encoders and decoders: XDR (PvmDataDefault), native (PvmDataRaw) and PvmDataInPlace. */
#include "codec.h"

#include <pvm3.h>
#include <sys/time.h>   /* before <pvmtev.h> */
#include <pvmtev.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib_state.h"
#include "msg.h"

/* Element sizes in memory, indexed by PVM_* data type. */
static size_t mem_size(int type)
{
	switch (type) {
	case PVM_BYTE: return 1;
	case PVM_SHORT: case PVM_USHORT: return sizeof(short);
	case PVM_INT: case PVM_UINT: return sizeof(int);
	case PVM_LONG: case PVM_ULONG: return sizeof(long);
	case PVM_FLOAT: return sizeof(float);
	case PVM_CPLX: return 2 * sizeof(float);
	case PVM_DOUBLE: return sizeof(double);
	case PVM_DCPLX: return 2 * sizeof(double);
	default: return 0;
	}
}

/* ---- writing ---- */

/* Room for need contiguous bytes at the end of the message; NULL when out of memory. */
static char *reserve(struct msg *m, size_t need)
{
	struct frag *t = m->tail;
	if (!t || !t->mem || t->cap - t->len < need) {
		size_t cap = msg_frag_data_size();
		if (cap < need)
			cap = need;
		struct frag *f = frag_new(cap);
		if (!f)
			return NULL;
		msg_append_frag(m, f);
		t = f;
	}
	return t->data + t->len;
}

static int put_bytes(struct msg *m, const char *p, size_t n)
{
	while (n > 0) {
		struct frag *t = m->tail;
		if (!t || !t->mem || t->len == t->cap) {
			if (!reserve(m, 1))
				return PvmNoMem;
			t = m->tail;
		}
		size_t chunk = t->cap - t->len;
		if (chunk > n)
			chunk = n;
		memcpy(t->data + t->len, p, chunk);
		t->len += chunk;
		p += chunk;
		n -= chunk;
	}
	return 0;
}

static void put_be32(char *p, uint32_t v)
{
	p[0] = (char)(v >> 24);
	p[1] = (char)(v >> 16);
	p[2] = (char)(v >> 8);
	p[3] = (char)v;
}

static int put_xdr32(struct msg *m, uint32_t v)
{
	char *p = reserve(m, 4);
	if (!p)
		return PvmNoMem;
	put_be32(p, v);
	m->tail->len += 4;
	return 0;
}

static int put_xdr64(struct msg *m, uint64_t v)
{
	char *p = reserve(m, 8);
	if (!p)
		return PvmNoMem;
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
	m->tail->len += 8;
	return 0;
}

/* XDR pads byte runs to four bytes, counted in the current fragment as stock does. */
static int xdr_pad_out(struct msg *m)
{
	struct frag *t = m->tail;
	if (!t)
		return 0;
	size_t pad = (4 - (t->len & 3)) & 3;
	if (pad > t->cap - t->len)
		pad = t->cap - t->len;
	memset(t->data + t->len, 0, pad);
	t->len += pad;
	return 0;
}

static int pack_xdr(struct msg *m, int type, const char *p, int cnt, int std)
{
	size_t step = mem_size(type) * (size_t)std;
	int cc = 0;
	if (type == PVM_BYTE) {
		if (std == 1)
			cc = put_bytes(m, p, (size_t)cnt);
		else
			for (int i = 0; i < cnt && !cc; i++)
				cc = put_bytes(m, p + (size_t)i * step, 1);
		return cc ? cc : xdr_pad_out(m);
	}
	for (int i = 0; i < cnt && !cc; i++, p += step) {
		switch (type) {
		case PVM_SHORT: case PVM_USHORT: {
			short v;
			memcpy(&v, p, sizeof v);
			cc = put_xdr32(m, (uint32_t)(int32_t)v);
			break;
		}
		case PVM_INT: case PVM_UINT: {
			uint32_t v;
			memcpy(&v, p, sizeof v);
			cc = put_xdr32(m, v);
			break;
		}
		case PVM_LONG: case PVM_ULONG: {
			unsigned long v;   /* stock (libtirpc xdr_long) sends the low 32 bits */
			memcpy(&v, p, sizeof v);
			cc = put_xdr32(m, (uint32_t)v);
			break;
		}
		case PVM_FLOAT: case PVM_CPLX: {
			for (int k = 0; k < (type == PVM_CPLX ? 2 : 1) && !cc; k++) {
				uint32_t v;
				memcpy(&v, p + k * 4, 4);
				cc = put_xdr32(m, v);
			}
			break;
		}
		case PVM_DOUBLE: case PVM_DCPLX: {
			for (int k = 0; k < (type == PVM_DCPLX ? 2 : 1) && !cc; k++) {
				uint64_t v;
				memcpy(&v, p + k * 8, 8);
				cc = put_xdr64(m, v);
			}
			break;
		}
		default:
			return PvmBadParam;
		}
	}
	return cc;
}

static int pack_raw(struct msg *m, int type, const char *p, int cnt, int std)
{
	size_t size = mem_size(type);
	if (std == 1)
		return put_bytes(m, p, size * (size_t)cnt);
	int cc = 0;
	for (int i = 0; i < cnt && !cc; i++)
		cc = put_bytes(m, p + (size_t)i * size * (size_t)std, size);
	return cc;
}

static int pack_inplace(struct msg *m, int type, const char *p, int cnt, int std)
{
	if (std != 1)
		return PvmNotImpl;
	size_t n = mem_size(type) * (size_t)cnt;
	if (n == 0)
		return 0;
	struct frag *f = frag_new_inplace(p, n);
	if (!f)
		return PvmNoMem;
	msg_append_frag(m, f);
	return 0;
}

/* The trace encoding (PvmDataTrace, a user-defined trace event): XDR, each item announced by
 * its <pvmtev.h> data type, and its count when there are several; as stock, unsigned int and
 * short go as their signed kinds. */
static int trace_type(int type)
{
	switch (type) {
	case PVM_BYTE: return TEV_DATA_BYTE;
	case PVM_SHORT: case PVM_USHORT: return TEV_DATA_SHORT;
	case PVM_INT: case PVM_UINT: return TEV_DATA_INT;
	case PVM_LONG: return TEV_DATA_LONG;
	case PVM_ULONG: return TEV_DATA_ULONG;
	case PVM_FLOAT: return TEV_DATA_FLOAT;
	case PVM_DOUBLE: return TEV_DATA_DOUBLE;
	case PVM_CPLX: return TEV_DATA_CPLX;
	case PVM_DCPLX: return TEV_DATA_DCPLX;
	default: return TEV_DATA_NULL;
	}
}

static int pack_annotated(struct msg *m, int type, const char *p, int cnt, int std)
{
	if (cnt == 0)
		return 0;
	int head[2] = { trace_type(type) | (cnt > 1 ? TEV_DATA_ARRAY : TEV_DATA_SCALAR), cnt };
	int cc = pack_xdr(m, PVM_INT, (const char *)head, cnt > 1 ? 2 : 1, 1);
	return cc ? cc : pack_xdr(m, type, p, cnt, std);
}

int lpvm_pack_unannotated(struct msg *m, int type, const void *p, int cnt, int std)
{
	if (m->enc != ENC_TRACE)
		return lpvm_pack(m, type, p, cnt, std);
	if (cnt < 0 || std < 0 || (cnt > 0 && !p) || !mem_size(type))
		return PvmBadParam;
	m->mode = MODE_PACK;
	return pack_xdr(m, type, p, cnt, std);
}

int lpvm_pack(struct msg *m, int type, const void *p, int cnt, int std)
{
	/* stride 0 (every item from one place) is accepted as stock does: Debian's srm passes it */
	if (cnt < 0 || std < 0 || (cnt > 0 && !p) || !mem_size(type))
		return PvmBadParam;
	if (cnt == 0 && type != PVM_BYTE)
		return 0;
	m->mode = MODE_PACK;
	if (m->enc == ENC_XDR)
		return pack_xdr(m, type, p, cnt, std);
	if (m->enc == ENC_INPLACE)
		return pack_inplace(m, type, p, cnt, std);
	if (m->enc == lpvm.dsig)
		return pack_raw(m, type, p, cnt, std);
	if (m->enc == ENC_TRACE)
		return pack_annotated(m, type, p, cnt, std);
	return PvmBadMsg;
}

/* ---- reading ---- */

static int decodable(const struct msg *m)
{
	return m->enc == ENC_XDR || m->enc == ENC_INPLACE || m->enc == lpvm.dsig ||
	       m->enc == ENC_TRACE;
}

static int get_bytes(struct msg *m, char *out, size_t n)
{
	if (m->mode != MODE_UNPACK)
		msg_rewind(m);
	while (n > 0) {
		struct frag *f = m->rfrag;
		if (!f)
			return PvmNoData;
		if (m->rpos >= f->len) {
			m->rfrag = f->next;
			m->rpos = 0;
			continue;
		}
		size_t chunk = f->len - m->rpos;
		if (chunk > n)
			chunk = n;
		if (out) {
			memcpy(out, f->data + m->rpos, chunk);
			out += chunk;
		}
		m->rpos += chunk;
		n -= chunk;
	}
	return 0;
}

/* Bytes left to unpack. */
static size_t remaining(const struct msg *m)
{
	if (m->mode != MODE_UNPACK)
		return msg_length(m);
	size_t n = 0;
	for (const struct frag *f = m->rfrag; f; f = f->next)
		n += f->len - (f == m->rfrag ? m->rpos : 0);
	return n;
}

static void xdr_pad_in(struct msg *m)
{
	struct frag *f = m->rfrag;
	if (!f)
		return;
	size_t aligned = (m->rpos + 3) & ~(size_t)3;
	if (aligned > f->len)
		aligned = f->len;
	m->rpos = aligned;
}

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static int get_xdr32(struct msg *m, uint32_t *v)
{
	unsigned char b[4];
	int cc = get_bytes(m, (char *)b, 4);
	if (!cc)
		*v = be32(b);
	return cc;
}

static int get_xdr64(struct msg *m, uint64_t *v)
{
	unsigned char b[8];
	int cc = get_bytes(m, (char *)b, 8);
	if (!cc)
		*v = (uint64_t)be32(b) << 32 | be32(b + 4);
	return cc;
}

static int unpack_xdr(struct msg *m, int type, char *p, int cnt, int std)
{
	size_t step = mem_size(type) * (size_t)std;
	int cc = 0;
	if (type == PVM_BYTE) {
		if ((size_t)cnt > remaining(m))
			return PvmNoData;
		if (std == 1)
			cc = get_bytes(m, p, (size_t)cnt);
		else
			for (int i = 0; i < cnt && !cc; i++)
				cc = get_bytes(m, p + (size_t)i * step, 1);
		if (!cc)
			xdr_pad_in(m);
		return cc;
	}
	for (int i = 0; i < cnt && !cc; i++, p += step) {
		uint32_t w;
		uint64_t d;
		switch (type) {
		case PVM_SHORT: case PVM_USHORT:
			if (!(cc = get_xdr32(m, &w))) {
				short v = (short)(uint16_t)w;
				memcpy(p, &v, sizeof v);
			}
			break;
		case PVM_INT: case PVM_UINT:
			if (!(cc = get_xdr32(m, &w)))
				memcpy(p, &w, 4);
			break;
		case PVM_LONG: case PVM_ULONG:
			if (!(cc = get_xdr32(m, &w))) {
				unsigned long v = w;   /* stock (libtirpc) zero-extends */
				memcpy(p, &v, sizeof v);
			}
			break;
		case PVM_FLOAT: case PVM_CPLX:
			for (int k = 0; k < (type == PVM_CPLX ? 2 : 1) && !cc; k++)
				if (!(cc = get_xdr32(m, &w)))
					memcpy(p + k * 4, &w, 4);
			break;
		case PVM_DOUBLE: case PVM_DCPLX:
			for (int k = 0; k < (type == PVM_DCPLX ? 2 : 1) && !cc; k++)
				if (!(cc = get_xdr64(m, &d)))
					memcpy(p + k * 8, &d, 8);
			break;
		default:
			return PvmBadParam;
		}
	}
	return cc;
}

static int unpack_raw(struct msg *m, int type, char *p, int cnt, int std)
{
	size_t size = mem_size(type);
	if (size * (size_t)cnt > remaining(m))
		return PvmNoData;
	if (std == 1)
		return get_bytes(m, p, size * (size_t)cnt);
	int cc = 0;
	for (int i = 0; i < cnt && !cc; i++)
		cc = get_bytes(m, p + (size_t)i * size * (size_t)std, size);
	return cc;
}

int lpvm_unpack(struct msg *m, int type, void *p, int cnt, int std)
{
	if (cnt < 0 || std < 0 || (cnt > 0 && !p) || !mem_size(type))
		return PvmBadParam;
	if (!decodable(m))
		return PvmBadMsg;
	if (m->mode != MODE_UNPACK)
		msg_rewind(m);
	if (m->enc == ENC_XDR || m->enc == ENC_TRACE)   /* (the trace encoding's reader takes
	                                                  * the annotations as the ints they are) */
		return unpack_xdr(m, type, p, cnt, std);
	return unpack_raw(m, type, p, cnt, std);
}

/* ---- strings and internal helpers ---- */

int lpvm_pack_int(struct msg *m, int v)
{
	return lpvm_pack(m, PVM_INT, &v, 1, 1);
}

int lpvm_unpack_int(struct msg *m, int *v)
{
	return lpvm_unpack(m, PVM_INT, v, 1, 1);
}

int lpvm_pack_str(struct msg *m, const char *s)
{
	if (!s)
		return PvmBadParam;
	if (m->enc == ENC_INPLACE)
		return PvmNotImpl;
	if (m->enc == ENC_TRACE)   /* as stock: the characters alone, no length, no NUL */
		return strlen(s) > 0x7fffffff ? PvmBadParam : lpvm_pack(m, PVM_BYTE, s, (int)strlen(s), 1);
	size_t l = strlen(s) + 1;
	if (l > 0x7fffffff)
		return PvmBadParam;
	int n = (int)l;
	int cc = lpvm_pack(m, PVM_INT, &n, 1, 1);
	return cc ? cc : lpvm_pack(m, PVM_BYTE, s, n, 1);
}

int lpvm_pack_strs(struct msg *m, char **s, int count)
{
	int cc = lpvm_pack_int(m, count);
	for (int i = 0; i < count && !cc; i++)
		cc = lpvm_pack_str(m, s[i] ? s[i] : "");
	return cc;
}

/* Reads a string length and checks it against what the message still holds. */
static int unpack_str_len(struct msg *m, int *len)
{
	int cc = lpvm_unpack_int(m, len);
	if (cc)
		return cc;
	if (*len < 0 || (size_t)*len > remaining(m))
		return PvmNoData;
	return 0;
}

int lpvm_unpack_str_alloc(struct msg *m, char **s)
{
	int len;
	*s = NULL;
	int cc = unpack_str_len(m, &len);
	if (cc)
		return cc;
	char *b = malloc((size_t)len + 1);
	if (!b)
		return PvmNoMem;
	cc = lpvm_unpack(m, PVM_BYTE, b, len, 1);
	if (cc) {
		free(b);
		return cc;
	}
	b[len] = 0;   /* a peer that forgot the NUL still gives a string */
	*s = b;
	return 0;
}

int lpvm_unpack_str(struct msg *m, char *s)
{
	int len;
	int cc = unpack_str_len(m, &len);
	return cc ? cc : lpvm_unpack(m, PVM_BYTE, s, len, 1);
}
