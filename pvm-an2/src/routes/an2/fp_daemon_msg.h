/* fp_daemon_msg.h — the AN2 route's own messages through the pvmd route (fp_daemon_msg.c). */
#ifndef AN2PVM_FP_DAEMON_MSG_H
#define AN2PVM_FP_DAEMON_MSG_H


struct msg;

/* m to dst by the pvmd route itself (no other route is re-entered, no pump): 0 or < 0 */
int fp_daemon_send(struct msg *m, int dst, int tag, int ctx);
int fp_send_ctl(int tid, int tag, int value);   /* [value] in FP_CTX, so */

#endif
