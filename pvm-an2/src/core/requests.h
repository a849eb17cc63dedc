/* Request and reply with the pvmd or the resource manager (requests.c). */
#ifndef LPVM_REQUESTS_H
#define LPVM_REQUESTS_H

struct msg;

/* Sends req to dst with a fresh wait id and waits for the reply carrying it (from the pvmd
 * when dst is TIDPVMD). 0 with *reply (rewound; the caller frees), or a negative PVM error. */
int lpvm_request(struct msg *req, int dst, int tag, int ctx, struct msg **reply);
/* A TM_* request to the pvmd, or to the resource manager that schedules it while one runs. */
int lpvm_daemon_call(struct msg *req, int tag, struct msg **reply);
/* lpvm_daemon_call that frees req; and the same for an answer that is one int. */
int lpvm_daemon_ask(struct msg *req, int tag, struct msg **reply);
int lpvm_daemon_ask_int(struct msg *req, int tag, int *value);
/* The SM_* tag under which a TM_* request goes to the running resource manager, or 0 when
 * it goes to the pvmd. */
int rm_request_tag(int tm_tag);
/* Sends req to the resource manager and waits for its answer (*reply, rewound). */
int rm_call(struct msg *req, int sm_tag, struct msg **reply);

/* TM_SETOPT: tells the pvmd where our own output or trace data goes (TS_OUTTID, TS_OUTTAG,
 * TS_TRCTID, TS_TRCTAG of <pvmproto.h>): 0 or a negative error. */
int lpvm_tell_pvmd_opt(int what, int val);

#endif
