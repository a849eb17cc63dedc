/* The tracing hook of the group library (libgpvm3-an2), its one interface into libpvm3-an2
 * beyond <pvm3.h>: a group call is traced as stock's libgpvm3 traces it, with the entry and
 * exit events of one traced call of this library, so that the PVM calls it makes meanwhile
 * (to pvmgs, to the members) are not traced, as in stock. */
#include "trace.h"

/* Exported (exports.map); declared by the group library itself (groups/src/group_trace.c). */
int lpvm_group_trace_begin(int kind, const char *group, int did, const int *arg);
void lpvm_group_trace_end(int top, int kind, int did, int value, const int *list, int nlist);

int lpvm_group_trace_begin(int kind, const char *group, int did, const int *arg)
{
	if (!trc_armed() || kind < 0 || kind > TEV_MAX)
		return 0;
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY) {
		trc_str(TEV_DID_GN, group);
		if (arg)
			trc_int(did, *arg);
	}
	return top;
}

void lpvm_group_trace_end(int top, int kind, int did, int value, const int *list, int nlist)
{
	if (!top)
		return;
	TRC_EVENT(top, kind, TEV_EVENT_EXIT) {
		trc_int(did, value);
		if (nlist >= 0)   /* (pvm_bcast: the tids it sent to) */
			trc_ints(TEV_DID_MDL, list, nlist);
	}
	trc_release();
}
