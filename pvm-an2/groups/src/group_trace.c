/* Trace events of the group calls through libpvm3-an2's hook (lpvm_group_trace_begin/_end,
 * exported by libpvm3-an2 and its drop-in). On a libpvm3 without the hook (Debian's) the
 * names are not bound and nothing is traced: the group library still runs on any libpvm3. */
#include "group_trace.h"

#include <stddef.h>

int lpvm_group_trace_begin(int kind, const char *group, int did, const int *arg)
	__attribute__((weak));
void lpvm_group_trace_end(int top, int kind, int did, int value, const int *list, int nlist)
	__attribute__((weak));

int grp_trace_begin(int kind, const char *group, int did, const int *arg)
{
	return lpvm_group_trace_begin ? lpvm_group_trace_begin(kind, group, did, arg) : 0;
}

void grp_trace_end(int top, int kind, int did, int value)
{
	grp_trace_end_list(top, kind, did, value, NULL, -1);
}

void grp_trace_end_list(int top, int kind, int did, int value, const int *list, int n)
{
	if (top && lpvm_group_trace_end)
		lpvm_group_trace_end(top, kind, did, value, list, n);
}
