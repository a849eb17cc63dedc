/* Fortran binding: buffers, packing, sending, receiving, message handlers. */
#include <stddef.h>

#include "fpvm.h"

void pvmfinitsend_(int *encoding, int *bufid) { *bufid = pvm_initsend(*encoding); }
void pvmfmkbuf_(int *encoding, int *bufid) { *bufid = pvm_mkbuf(*encoding); }
void pvmffreebuf_(int *bufid, int *info) { *info = pvm_freebuf(*bufid); }
void pvmfgetsbuf_(int *bufid) { *bufid = pvm_getsbuf(); }
void pvmfgetrbuf_(int *bufid) { *bufid = pvm_getrbuf(); }
void pvmfsetsbuf_(int *bufid, int *oldbuf) { *oldbuf = pvm_setsbuf(*bufid); }
void pvmfsetrbuf_(int *bufid, int *oldbuf) { *oldbuf = pvm_setrbuf(*bufid); }
void pvmfbufinfo_(int *bufid, int *bytes, int *msgtag, int *tid, int *info)
{
	*info = pvm_bufinfo(*bufid, bytes, msgtag, tid);
}
void pvmfsend_(int *tid, int *msgtag, int *info) { *info = pvm_send(*tid, *msgtag); }
void pvmfmcast_(int *ntask, int *tids, int *msgtag, int *info)
{
	*info = pvm_mcast(tids, *ntask, *msgtag);
}
void pvmfrecv_(int *tid, int *msgtag, int *bufid) { *bufid = pvm_recv(*tid, *msgtag); }
void pvmfnrecv_(int *tid, int *msgtag, int *bufid) { *bufid = pvm_nrecv(*tid, *msgtag); }
void pvmfprobe_(int *tid, int *msgtag, int *bufid) { *bufid = pvm_probe(*tid, *msgtag); }

/* sec = -1: wait for ever */
void pvmftrecv_(int *tid, int *msgtag, int *sec, int *usec, int *bufid)
{
	struct timeval tv = { *sec, *usec };
	*bufid = pvm_trecv(*tid, *msgtag, *sec == -1 ? NULL : &tv);
}

void pvmfpsend_(int *tid, int *msgtag, void *buf, int *len, int *datatype, int *info)
{
	*info = pvm_psend(*tid, *msgtag, buf, *len, *datatype);
}

void pvmfprecv_(int *tid, int *msgtag, void *buf, int *len, int *datatype, int *atid, int *atag,
                int *alen, int *info)
{
	*info = pvm_precv(*tid, *msgtag, buf, *len, *datatype, atid, atag, alen);
}

/* The C handler is called with the message id by value: a Fortran handler cannot take it
 * (the man page says "Fortran: not available"); offered for C handlers passed from Fortran. */
void pvmfaddmhf_(int *src, int *tag, int *ctx, int (*handler)(int), int *mhid)
{
	*mhid = pvm_addmhf(*src, *tag, *ctx, handler);
}
void pvmfdelmhf_(int *mhid, int *info) { *info = pvm_delmhf(*mhid); }

/* what: STRING 0, BYTE1 1, INTEGER2 2, INTEGER4 3, REAL4 4, COMPLEX8 5, REAL8 6, COMPLEX16 7,
 * INTEGER8 8 (fpvm3.h). A STRING is nitem characters, packed as bytes. */
void pvmfpack_(int *what, void *xp, int *nitem, int *stride, int *info)
{
	int n = *nitem, s = *stride;
	switch (*what) {
	case 0: case 1: *info = pvm_pkbyte(xp, n, s); break;
	case 2: *info = pvm_pkshort(xp, n, s); break;
	case 3: *info = pvm_pkint(xp, n, s); break;
	case 4: *info = pvm_pkfloat(xp, n, s); break;
	case 5: *info = pvm_pkcplx(xp, n, s); break;
	case 6: *info = pvm_pkdouble(xp, n, s); break;
	case 7: *info = pvm_pkdcplx(xp, n, s); break;
	case 8: *info = pvm_pklong(xp, n, s); break;
	default: *info = PvmBadParam;
	}
}

void pvmfunpack_(int *what, void *xp, int *nitem, int *stride, int *info)
{
	int n = *nitem, s = *stride;
	switch (*what) {
	case 0: case 1: *info = pvm_upkbyte(xp, n, s); break;
	case 2: *info = pvm_upkshort(xp, n, s); break;
	case 3: *info = pvm_upkint(xp, n, s); break;
	case 4: *info = pvm_upkfloat(xp, n, s); break;
	case 5: *info = pvm_upkcplx(xp, n, s); break;
	case 6: *info = pvm_upkdouble(xp, n, s); break;
	case 7: *info = pvm_upkdcplx(xp, n, s); break;
	case 8: *info = pvm_upklong(xp, n, s); break;
	default: *info = PvmBadParam;
	}
}
