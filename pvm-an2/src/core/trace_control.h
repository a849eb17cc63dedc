/* The task-control messages that change tracing while a task runs (trace_control.c). */
#ifndef LPVM_TRACE_CONTROL_H
#define LPVM_TRACE_CONTROL_H

struct msg;

/* TC_SETTRACE, TC_SETTMASK, TC_SETTRCBUF, TC_SETTRCOPT: applies m (does not free it). */
void trc_control(struct msg *m);
/* Tells the pvmd of a new tracer or output destination that trc_control took in, once no
 * route is being read. */
void trc_control_flush(void);

#endif
