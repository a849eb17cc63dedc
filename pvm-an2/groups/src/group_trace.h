/* Trace events of the group calls, as stock's libgpvm3 sends them (group_trace.c). */
#ifndef GROUP_TRACE_H
#define GROUP_TRACE_H

#include <sys/time.h>   /* before <pvmtev.h>, whose structures hold timevals */
#include <pvmtev.h>

/* A group call begins: its entry event (the group's name, then *arg as datum did if arg is not
 * NULL) if the task traces kind. Returns the token grp_trace_end takes. While a traced group
 * call runs, the PVM calls it makes are not traced. */
int grp_trace_begin(int kind, const char *group, int did, const int *arg);
/* ... and ends: its exit event (value as datum did; pvm_bcast adds the tids it sent to, list
 * and n, with grp_trace_end_list). */
void grp_trace_end(int top, int kind, int did, int value);
void grp_trace_end_list(int top, int kind, int did, int value, const int *list, int n);

#endif
