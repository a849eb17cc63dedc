/* Tracing as Debian's libpvm3 does it (trace.h). With PvmTraceFull every event is a record
 * in an XDR message to the tracer: the first time an event kind is sent (entry and exit
 * apart) it goes as a descriptor that names the event and types each datum, after that as a
 * raw record of values only; with a buffer size set, records gather in one message between
 * buffer markers until it holds that many bytes. PvmTraceTime and PvmTraceCount send nothing
 * per event: each event adds to its kind's count (and time), and trc_flush() sends the
 * summary. The layout is <pvmtev.h>'s, as PVM 3.4's tracer reads it. */
#include "trace.h"

#include <pvm3.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "send.h"
#include "trace_names.h"

#define NKINDS (TEV_MAX + 1)

struct trc_state lpvm_trc = { .armed = 1 };   /* until the task joins */

#define NAME(n) #n,
static const char *const event_name[NKINDS] = { TRC_EVENT_NAMES(NAME) };
#undef NAME

static struct {
	int desc_sent[NKINDS];        /* TEV_EVENT_ENTRY | TEV_EVENT_EXIT: descriptor sent */
	struct timeval mark[NKINDS];  /* PvmTraceTime: when the event began */
	struct timeval total[NKINDS];
	int count[NKINDS];
	struct msg *buf;              /* PvmTraceFull: records not yet sent */
	int packing;                  /* an event is being built in buf: the trc_* packers write */
	int desc;                     /* the event being built is a descriptor */
	int kind;                     /* ... and its kind */
	int bad_option_said;
} ev;

/* trace messages made while a message was being delivered, not sent yet (trc_hold) */
static struct {
	struct msg **m;
	int n, cap;
	int on;
} held;

void trc_mask_clear(Pvmtmask m)
{
	memset(m, '@', TEV_MASK_LENGTH - 1);
	m[TEV_MASK_LENGTH - 1] = 0;
}

int trc_mask_valid(const char *s)
{
	return s && strnlen(s, TEV_MASK_LENGTH) + 1 == TEV_MASK_LENGTH;   /* (reads no further) */
}

static int tracer_set(void)
{
	return lpvm.mytid != -1 && lpvm.self_trc_tid > 0 && lpvm.self_trc_tid != lpvm.mytid;
}

void trc_rearm(void)
{
	lpvm_trc.armed = lpvm.mytid == -1 || tracer_set();
}

static int env_int(const char *name, int *v)
{
	const char *s = getenv(name);
	if (!s)
		return 0;
	*v = atoi(s);
	return 1;
}

static int need_tracer_entry;   /* trc_joined found no settings in the environment */

void trc_joined(void)
{
	const char *m = getenv("PVMTMASK");
	int need_entry = 0;
	if (trc_mask_valid(m)) {
		memcpy(lpvm_trc.mask, m, TEV_MASK_LENGTH);
	} else {
		trc_mask_clear(lpvm_trc.mask);
		need_entry |= !m;
	}
	memcpy(lpvm_trc.child_mask, lpvm_trc.mask, TEV_MASK_LENGTH);
	if (!env_int("PVMTRCBUF", &lpvm.self_trc_buf)) {
		lpvm.self_trc_buf = 0;
		need_entry = 1;
	}
	if (!env_int("PVMTRCOPT", &lpvm.self_trc_opt)) {
		lpvm.self_trc_opt = 0;
		need_entry = 1;
	}
	lpvm.trc_buf = lpvm.self_trc_buf;
	lpvm.trc_opt = lpvm.self_trc_opt;
	need_tracer_entry = need_entry;
	for (int i = 0; i < held.n; i++)   /* (a former connection's) */
		msg_free(held.m[i]);
	held.n = 0;
	memset(ev.desc_sent, 0, sizeof ev.desc_sent);
	memset(ev.total, 0, sizeof ev.total);
	memset(ev.count, 0, sizeof ev.count);
	trc_rearm();
}

void trc_routes_open(void)
{
	/* a task started from a shell learns the tracer's settings from its mailbox entry */
	if (need_tracer_entry && lpvm.self_trc_tid > 0 && lpvm_trc.read_tracer_entry) {
		int busy = lpvm_trc.busy;
		lpvm_trc.busy = 1;   /* (its calls are the library's, never traced) */
		lpvm_trc.read_tracer_entry();
		lpvm_trc.busy = busy;
	}
	need_tracer_entry = 0;
}

/* whether the outermost traced call has joined (it could not: no event) */
static int claimed_joined;

int trc_claim(void)
{
	if (lpvm_trc.busy)
		return 0;
	lpvm_trc.busy = 1;   /* (the calls joining makes are not traced) */
	if (lpvm.mytid == -1)
		lpvm_attach();   /* as stock's tracing check: an error is the call's own to report */
	claimed_joined = lpvm.mytid != -1;
	return 1;
}

int trc_claim_nojoin(void)
{
	if (lpvm_trc.busy)
		return 0;
	lpvm_trc.busy = 1;
	claimed_joined = lpvm.mytid != -1;
	return 1;
}

void trc_claim_rejoined(void)
{
	claimed_joined = lpvm.mytid != -1;
}

void trc_release(void)
{
	lpvm_trc.busy = 0;
}

int trc_call_int(int kind, int in_did, int arg, int out_did, int (*untraced)(int))
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY)
		trc_int(in_did, arg);
	int cc = untraced(arg);
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(out_did, cc);
	if (top)
		trc_release();
	return cc;
}

int trc_call_none(int kind, int out_did, int (*untraced)(void))
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY) {}
	int cc = untraced();
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(out_did, cc);
	if (top)
		trc_release();
	return cc;
}

int trc_call_str(int kind, int in_did, char *arg, int out_did, int (*untraced)(char *))
{
	int top = trc_claim();
	TRC_EVENT(top, kind, TEV_EVENT_ENTRY)
		trc_str(in_did, arg);
	int cc = untraced(arg);
	TRC_EVENT(top, kind, TEV_EVENT_EXIT)
		trc_int(out_did, cc);
	if (top)
		trc_release();
	return cc;
}

static int traces(int kind)
{
	return tracer_set() && kind >= 0 && kind < NKINDS && TEV_MASK_CHECK(lpvm_trc.mask, kind);
}

/* A datum: in a descriptor its id and type (and count for an array) come first. */
static void datum_head(int did, int type, int array, int n)
{
	if (ev.desc) {
		lpvm_pack_int(ev.buf, did);
		lpvm_pack_int(ev.buf, type | (array ? TEV_DATA_ARRAY : TEV_DATA_SCALAR));
	}
	if (array)
		lpvm_pack_int(ev.buf, n);
}

static int packing(void)
{
	return ev.packing && ev.buf;
}

void trc_int(int did, int v)
{
	if (!packing())
		return;
	datum_head(did, TEV_DATA_INT, 0, 1);
	lpvm_pack_int(ev.buf, v);
}

void trc_ints(int did, const int *v, int n)
{
	if (!packing())
		return;
	if (n < 0)
		n = 0;
	datum_head(did, TEV_DATA_INT, 1, n);
	if (n > 0 && v)
		lpvm_pack(ev.buf, PVM_INT, v, n, 1);
}

void trc_long(int did, long v)
{
	if (!packing())
		return;
	datum_head(did, TEV_DATA_LONG, 0, 1);
	lpvm_pack(ev.buf, PVM_LONG, &v, 1, 1);
}

void trc_str(int did, const char *s)
{
	if (!packing())
		return;
	datum_head(did, TEV_DATA_STRING, 0, 1);
	lpvm_pack_str(ev.buf, s ? s : "");
}

void trc_strs(int did, char **s, int n)
{
	if (!packing())
		return;
	if (n < 0 || !s)
		n = 0;
	datum_head(did, TEV_DATA_STRING, 1, n);
	for (int i = 0; i < n; i++)
		lpvm_pack_str(ev.buf, s[i] ? s[i] : "");
}

static void now(struct timeval *tv)
{
	gettimeofday(tv, NULL);
}

/* The header every event and summary starts with: marker, id, [name,] time and our tid. */
static void event_head(int marker, int id, const char *name, const struct timeval *t)
{
	lpvm_pack_int(ev.buf, marker);
	lpvm_pack_int(ev.buf, id);
	if (name)
		lpvm_pack_str(ev.buf, name);
	trc_int(TEV_DID_TS, (int)t->tv_sec);
	trc_int(TEV_DID_TU, (int)t->tv_usec);
	trc_int(TEV_DID_TID, lpvm.mytid);
}

int trc_begin(int kind, int entry_exit)
{
	if (!traces(kind) || !claimed_joined)
		return 0;
	struct timeval t;
	now(&t);
	ev.kind = kind;
	switch (lpvm.self_trc_opt) {
	case PvmTraceFull: {
		ev.desc = !(ev.desc_sent[kind] & entry_exit);
		ev.desc_sent[kind] |= entry_exit;
		if (!ev.buf) {
			ev.buf = msg_new(ENC_XDR);
			if (!ev.buf)
				return 0;
			if (lpvm.self_trc_buf)
				lpvm_pack_int(ev.buf, TEV_MARK_EVENT_BUFFER);
		}
		ev.packing = 1;
		event_head(ev.desc ? TEV_MARK_EVENT_DESC : TEV_MARK_EVENT_RECORD, kind | entry_exit,
		           ev.desc ? event_name[kind] : NULL, &t);
		return 1;
	}
	case PvmTraceTime:
		ev.mark[kind] = t;
		return 1;
	case PvmTraceCount:
		return 1;
	default:
		if (!ev.bad_option_said) {
			ev.bad_option_said = 1;
			lpvm_log("trace option %d unknown: no events traced", lpvm.self_trc_opt);
		}
		return 0;
	}
}

/* Sends the message to the tracer through the pvmds (PvmDontRoute for it), frees it: Debian's
 * tracer and console wait on the pvmd socket alone (the first of pvm_getfds), so a message
 * by the fast path would wait until something else woke them. */
void trc_hold(int on)
{
	held.on = on;
}

static void send_now(struct msg *m);

void trc_send_held(void)
{
	for (int i = 0; i < held.n; i++)
		send_now(held.m[i]);
	held.n = 0;
}

static void send_to_tracer(struct msg *m)
{
	if (held.on) {
		if (held.n == held.cap) {
			int cap = held.cap ? 2 * held.cap : 8;
			struct msg **a = realloc(held.m, sizeof *a * (size_t)cap);
			if (!a) {
				lpvm_log("out of memory: a trace message lost");
				msg_free(m);
				return;
			}
			held.m = a;
			held.cap = cap;
		}
		held.m[held.n++] = m;
		return;
	}
	trc_send_held();   /* (in their order: those first) */
	send_now(m);
}

static void send_now(struct msg *m)
{
	int route = lpvm.route_opt;
	lpvm.route_opt = PvmDontRoute;
	if (lpvm_route_send(m, lpvm.self_trc_tid, lpvm.self_trc_tag, lpvm.self_trc_ctx) < 0 &&
	    lpvm.debug_mask)
		lpvm_log("trace message to t%x lost", (unsigned)lpvm.self_trc_tid);
	lpvm.route_opt = route;
	msg_free(m);
}

void trc_end(void)
{
	int kind = ev.kind;
	switch (lpvm.self_trc_opt) {
	case PvmTraceFull:
		ev.packing = 0;
		if (!ev.buf)
			return;
		lpvm_pack_int(ev.buf, ev.desc ? TEV_MARK_EVENT_DESC_END : TEV_MARK_EVENT_RECORD_END);
		if (!lpvm.self_trc_buf || (int)msg_length(ev.buf) >= lpvm.self_trc_buf)
			trc_flush();
		break;
	case PvmTraceTime: {
		struct timeval t, d;
		now(&t);
		timersub(&t, &ev.mark[kind], &d);
		timeradd(&ev.total[kind], &d, &ev.total[kind]);
		ev.count[kind]++;
		break;
	}
	case PvmTraceCount:
		ev.count[kind]++;
		break;
	default:
		break;
	}
}

/* PvmTraceTime or PvmTraceCount: a descriptor event (timing, profiling) with the kinds
 * called since the last summary, their counts and, for timing, their total times. */
static struct msg *summary(int timing)
{
	ev.buf = msg_new(ENC_XDR);
	if (!ev.buf)
		return NULL;
	ev.packing = 1;
	ev.desc = 1;
	int kind = timing ? TEV_TIMING : TEV_PROFILING;
	struct timeval t;
	now(&t);
	event_head(TEV_MARK_EVENT_DESC, kind, event_name[kind], &t);
	char *names[NKINDS];
	int secs[NKINDS], usecs[NKINDS], counts[NKINDS], n = 0;
	for (int k = 0; k < NKINDS; k++) {
		if (ev.count[k] <= 0)
			continue;
		names[n] = (char *)event_name[k];
		secs[n] = (int)ev.total[k].tv_sec;
		usecs[n] = (int)ev.total[k].tv_usec;
		counts[n++] = ev.count[k];
		ev.count[k] = 0;
		ev.total[k] = (struct timeval){ 0, 0 };
	}
	trc_int(TEV_DID_VCT, n);
	trc_strs(TEV_DID_VID, names, n);
	if (timing) {
		trc_ints(TEV_DID_TGS, secs, n);
		trc_ints(TEV_DID_TGU, usecs, n);
	}
	trc_ints(TEV_DID_PRF, counts, n);
	lpvm_pack_int(ev.buf, TEV_MARK_EVENT_DESC_END);
	ev.packing = 0;
	struct msg *m = ev.buf;
	ev.buf = NULL;
	return m;
}

/* Records gathered under PvmTraceFull (the buffer's end mark added if buffering): what a
 * flush sends, whatever the option has become since. */
static struct msg *take_records(void)
{
	struct msg *m = ev.buf;
	ev.buf = NULL;
	ev.packing = 0;
	if (m && lpvm.self_trc_buf)
		lpvm_pack_int(m, TEV_MARK_EVENT_BUFFER_END);
	return m;
}

void trc_flush(void)
{
	if (!tracer_set())
		return;
	trc_send_held();
	struct msg *m = NULL;
	if (lpvm.self_trc_opt != PvmTraceFull && ev.buf)   /* records from before a TC_SETTRCOPT */
		send_to_tracer(take_records());
	switch (lpvm.self_trc_opt) {
	case PvmTraceFull:
		m = take_records();
		break;
	case PvmTraceTime:
	case PvmTraceCount:
		m = summary(lpvm.self_trc_opt == PvmTraceTime);
		break;
	default:
		break;
	}
	if (m)
		send_to_tracer(m);
}

struct trc_top trc_push_top(void)
{
	struct trc_top saved = { lpvm_trc.busy, claimed_joined };
	lpvm_trc.busy = 0;
	claimed_joined = lpvm.mytid != -1;
	return saved;
}

void trc_pop_top(struct trc_top saved)
{
	lpvm_trc.busy = saved.busy;
	claimed_joined = saved.joined;
}

int trc_mhf_invoke(int hsrc, int htag, int hctx, const struct msg *m)
{
	struct trc_top top = trc_push_top();
	int traced = trc_begin(TEV_MHF_INVOKE, TEV_EVENT_ENTRY);
	if (traced) {
		trc_int(TEV_DID_RST, hsrc);
		trc_int(TEV_DID_RMC, htag);
		trc_int(TEV_DID_RCX, hctx);
		trc_int(TEV_DID_MB, m->mid);
		trc_int(TEV_DID_MNB, (int)msg_length(m));
		trc_int(TEV_DID_MC, m->tag);
		trc_int(TEV_DID_MCX, m->ctx);
		trc_int(TEV_DID_SRC, m->src);
		trc_end();
	}
	trc_pop_top(top);
	return traced;
}

void trc_handler_upkint(const void *addr, int count, int cc)
{
	struct trc_top top = trc_push_top();
	if (trc_begin(TEV_UPKINT, TEV_EVENT_ENTRY)) {
		trc_long(TEV_DID_PDA, (long)addr);
		trc_int(TEV_DID_PC, count);
		trc_int(TEV_DID_PSD, 1);
		trc_end();
	}
	if (trc_begin(TEV_UPKINT, TEV_EVENT_EXIT)) {
		trc_int(TEV_DID_CC, cc);
		trc_end();
	}
	trc_pop_top(top);
}

int trc_user_event_head(struct msg *m)
{
	struct timeval t;
	now(&t);
	const char *name = event_name[TEV_USER_DEFINED];
	int head[3] = { TEV_MARK_USER_EVENT_RECORD, TEV_USER_DEFINED, (int)strlen(name) + 1 };
	int cc = lpvm_pack_unannotated(m, PVM_INT, head, 3, 1);
	if (!cc)
		cc = lpvm_pack_unannotated(m, PVM_BYTE, name, head[2], 1);
	int when[2] = { (int)t.tv_sec, (int)t.tv_usec };
	return cc ? cc : lpvm_pack_unannotated(m, PVM_INT, when, 2, 1);
}

int trc_send_user_event(struct msg *m)
{
	if (!claimed_joined || !traces(TEV_USER_DEFINED))
		return 0;   /* as stock: not traced, nothing sent, no error */
	trc_send_held();   /* (the events before it first) */
	int end = TEV_MARK_USER_EVENT_RECORD_END;
	int cc = lpvm_pack_unannotated(m, PVM_INT, &end, 1, 1);
	int route = lpvm.route_opt;
	lpvm.route_opt = PvmDontRoute;   /* by the pvmds, as every trace message */
	if (!cc)
		cc = lpvm_route_send(m, lpvm.self_trc_tid, lpvm.self_trc_tag, lpvm.self_trc_ctx);
	lpvm.route_opt = route;
	return cc;
}
