/* The pack and unpack calls of <pvm3.h> (pvm_pk*, pvm_upk*) on the active buffers. */
#include <pvm3.h>

#include "codec.h"
#include "errors.h"
#include "lib_state.h"

static int pk(const char *fn, int type, const void *p, int cnt, int std)
{
	if (!lpvm.sbuf)
		return lpvm_error(fn, PvmNoBuf);
	int cc = lpvm_pack(lpvm.sbuf, type, p, cnt, std);
	return cc < 0 ? lpvm_error(fn, cc) : PvmOk;
}

static int upk(const char *fn, int type, void *p, int cnt, int std)
{
	if (!lpvm.rbuf)
		return lpvm_error(fn, PvmNoBuf);
	int cc = lpvm_unpack(lpvm.rbuf, type, p, cnt, std);
	return cc < 0 ? lpvm_error(fn, cc) : PvmOk;
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

int pvm_pkstr(char *s)
{
	if (!lpvm.sbuf)
		return lpvm_error("pvm_pkstr", PvmNoBuf);
	int cc = lpvm_pack_str(lpvm.sbuf, s);
	return cc < 0 ? lpvm_error("pvm_pkstr", cc) : PvmOk;
}

int pvm_upkstr(char *s)
{
	if (!lpvm.rbuf)
		return lpvm_error("pvm_upkstr", PvmNoBuf);
	if (!s)
		return lpvm_error("pvm_upkstr", PvmBadParam);
	int cc = lpvm_unpack_str(lpvm.rbuf, s);
	return cc < 0 ? lpvm_error("pvm_upkstr", cc) : PvmOk;
}
