/* Fortran binding: groups (libgpvm3) and the predefined reduce operations. The datatype
 * codes of fpvm3.h (BYTE1 1 ... COMPLEX16 7, INTEGER8 8) equal PVM_BYTE ... PVM_LONG. */
#include <stdlib.h>

#include "fpvm.h"

/* A group call: *out = call(C group name), or PvmNoMem. */
#define WITH_GROUP(f, len, out, call)                       \
	do {                                                    \
		char *g_ = fpvm_cstring(f, len);                      \
		*(out) = g_ ? (call) : PvmNoMem;                    \
		free(g_);                                           \
	} while (0)

void pvmfjoingroup_(char *group, int *inum, flen_t len)
{
	WITH_GROUP(group, len, inum, pvm_joingroup(g_));
}
void pvmflvgroup_(char *group, int *info, flen_t len)
{
	WITH_GROUP(group, len, info, pvm_lvgroup(g_));
}
void pvmfgettid_(char *group, int *inum, int *tid, flen_t len)
{
	WITH_GROUP(group, len, tid, pvm_gettid(g_, *inum));
}
void pvmfgetinst_(char *group, int *tid, int *inum, flen_t len)
{
	WITH_GROUP(group, len, inum, pvm_getinst(g_, *tid));
}
void pvmfgsize_(char *group, int *size, flen_t len)
{
	WITH_GROUP(group, len, size, pvm_gsize(g_));
}
void pvmfbarrier_(char *group, int *count, int *info, flen_t len)
{
	WITH_GROUP(group, len, info, pvm_barrier(g_, *count));
}
void pvmfbcast_(char *group, int *msgtag, int *info, flen_t len)
{
	WITH_GROUP(group, len, info, pvm_bcast(g_, *msgtag));
}
void pvmffreezegroup_(char *group, int *size, int *info, flen_t len)
{
	WITH_GROUP(group, len, info, pvm_freezegroup(g_, *size));
}

/* func is a Fortran subroutine (datatype, x, y, num, info), all by reference: the same
 * call as the C operations, so it is handed to pvm_reduce as is. */
void pvmfreduce_(reduce_fn *func, void *data, int *count, int *datatype, int *msgtag, char *group,
                 int *rootinst, int *info, flen_t len)
{
	WITH_GROUP(group, len, info, pvm_reduce(func, data, *count, *datatype, *msgtag, g_, *rootinst));
}
void pvmfscatter_(void *result, void *data, int *count, int *datatype, int *msgtag, char *group,
                  int *rootinst, int *info, flen_t len)
{
	WITH_GROUP(group, len, info,
	           pvm_scatter(result, data, *count, *datatype, *msgtag, g_, *rootinst));
}
void pvmfgather_(void *result, void *data, int *count, int *datatype, int *msgtag, char *group,
                 int *rootinst, int *info, flen_t len)
{
	WITH_GROUP(group, len, info,
	           pvm_gather(result, data, *count, *datatype, *msgtag, g_, *rootinst));
}

/* EXTERNAL PvmSum etc. in Fortran name these. */
void pvmsum_(int *type, void *x, void *y, int *num, int *info) { PvmSum(type, x, y, num, info); }
void pvmmax_(int *type, void *x, void *y, int *num, int *info) { PvmMax(type, x, y, num, info); }
void pvmmin_(int *type, void *x, void *y, int *num, int *info) { PvmMin(type, x, y, num, info); }
void pvmproduct_(int *type, void *x, void *y, int *num, int *info)
{
	PvmProduct(type, x, y, num, info);
}
