/* The data types the collective calls move (PVM_STR ... PVM_LONG of <pvm3.h>): element size,
 * and packing/unpacking by type with the public pvm_pk and pvm_upk calls. */
#include "datatypes.h"

int grp_type_size(int type)
{
	switch (type) {
	case PVM_STR:
	case PVM_BYTE: return 1;
	case PVM_SHORT: return (int)sizeof(short);
	case PVM_INT: return (int)sizeof(int);
	case PVM_LONG: return (int)sizeof(long);
	case PVM_FLOAT: return (int)sizeof(float);
	case PVM_DOUBLE: return (int)sizeof(double);
	case PVM_CPLX: return 2 * (int)sizeof(float);
	case PVM_DCPLX: return 2 * (int)sizeof(double);
	default: return PvmBadParam;   /* the unsigned types too, as stock */
	}
}

int grp_pack(int type, void *p, int n)
{
	switch (type) {
	case PVM_STR: return pvm_pkstr(p);
	case PVM_BYTE: return pvm_pkbyte(p, n, 1);
	case PVM_SHORT: return pvm_pkshort(p, n, 1);
	case PVM_INT: return pvm_pkint(p, n, 1);
	case PVM_LONG: return pvm_pklong(p, n, 1);
	case PVM_FLOAT: return pvm_pkfloat(p, n, 1);
	case PVM_DOUBLE: return pvm_pkdouble(p, n, 1);
	case PVM_CPLX: return pvm_pkcplx(p, n, 1);
	case PVM_DCPLX: return pvm_pkdcplx(p, n, 1);
	default: return PvmBadParam;
	}
}

int grp_unpack(int type, void *p, int n)
{
	switch (type) {
	case PVM_STR: return pvm_upkstr(p);
	case PVM_BYTE: return pvm_upkbyte(p, n, 1);
	case PVM_SHORT: return pvm_upkshort(p, n, 1);
	case PVM_INT: return pvm_upkint(p, n, 1);
	case PVM_LONG: return pvm_upklong(p, n, 1);
	case PVM_FLOAT: return pvm_upkfloat(p, n, 1);
	case PVM_DOUBLE: return pvm_upkdouble(p, n, 1);
	case PVM_CPLX: return pvm_upkcplx(p, n, 1);
	case PVM_DCPLX: return pvm_upkdcplx(p, n, 1);
	default: return PvmBadParam;
	}
}
