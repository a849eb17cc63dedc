/* The pack and unpack calls of <pvm3.h> (pvm_pk*, pvm_upk*) on the active buffers. */
#include <pvm3.h>

#include "codec.h"
#include "errors.h"
#include "lib_state.h"
#include "trace.h"

static int pkstr_untraced(char *s);
static int upkstr_untraced(char *s);

/* The pack events follow <pvmtev.h>'s order from TEV_PKBYTE (and TEV_UPKBYTE): byte, cplx,
 * dcplx, double, float, int, uint, long, ulong, short, ushort, str. */
static int pack_event_offset(int type)
{
	switch (type) {
	case PVM_CPLX: return TEV_PKCPLX - TEV_PKBYTE;
	case PVM_DCPLX: return TEV_PKDCPLX - TEV_PKBYTE;
	case PVM_DOUBLE: return TEV_PKDOUBLE - TEV_PKBYTE;
	case PVM_FLOAT: return TEV_PKFLOAT - TEV_PKBYTE;
	case PVM_INT: return TEV_PKINT - TEV_PKBYTE;
	case PVM_UINT: return TEV_PKUINT - TEV_PKBYTE;
	case PVM_LONG: return TEV_PKLONG - TEV_PKBYTE;
	case PVM_ULONG: return TEV_PKULONG - TEV_PKBYTE;
	case PVM_SHORT: return TEV_PKSHORT - TEV_PKBYTE;
	case PVM_USHORT: return TEV_PKUSHORT - TEV_PKBYTE;
	default: return 0;
	}
}

static int pk_untraced(const char *fn, int type, const void *p, int cnt, int std)
{
	if (!lpvm.sbuf)
		return lpvm_error(fn, PvmNoBuf);
	int cc = lpvm_pack(lpvm.sbuf, type, p, cnt, std);
	return cc < 0 ? lpvm_error(fn, cc) : PvmOk;
}

static int upk_untraced(const char *fn, int type, void *p, int cnt, int std)
{
	if (!lpvm.rbuf)
		return lpvm_error(fn, PvmNoBuf);
	int cc = lpvm_unpack(lpvm.rbuf, type, p, cnt, std);
	return cc < 0 ? lpvm_error(fn, cc) : PvmOk;
}

/* A pack or unpack call as the tracer sees it: address, count and stride in, the code out
 * (the string calls: the address alone). kind is the TEV_PK* or TEV_UPK* event. */
static int traced_pack(int kind, int unpack, const char *fn, int type, void *p, int cnt,
                       int std)
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY) {
		trc_long(TEV_DID_PDA, (long)p);
		if (type != PVM_STR) {
			trc_int(TEV_DID_PC, cnt);
			trc_int(TEV_DID_PSD, std);
		}
	}
	int cc = type == PVM_STR ? (unpack ? upkstr_untraced(p) : pkstr_untraced(p))
	       : unpack ? upk_untraced(fn, type, p, cnt, std) : pk_untraced(fn, type, p, cnt, std);
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

static int pk(const char *fn, int type, const void *p, int cnt, int std)
{
	if (trc_armed())
		return traced_pack(TEV_PKBYTE + pack_event_offset(type), 0, fn, type, (void *)p, cnt, std);
	return pk_untraced(fn, type, p, cnt, std);
}

static int upk(const char *fn, int type, void *p, int cnt, int std)
{
	if (trc_armed())
		return traced_pack(TEV_UPKBYTE + pack_event_offset(type), 1, fn, type, p, cnt, std);
	return upk_untraced(fn, type, p, cnt, std);
}

int pvm_pkbyte(char *p, int n, int s) { return pk("pvm_pkbyte", PVM_BYTE, p, n, s); }
int pvm_pkshort(short *p, int n, int s) { return pk("pvm_pkshort", PVM_SHORT, p, n, s); }
int pvm_pkushort(unsigned short *p, int n, int s) { return pk("pvm_pkushort", PVM_USHORT, p, n, s); }
int pvm_pkint(int *p, int n, int s) { return pk("pvm_pkint", PVM_INT, p, n, s); }
int pvm_pkuint(unsigned int *p, int n, int s) { return pk("pvm_pkuint", PVM_UINT, p, n, s); }
int pvm_pklong(long *p, int n, int s) { return pk("pvm_pklong", PVM_LONG, p, n, s); }
int pvm_pkulong(unsigned long *p, int n, int s) { return pk("pvm_pkulong", PVM_ULONG, p, n, s); }
int pvm_pkfloat(float *p, int n, int s) { return pk("pvm_pkfloat", PVM_FLOAT, p, n, s); }
int pvm_pkdouble(double *p, int n, int s) { return pk("pvm_pkdouble", PVM_DOUBLE, p, n, s); }
int pvm_pkcplx(float *p, int n, int s) { return pk("pvm_pkcplx", PVM_CPLX, p, n, s); }
int pvm_pkdcplx(double *p, int n, int s) { return pk("pvm_pkdcplx", PVM_DCPLX, p, n, s); }

int pvm_upkbyte(char *p, int n, int s) { return upk("pvm_upkbyte", PVM_BYTE, p, n, s); }
int pvm_upkshort(short *p, int n, int s) { return upk("pvm_upkshort", PVM_SHORT, p, n, s); }
int pvm_upkushort(unsigned short *p, int n, int s) { return upk("pvm_upkushort", PVM_USHORT, p, n, s); }
int pvm_upkint(int *p, int n, int s) { return upk("pvm_upkint", PVM_INT, p, n, s); }
int pvm_upkuint(unsigned int *p, int n, int s) { return upk("pvm_upkuint", PVM_UINT, p, n, s); }
int pvm_upklong(long *p, int n, int s) { return upk("pvm_upklong", PVM_LONG, p, n, s); }
int pvm_upkulong(unsigned long *p, int n, int s) { return upk("pvm_upkulong", PVM_ULONG, p, n, s); }
int pvm_upkfloat(float *p, int n, int s) { return upk("pvm_upkfloat", PVM_FLOAT, p, n, s); }
int pvm_upkdouble(double *p, int n, int s) { return upk("pvm_upkdouble", PVM_DOUBLE, p, n, s); }
int pvm_upkcplx(float *p, int n, int s) { return upk("pvm_upkcplx", PVM_CPLX, p, n, s); }
int pvm_upkdcplx(double *p, int n, int s) { return upk("pvm_upkdcplx", PVM_DCPLX, p, n, s); }

static int pkstr_untraced(char *s)
{
	if (!lpvm.sbuf)
		return lpvm_error("pvm_pkstr", PvmNoBuf);
	int cc = lpvm_pack_str(lpvm.sbuf, s);
	return cc < 0 ? lpvm_error("pvm_pkstr", cc) : PvmOk;
}

static int upkstr_untraced(char *s)
{
	if (!lpvm.rbuf)
		return lpvm_error("pvm_upkstr", PvmNoBuf);
	if (!s)
		return lpvm_error("pvm_upkstr", PvmBadParam);
	int cc = lpvm_unpack_str(lpvm.rbuf, s);
	return cc < 0 ? lpvm_error("pvm_upkstr", cc) : PvmOk;
}

int pvm_pkstr(char *s)
{
	if (trc_armed())
		return traced_pack(TEV_PKSTR, 0, "pvm_pkstr", PVM_STR, s, 1, 1);
	return pkstr_untraced(s);
}

int pvm_upkstr(char *s)
{
	if (trc_armed())
		return traced_pack(TEV_UPKSTR, 1, "pvm_upkstr", PVM_STR, s, 1, 1);
	return upkstr_untraced(s);
}
