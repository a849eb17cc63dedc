/* Message handlers (mhf.c): the table, the dispatch of incoming messages, the pending runs. */
#ifndef AN2PVM_MHF_H
#define AN2PVM_MHF_H

struct msg;

/* Called by control_handle() for every incoming message: 1 if a handler took it (a
 * program's handler runs later, in mhf_run_pending(); the library's own at once). */
int mhf_claim(struct msg *m);
/* Runs the program handlers of claimed messages; called by control_flush(), where no
 * route is being read. */
void mhf_run_pending(void);
/* Drops claimed messages not yet handled (the task left). */
void mhf_reset(void);
/* Brings the table in line with the connection: the task-control entries for a new task,
 * everything removed after pvm_exit. */
void mhf_sync(void);
/* pvm_exit, after TM_EXIT: every handler goes (as stock, with its reports). */
void mhf_at_exit(void);
/* A library handler: f reads the message (no PVM call that touches a route); returns its
 * id or a negative error. */
int mhf_add_internal(int src, int tag, int ctx, void (*f)(struct msg *));
/* A program's handler (pvm_addmhf), run later at a safe point: its id or a negative error. */
int mhf_add_program(int src, int tag, int ctx, int (*f)(int));
/* 0, PvmBadParam or PvmNotFound; mhf_ids(): the ids given out so far, free or not. */
int mhf_delete(int mhid);
int mhf_ids(void);

#endif
