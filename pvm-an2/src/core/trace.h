/* Tracing as Debian's libpvm3 does it (trace.c): the trace settings of the task and its
 * children, and the events a traced call sends to the tracer, in PVM 3.4's format. A traced
 * entry point tests lpvm_trc.armed once (trc_armed) and takes its traced path only then. */
#ifndef LPVM_TRACE_H
#define LPVM_TRACE_H

#include <sys/time.h>   /* before <pvmtev.h>, whose structures hold timevals */
#include <pvmtev.h>

struct msg;

struct trc_state {
	int armed;                        /* calls take their traced path: not joined yet, or a
	                                   * tracer other than ourselves is set (trc_rearm) */
	int busy;                         /* a traced call runs: the calls it makes are not traced */
	int system_handler_traced;        /* the message being handled is a library handler's
	                                   * whose invocation was traced (mhf.c, control.c) */
	Pvmtmask mask;                    /* the events we trace */
	Pvmtmask child_mask;              /* the events the tasks we spawn trace */
	/* Asks the tracer's mailbox entry for mask, buffering and options (set by the API
	 * layer; NULL: not asked). */
	void (*read_tracer_entry)(void);
	/* Runs a program's handler whose invocation was traced as stock runs every handler:
	 * through the public buffer and context calls, traced when the mask names them (set by
	 * the API layer; NULL: mhf.c runs it untraced). */
	void (*run_traced_handler)(int (*f)(int), int mid, int ctx);
};

extern struct trc_state lpvm_trc;

static inline int trc_armed(void)
{
	return __builtin_expect(lpvm_trc.armed, 0);
}

/* The block after it packs the data of event kind | ee (entry or exit) when top (the call
 * claimed tracing, trc_claim) and the task traces that event; the event ends after it. */
#define TRC_EVENT(top, kind, ee) \
	for (int trc_once_ = (top) && trc_begin((kind), (ee)); trc_once_; trc_once_ = 0, trc_end())

/* A traced call of one int argument (its datum in_did) and one int answer (out_did), and one
 * of no argument: the untraced body runs between the entry and exit events. */
int trc_call_int(int kind, int in_did, int arg, int out_did, int (*untraced)(int));
int trc_call_none(int kind, int out_did, int (*untraced)(void));
/* ... and one of one string argument (NULL traced as "") */
int trc_call_str(int kind, int in_did, char *arg, int out_did, int (*untraced)(char *));

/* Recomputes armed from the task's state; call after the tracer or our tid changed. */
void trc_rearm(void);
/* The task has joined (the pvmd's TM_CONN2 reply, before anything else is read: a message
 * handler invoked then is traced): masks, buffering and options from PVMTMASK, PVMTRCBUF,
 * PVMTRCOPT, descriptors to be sent again; and once its routes are open, the settings the
 * environment lacked from the tracer's mailbox entry (trc_routes_open). */
void trc_joined(void);
void trc_routes_open(void);

/* A traced call starts: 1 if it is the outermost one (it traces; trc_release() when done),
 * 0 inside another traced call. The outermost call joins the task first if it has not, as
 * stock's tracing check does (if it cannot, the call runs untraced). */
int trc_claim(void);
void trc_release(void);
/* pvm_start_pvmd's claim, which does not join (the entry is traced only if the task has);
 * trc_claim_rejoined(): the task may have joined since (its exit event is traced then). */
int trc_claim_nojoin(void);
void trc_claim_rejoined(void);

/* Starts the event kind | entry_exit (TEV_EVENT_ENTRY or _EXIT) if the task traces it: 1 and
 * the caller adds the event's data with trc_* and ends with trc_end(); 0: nothing to do. */
int trc_begin(int kind, int entry_exit);
void trc_int(int did, int v);
void trc_ints(int did, const int *v, int n);   /* an array */
void trc_long(int did, long v);
void trc_str(int did, const char *s);
void trc_strs(int did, char **s, int n);       /* an array of strings */
void trc_end(void);
/* Sends what is buffered, or the time or count summary: at pvm_exit and when the buffering
 * or options change. */
void trc_flush(void);

/* A user-defined event (pvm_mkbuf(PvmDataTrace)): the header its message starts with, and
 * the sending (pvm_send to PVM_TRACE_TID, PVM_TRACE_CODE): the end mark added, to the tracer
 * if the mask has TEV_USER_DEFINED, else nothing; 0 or an error. */
int trc_user_event_head(struct msg *m);
int trc_send_user_event(struct msg *m);

/* Message handlers, as stock traces them. A handler's invocation is an mhf_invoke entry
 * event (no exit) with the handler's src, tag and context and the message's buffer id,
 * length, tag, context and source; it is traced whether or not a traced call is running,
 * and the handler's own calls are traced as the task's top-level calls (trc_push_top). */
int trc_mhf_invoke(int hsrc, int htag, int hctx, const struct msg *m);   /* 1: traced */
struct trc_top {
	int busy, joined;
};
struct trc_top trc_push_top(void);
void trc_pop_top(struct trc_top saved);
/* The unpack of count ints at addr (answer cc) by the library's TC_SIBLINGS handler, traced
 * as stock's handler traces its pvm_upkint calls. */
void trc_handler_upkint(const void *addr, int count, int cc);
/* Trace messages made while a message is being delivered wait (trc_hold(1) ... (0)) until
 * trc_send_held(), called where no route is being read. */
void trc_hold(int on);
void trc_send_held(void);

/* "@@@…" with every event cleared */
void trc_mask_clear(Pvmtmask m);
/* 1 if s is a mask of the right length */
int trc_mask_valid(const char *s);

#endif
