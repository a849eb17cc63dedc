/* Finding (or starting) the group server pvmgs, and one request/reply exchange with it. */
#include <stddef.h>
#include <time.h>

#include "gpvm.h"

/* The server's tid as found by the task whose tid was server_owner: a task that leaves PVM
 * and comes back under a new tid looks it up again (and forgets its frozen groups). */
static int server_tid = -1;
static int server_owner = -1;

enum {
	REGISTER_WAIT_MS = 30000, /* how long a freshly spawned pvmgs may take to register */
	REPLY_POLL_SEC = 1,       /* while waiting for a reply, how often we check pvmgs lives */
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Reads the tid pvmgs registered in its mailbox; PvmNotFound while there is none. */
static int read_registration(int *tid)
{
	int saved = pvm_setrbuf(0);
	int buf = pvm_recvinfo(GS_MBOX_NAME, 0, PvmMboxDefault);
	int cc = buf;
	if (buf > 0) {
		pvm_setrbuf(buf);
		cc = pvm_upkint(tid, 1, 1);
		if (cc >= 0 && *tid <= 0)
			cc = PvmBadMsg;
	}
	int current = pvm_setrbuf(saved > 0 ? saved : 0);
	if (current > 0)
		pvm_freebuf(current);
	return cc < 0 ? cc : 0;
}

/* Spawns pvmgs with output and tracing of the child turned off, as the stock library does. */
static int spawn_server(void)
{
	int out = pvm_setopt(PvmOutputTid, 0);
	int trace = pvm_setopt(PvmTraceTid, 0);
	int tid = 0;
	int n = pvm_spawn(GS_PROGRAM, NULL, PvmTaskDefault, NULL, 1, &tid);
	if (out >= 0)
		pvm_setopt(PvmOutputTid, out);
	if (trace >= 0)
		pvm_setopt(PvmTraceTid, trace);
	if (n == 1)
		return 0;
	return n < 0 ? n : (tid < 0 ? tid : PvmSysErr);
}

int gs_server_tid(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return me;
	if (server_tid > 0 && server_owner == me)
		return server_tid;
	if (server_owner != me)
		frozen_forget_all();
	int tid = 0;
	int cc = read_registration(&tid);
	if (cc == PvmNotFound) {
		/* Two tasks may both start one: the loser fails to register and exits, and both
		 * tasks then read the winner's tid from the mailbox. */
		cc = spawn_server();
		if (cc < 0) {
			/* said whatever PvmAutoErr says, as the stock library does */
			pvm_errno = cc;
			pvm_perror("cannot start the group server " GS_PROGRAM);
			return cc;
		}
		for (int waited = 0; waited < REGISTER_WAIT_MS; waited += 5) {
			cc = read_registration(&tid);
			if (cc != PvmNotFound)
				break;
			sleep_ms(5);
		}
	}
	if (cc < 0)
		return cc == PvmNotFound ? PvmSysErr : cc;
	server_tid = tid;
	server_owner = me;
	return tid;
}

/* A request in the group context from a fresh send buffer; the caller's buffer is kept. */
static int send_request(struct gs_call *call, const char *group, int request, const int *arg)
{
	int sbuf = pvm_mkbuf(PvmDataDefault);
	if (sbuf < 0)
		return sbuf;
	call->saved_sbuf = pvm_setsbuf(sbuf);
	int cc = 0;
	if (group)
		cc = pvm_pkstr((char *)group);
	if (cc >= 0 && arg)
		cc = pvm_pkint((int *)arg, 1, 1);
	if (cc >= 0)
		cc = pvm_send(call->server, request);
	return cc < 0 ? cc : 0;
}

/* Waits for the reply, checking now and then that the server still lives (a barrier may
 * rightly wait for ever, a dead server must not make us). */
static int await_reply(struct gs_call *call, int request)
{
	for (;;) {
		struct timeval tv = { REPLY_POLL_SEC, 0 };
		int buf = pvm_trecv(call->server, request, &tv);
		if (buf != 0)
			return buf < 0 ? buf : 0;
		if (pvm_pstat(call->server) != PvmOk) {
			server_tid = -1;
			return PvmSysErr;
		}
	}
}

int gs_call_begin(struct gs_call *call, const char *group, int request, const int *arg)
{
	call->saved_sbuf = -1;
	call->saved_rbuf = -1;
	call->saved_ctx = -1;
	if (!group || !*group)
		return PvmNullGroup;
	call->server = gs_server_tid();
	if (call->server < 0)
		return PvmSysErr;
	call->saved_ctx = pvm_setcontext(GS_CONTEXT);
	call->saved_rbuf = pvm_setrbuf(0);
	int cc = send_request(call, group, request, arg);
	if (cc == 0)
		cc = await_reply(call, request);
	return cc;
}

void gs_call_end(struct gs_call *call)
{
	if (call->saved_sbuf >= 0) {
		int ours = pvm_setsbuf(call->saved_sbuf);
		if (ours > 0)
			pvm_freebuf(ours);
	}
	if (call->saved_rbuf >= 0) {
		int reply = pvm_setrbuf(call->saved_rbuf);
		if (reply > 0)
			pvm_freebuf(reply);
	}
	if (call->saved_ctx >= 0)
		pvm_setcontext(call->saved_ctx);
}

int gs_send_only(int request)
{
	int server = gs_server_tid();
	if (server < 0)
		return PvmSysErr;
	int ctx = pvm_setcontext(GS_CONTEXT);
	int sbuf = pvm_mkbuf(PvmDataDefault);
	int cc = sbuf;
	if (sbuf > 0) {
		int saved = pvm_setsbuf(sbuf);
		cc = pvm_send(server, request);
		pvm_setsbuf(saved);
		pvm_freebuf(sbuf);
	}
	if (ctx >= 0)
		pvm_setcontext(ctx);
	return cc < 0 ? cc : 0;
}

int gs_unpack_state(void)
{
	int state = 0;
	int cc = pvm_upkint(&state, 1, 1);
	if (cc < 0)
		return cc;
	return state == GS_STATIC ? frozen_unpack() : 0;
}
