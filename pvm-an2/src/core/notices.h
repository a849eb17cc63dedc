/* The PvmTaskExit and PvmHostDelete notices pvm_notify asked the pvmd for (notices.c). */
#ifndef LPVM_NOTICES_H
#define LPVM_NOTICES_H

struct msg;

/* A request (or its cancel) sent to the pvmd: for tids (tasks or pvmds), tag, ctx. */
void lpvm_notices_asked(int cancel, int tag, int ctx, const int *tids, int count);
/* An arriving message: the task or pvmd tid it says has gone, or 0 (not such a notice, or
 * the answer to a cancel). Called once per message; leaves its unpack position alone. */
int lpvm_notice_gone(struct msg *m);
/* The application gets the notice about tid: lpvm_notices_flush() tells the routes. */
void lpvm_notice_delivered(int tid);
void lpvm_notices_flush(void);   /* from control_flush(), where no route is being read */
void lpvm_notices_clear(void);   /* the task left: no notice is to come */

#endif
