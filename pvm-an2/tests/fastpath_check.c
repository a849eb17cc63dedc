/* fastpath_check: PVM programs for the AN2 fast path tests. The parent spawns itself as the
 * child and checks what arrives:
 *   mixed N SEED     child sends N messages, switching at random between the daemon route
 *                    (PvmDontRoute) and AN2, raw / in-place packing, 0..200 KB; the parent
 *                    is slow at times; every message must arrive complete, in order, intact
 *                    (mixed and stream: FASTPATH_PAUSE_AT_END=1 pauses the parent, as below,
 *                    with every message in and the pair's VCs still open: "done, paused")
 *   pingpong N SIZE  N round trips of SIZE bytes (psend/precv), prints the one-way time; a
 *                    line (written at once) before the first and after the last
 *   hoard N SIZE     child streams N messages; the parent keeps them all, then checks them
 *   stream N SIZE    child streams N messages to the parent, which checks each one; a
 *                    receive error is printed ("recv error <code>") and the parent goes on
 *                    until the child is gone (PvmTaskExit)
 *   stall N SIZE     stream, but the child sends message 20 only when the parent, which
 *                    has taken messages 0-19, says so just before it pauses outside PVM
 *                    ("stall: paused", until SIGUSR1): the parent's receive buffers fill with
 *                    the start of message 20 and the child stalls in mid-message on flow control
 *   handover N SIZE  stream, but the parent pauses outside PVM after 100 messages ("stream:
 *                    paused", until SIGUSR1): the child stalls on flow control with PDUs the
 *                    parent has not acknowledged, whatever the machine's speed
 *   leave N SIZE     child sends N messages of SIZE bytes and 3 small ones, then pvm_exit,
 *                    while the parent is outside PVM calls until the child's process has
 *                    ended; then every message must be there (N * SIZE more than the
 *                    receive buffers posted: the small ones were still in the switch), and
 *                    the parent's PvmTaskExit notice for the child only after the last one
 *   sendto N SIZE    the parent streams N messages of SIZE bytes to the child, which checks
 *                    each; the shell kills the child mid-stream: the parent's sends go on (to a
 *                    task that has gone, as with stock) until its PvmTaskExit notice comes,
 *                    and nothing hangs
 *   exitstall 0 0    the child is killed while an2d is stopped (the shell does both once the
 *                    parent says "warm"): no PEER_GONE can end its stream, so the parent's
 *                    PvmTaskExit notice for it is held, and must still come after 10 s
 *   rejoin N SIZE    the parent leaves PVM and rejoins (pvm_exit, pvm_mytid) while it holds
 *                    a message received over AN2 (so its old buffer area stays in use),
 *                    then has the child echo N messages of SIZE bytes to its new tid */
#include <errno.h>
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "test_spawn.h"

#define TAG_DATA 11
#define TAG_DONE 12
#define TAG_EXIT 13
#define TAG_GONE 14
#define TAG_GO 15
#define STALL_AT 20   /* stall: the message the child sends only when the parent pauses */
#define HANDOVER_AT 100   /* handover: the messages the parent takes before it pauses */
#define PAUSE_LIMIT_S 90   /* a pause nobody ends fails the test rather than hang it */
#define MAX_LEN (200 * 1024)

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void fill(unsigned char *b, int len, int seq)
{
	unsigned s = (unsigned)seq * 2654435761u + 7;
	for (int i = 0; i < len; i++)
		b[i] = (unsigned char)(rnd(&s) >> 4);
}

static int check(const unsigned char *b, int len, int seq)
{
	unsigned s = (unsigned)seq * 2654435761u + 7;
	for (int i = 0; i < len; i++)
		if (b[i] != (unsigned char)(rnd(&s) >> 4))
			return 0;
	return 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int msg_len(unsigned *s)
{
	unsigned r = rnd(s) % 100;
	if (r < 50)
		return (int)(rnd(s) % 64);
	if (r < 85)
		return (int)(rnd(s) % 8192);
	return (int)(rnd(s) % MAX_LEN);
}

/* Message seq: its number and len pattern bytes (PvmDataRaw). */
static void send_numbered(int to, int seq, unsigned char *buf, int len)
{
	fill(buf, len, seq);
	pvm_initsend(PvmDataRaw);
	pvm_pkint(&seq, 1, 1);
	pvm_pkbyte((char *)buf, len, 1);
	pvm_send(to, TAG_DATA);
}

/* 1 if received message bufid is message seq of len bytes, intact; 0 if not. */
static int check_numbered(int bufid, int seq, unsigned char *buf, int len)
{
	int bytes, got = -1;
	pvm_bufinfo(bufid, &bytes, NULL, NULL);
	pvm_upkint(&got, 1, 1);
	return got == seq && bytes == len + 4 && pvm_upkbyte((char *)buf, len, 1) >= 0 &&
	       check(buf, len, seq);
}

/* Receives the next TAG_DATA message from `from` (10 s at most): check_numbered's answer, or
 * -1 if nothing came (or a receive error). */
static int recv_numbered(int from, int seq, unsigned char *buf, int len)
{
	struct timeval tmo = { 10, 0 };
	int bufid = pvm_trecv(from, TAG_DATA, &tmo);
	return bufid <= 0 ? -1 : check_numbered(bufid, seq, buf, len);
}

/* Prints line, then waits outside PVM (no library call: nothing is taken or acknowledged)
 * until the shell, which has seen the line, sends SIGUSR1 (blocked before the line, so it
 * waits pending). The shell acts on the pause itself, not on a guess of its length. 0 when
 * told to go on; 1 if nobody did. */
static int pause_outside_pvm(const char *line)
{
	sigset_t go;
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sigprocmask(SIG_BLOCK, &go, NULL);
	printf("%s\n", line);
	fflush(stdout);
	struct timespec limit = { PAUSE_LIMIT_S, 0 };
	if (sigtimedwait(&go, NULL, &limit) == SIGUSR1)
		return 0;
	printf("no SIGUSR1 %d s after the pause\n", PAUSE_LIMIT_S);
	return 1;
}

/* With FASTPATH_PAUSE_AT_END set, the parent pauses once every message is in, before it lets
 * the child go: the pair's VCs, with the tasks' own counters, are still there to be read. */
static int pause_at_end(const char *line)
{
	return getenv("FASTPATH_PAUSE_AT_END") ? pause_outside_pvm(line) : 0;
}

static void child_mixed(int parent, int n, unsigned seed)
{
	unsigned char *buf = malloc(MAX_LEN);
	unsigned s = seed;
	for (int i = 0; i < n; i++) {
		pvm_setopt(PvmRoute, rnd(&s) % 3 == 0 ? PvmDontRoute : PvmAllowDirect);
		int len = msg_len(&s);
		fill(buf, len, i);
		int inplace = rnd(&s) % 2;
		pvm_initsend(inplace ? PvmDataInPlace : PvmDataRaw);
		pvm_pkint(&i, 1, 1);
		pvm_pkint(&len, 1, 1);
		pvm_pkbyte((char *)buf, len, 1);
		if (pvm_send(parent, TAG_DATA) < 0)
			exit(2);
	}
	pvm_setopt(PvmRoute, PvmAllowDirect);
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_DONE);
	pvm_recv(parent, TAG_EXIT);
	free(buf);
}

static int parent_mixed(int child, int n, unsigned seed)
{
	unsigned char *buf = malloc(MAX_LEN);
	unsigned s = seed ^ 0x5555;
	int bad = 0;
	for (int i = 0; i < n; i++) {
		if (rnd(&s) % 50 == 0)
			usleep(20000);   /* slow at times: messages pile up on both routes */
		int bufid = rnd(&s) % 4 == 0 ? pvm_nrecv(child, -1) : pvm_recv(child, -1);
		if (bufid == 0) {
			i--;
			continue;
		}
		int seq = -1, len = -1, tag = -1, bytes = 0, tid = 0;
		pvm_bufinfo(bufid, &bytes, &tag, &tid);
		if (bufid < 0 || tag != TAG_DATA) {
			printf("message %d: bufid %d tag %d\n", i, bufid, tag);
			return 1;
		}
		pvm_upkint(&seq, 1, 1);
		pvm_upkint(&len, 1, 1);
		if (seq != i || len < 0 || len > MAX_LEN) {
			printf("message %d arrived as %d (len %d): order broken\n", i, seq, len);
			return 1;
		}
		pvm_upkbyte((char *)buf, len, 1);
		if (!check(buf, len, seq)) {
			printf("message %d (%d bytes): data corrupted\n", i, len);
			bad++;
		}
	}
	int bufid = pvm_recv(child, -1), tag = 0, bytes, tid;
	pvm_bufinfo(bufid, &bytes, &tag, &tid);
	if (tag != TAG_DONE) {
		printf("after %d messages: tag %d, not DONE\n", n, tag);
		return 1;
	}
	if (pause_at_end("mixed: done, paused")) {
		free(buf);
		return 1;
	}
	pvm_initsend(PvmDataDefault);
	pvm_send(child, TAG_EXIT);
	printf("mixed: %d messages in order, %d corrupted\n", n, bad);
	free(buf);
	return bad != 0;
}

/* The parent keeps every message (pvm_setrbuf(0)) before checking any: more than the buffer
 * area holds, so the library must copy out and repost rather than starve the VC. */
static int parent_hoard(int child, int n, int size)
{
	int *ids = calloc((size_t)n, sizeof *ids), bad = 0;
	unsigned char *buf = malloc((size_t)size);
	for (int i = 0; i < n; i++) {
		ids[i] = pvm_recv(child, TAG_DATA);
		if (ids[i] < 0) {
			printf("hoard: receive %d failed: %d\n", i, ids[i]);
			return 1;
		}
		pvm_setrbuf(0);   /* keep it: the next receive must not free it */
	}
	for (int i = 0; i < n; i++) {
		int seq = -1;
		pvm_setrbuf(ids[i]);
		pvm_upkint(&seq, 1, 1);
		if (seq != i || pvm_upkbyte((char *)buf, size, 1) < 0 || !check(buf, size, seq))
			bad++;
		pvm_freebuf(ids[i]);
	}
	pvm_recv(child, TAG_DONE);
	pvm_initsend(PvmDataDefault);
	pvm_send(child, TAG_EXIT);
	printf("hoard: %d messages of %d bytes kept, %d bad\n", n, size, bad);
	free(ids);
	free(buf);
	return bad != 0;
}

static void child_pingpong(int parent, int n, int size)
{
	char *buf = calloc(1, (size_t)size + 1);
	for (int i = 0; i <= n; i++) {
		pvm_precv(parent, TAG_DATA, buf, size, PVM_BYTE, NULL, NULL, NULL);
		pvm_psend(parent, TAG_DATA, buf, size, PVM_BYTE);
	}
	free(buf);
}

static int parent_pingpong(int child, int n, int size)
{
	char *buf = calloc(1, (size_t)size + 1);
	double t0 = 0;
	for (int i = 0; i <= n; i++) {   /* round 0 sets up the route */
		if (i == 1) {
			printf("pingpong: route set up\n");
			fflush(stdout);
			t0 = now();
		}
		pvm_psend(child, TAG_DATA, buf, size, PVM_BYTE);
		if (pvm_precv(child, TAG_DATA, buf, size, PVM_BYTE, NULL, NULL, NULL) < 0)
			return 1;
	}
	printf("pingpong: %d x %d bytes: %.2f us one-way\n", n, size, (now() - t0) / n / 2 * 1e6);
	fflush(stdout);
	free(buf);
	return 0;
}

static void child_stream(int parent, int n, int size, int stall)
{
	unsigned char *buf = malloc((size_t)size);
	for (int i = 0; i < n; i++) {
		if (stall && i == STALL_AT)
			pvm_recv(parent, TAG_GO);
		send_numbered(parent, i, buf, size);
	}
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_DONE);
	pvm_recv(parent, TAG_EXIT);
	free(buf);
}

enum stream_pause { PAUSE_NONE, PAUSE_STALL, PAUSE_HANDOVER };

static int parent_stream(int child, int n, int size, enum stream_pause pause)
{
	unsigned char *buf = malloc((size_t)size);
	int got = 0, errors = 0, bad = 0, last = -1, misordered = 0, exited = 0;
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &child);
	for (;;) {
		if (pause == PAUSE_STALL && got == STALL_AT) {
			/* nothing of message 20 has come yet: our receive buffers take its start while
			 * we pause, not polling, and the sender stalls in mid-message on flow control */
			pause = PAUSE_NONE;
			pvm_initsend(PvmDataRaw);
			pvm_send(child, TAG_GO);
			if (pause_outside_pvm("stall: paused")) {
				free(buf);
				return 1;
			}
		}
		if (pause == PAUSE_HANDOVER && got == HANDOVER_AT) {
			pause = PAUSE_NONE;
			if (pause_outside_pvm("stream: paused")) {
				free(buf);
				return 1;
			}
		}
		/* pvmd's exit notice is not ordered with the child's own messages (two senders):
		 * after it, take what the child sent until 2 s pass without anything */
		struct timeval tmo = { exited ? 2 : 30, 0 };
		int bufid = pvm_trecv(-1, -1, &tmo);
		if (bufid == 0 && exited)
			break;
		if (bufid == 0) {
			printf("stream: nothing for 30 s: hang\n");
			return 1;
		}
		if (bufid < 0) {
			printf("recv error %d\n", bufid);
			errors++;
			continue;
		}
		int bytes, tag, tid;
		pvm_bufinfo(bufid, &bytes, &tag, &tid);
		if (tag == TAG_EXIT) {
			exited = 1;
			continue;
		}
		if (tag == TAG_DONE) {
			if (pause_at_end("stream: done, paused")) {
				free(buf);
				return 1;
			}
			pvm_initsend(PvmDataDefault);
			pvm_send(child, TAG_EXIT);
			continue;
		}
		int seq = -1;
		pvm_upkint(&seq, 1, 1);
		if (bytes != size + 4 || pvm_upkbyte((char *)buf, size, 1) < 0 || !check(buf, size, seq))
			bad++;
		if (seq <= last)
			misordered++;
		last = seq;
		got++;
	}
	printf("stream: %d of %d messages, %d corrupted, %d out of order, %d receive errors\n",
	       got, n, bad, misordered, errors);
	free(buf);
	return bad || misordered;
}

#define LEAVE_SMALL 3
#define LEAVE_SMALL_LEN 500
#define WARMUP 10

/* Exchanges after which the pair's VC is open both ways. */
static void warm_up(int peer, int is_parent)
{
	for (int i = 0; i < WARMUP; i++) {
		if (is_parent)
			pvm_recv(peer, TAG_DONE);
		pvm_initsend(PvmDataRaw);
		pvm_send(peer, TAG_DONE);
		if (!is_parent)
			pvm_recv(peer, TAG_DONE);
	}
}

static void child_leave(int parent, int n, int size)
{
	warm_up(parent, 0);
	pvm_recv(parent, TAG_EXIT);   /* go */
	unsigned char *buf = malloc((size_t)size);
	for (int i = 0; i < n + LEAVE_SMALL; i++)
		send_numbered(parent, i, buf, i < n ? size : LEAVE_SMALL_LEN);
	free(buf);
}

static int parent_leave(int child, int n, int size)
{
	struct pvmtaskinfo *ti;
	int ntask;
	if (pvm_tasks(child, &ntask, &ti) < 0 || ntask != 1) {
		printf("leave: no pid for the child\n");
		return 1;
	}
	int pid = ti[0].ti_pid;
	warm_up(child, 1);
	if (pvm_notify(PvmTaskExit, TAG_GONE, 1, &child) < 0) {
		printf("leave: pvm_notify failed\n");
		return 1;
	}
	pvm_initsend(PvmDataRaw);
	pvm_send(child, TAG_EXIT);
	/* outside PVM calls (nothing read, no buffer reposted) until the child has ended */
	double t0 = now();
	while (kill(pid, 0) == 0 || errno != ESRCH) {
		if (now() - t0 > 20) {
			printf("leave: the child is still there after 20 s\n");
			return 1;
		}
		usleep(20000);
	}
	/* everything in arrival order: the messages, then the notice */
	unsigned char *buf = malloc((size_t)size);
	int got = 0, bad = 0, notice_at = -1, gone = 0;
	while (got < n + LEAVE_SMALL || notice_at < 0) {
		struct timeval tmo = { 10, 0 };
		int bufid = pvm_trecv(-1, -1, &tmo), tag = -1;
		if (bufid > 0)
			pvm_bufinfo(bufid, NULL, &tag, NULL);
		if (tag == TAG_GONE) {
			notice_at = got;
			pvm_upkint(&gone, 1, 1);
		} else if (tag == TAG_DATA) {
			bad += !check_numbered(bufid, got, buf, got < n ? size : LEAVE_SMALL_LEN);
			got++;
		} else {
			printf("leave: %s after %d messages\n", bufid > 0 ? "a stray message" : "nothing",
			       got);
			break;
		}
	}
	free(buf);
	printf("leave: %d of %d messages after the sender had gone, %d bad\n", got,
	       n + LEAVE_SMALL, bad);
	if (notice_at < 0 || gone != child)
		printf("leave: no PvmTaskExit notice for t%x\n", (unsigned)child);
	else if (notice_at < n + LEAVE_SMALL)
		printf("leave: the PvmTaskExit notice came before message %d\n", notice_at);
	else
		printf("leave: the PvmTaskExit notice came after the last message\n");
	return got != n + LEAVE_SMALL || bad || gone != child || notice_at != n + LEAVE_SMALL;
}

/* sendto's child: takes SINK_STOP_AT messages, then stops itself (SIGSTOP) for the shell to
 * kill: the parent is in mid-stream then, whatever the machine's speed. */
#define SINK_STOP_AT 100
static void child_sink(int parent, int n, int size)
{
	unsigned char *buf = malloc((size_t)size);
	for (int i = 0; i < n && recv_numbered(parent, i, buf, size) == 1; i++)
		if (i + 1 == SINK_STOP_AT)
			raise(SIGSTOP);
	free(buf);
}

static int parent_sendto(int child, int n, int size)
{
	unsigned char *buf = malloc((size_t)size);
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &child);
	int sent = 0, noticed = 0;
	for (; sent < n && !noticed; sent++) {
		send_numbered(child, sent, buf, size);
		noticed = pvm_nrecv(-1, TAG_EXIT) > 0;
	}
	struct timeval tmo = { 30, 0 };
	if (!noticed)
		noticed = pvm_trecv(-1, TAG_EXIT, &tmo) > 0;
	free(buf);
	if (!noticed) {
		printf("sendto: no PvmTaskExit notice 30 s after %d messages\n", sent);
		return 1;
	}
	printf("sendto: the PvmTaskExit notice came after %d of %d messages\n", sent, n);
	return 0;
}

static int parent_exitstall(int child)
{
	warm_up(child, 1);
	if (pvm_notify(PvmTaskExit, TAG_GONE, 1, &child) < 0) {
		printf("exitstall: pvm_notify failed\n");
		return 1;
	}
	printf("exitstall: warm\n");
	fflush(stdout);
	double t0 = now();
	struct timeval tmo = { 60, 0 };
	int bufid = pvm_trecv(-1, TAG_GONE, &tmo), gone = 0;
	if (bufid > 0)
		pvm_upkint(&gone, 1, 1);
	if (bufid <= 0 || gone != child) {
		printf("exitstall: no PvmTaskExit notice for t%x (%d)\n", (unsigned)child, bufid);
		return 1;
	}
	printf("exitstall: the PvmTaskExit notice came after %.0f s\n", now() - t0);
	fflush(stdout);   /* the shell continues an2d on this line */
	return 0;
}

static void child_rejoin(int parent, int n, int size)
{
	for (int i = 0; i < WARMUP; i++) {
		pvm_initsend(PvmDataRaw);
		pvm_pkint(&i, 1, 1);
		pvm_send(parent, TAG_DONE);
	}
	int from;   /* the parent again, under its new tid */
	int bufid = pvm_recv(-1, TAG_EXIT);
	pvm_bufinfo(bufid, NULL, NULL, &from);
	unsigned char *buf = malloc((size_t)size);
	for (int i = 0; i < n; i++)
		send_numbered(from, i, buf, size);
	free(buf);
	pvm_recv(from, TAG_EXIT);
}

static int parent_rejoin(int child, int n, int size)
{
	int held = -1;
	for (int i = 0; i < WARMUP; i++)
		held = pvm_recv(child, TAG_DONE);
	pvm_setrbuf(0);   /* the last one stays ours, in the old buffer area */
	int old = pvm_mytid();
	if (pvm_exit() < 0 || pvm_mytid() < 0) {
		printf("rejoin: could not leave and rejoin\n");
		return 1;
	}
	pvm_initsend(PvmDataRaw);
	pvm_send(child, TAG_EXIT);   /* "echo to me" */
	unsigned char *buf = malloc((size_t)size);
	int got = 0, bad = 0;
	for (int i = 0; i < n; i++) {
		int ok = recv_numbered(child, i, buf, size);
		if (ok < 0)
			break;
		bad += !ok;
		got++;
	}
	free(buf);
	pvm_initsend(PvmDataRaw);
	pvm_send(child, TAG_EXIT);
	int seq = -1;
	pvm_setrbuf(held);
	pvm_upkint(&seq, 1, 1);
	pvm_freebuf(held);
	printf("rejoin: t%x came back as t%x; held message %s; %d of %d echoed, %d bad\n", old,
	       pvm_mytid(), seq == WARMUP - 1 ? "intact" : "damaged", got, n, bad);
	return seq != WARMUP - 1 || got != n || bad;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: fastpath_check mixed|pingpong|hoard|stream|stall|handover|sendto|leave|rejoin|exitstall N ARG\n");
		return 2;
	}
	int me = pvm_mytid();
	if (me < 0)
		return 2;
	int n = atoi(argv[2]), arg = atoi(argv[3]);
	int parent = pvm_parent();
	int rc = 0;
	if (parent > 0) {
		if (!strcmp(argv[1], "mixed"))
			child_mixed(parent, n, (unsigned)arg);
		else if (!strcmp(argv[1], "pingpong"))
			child_pingpong(parent, n, arg);
		else if (!strcmp(argv[1], "leave"))
			child_leave(parent, n, arg);
		else if (!strcmp(argv[1], "rejoin"))
			child_rejoin(parent, n, arg);
		else if (!strcmp(argv[1], "sendto"))
			child_sink(parent, n, arg);
		else if (!strcmp(argv[1], "exitstall")) {
			warm_up(parent, 0);
			pvm_recv(parent, TAG_EXIT);   /* never comes: killed meanwhile */
		} else
			child_stream(parent, n, arg, !strcmp(argv[1], "stall"));
	} else {
		int child;
		const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		if (test_spawn(name, argv + 1, 1, &child) != 1) {
			fprintf(stderr, "spawn failed: %d\n", child);
			pvm_exit();
			return 2;
		}
		printf("child t%x\n", child);
		fflush(stdout);
		if (!strcmp(argv[1], "mixed"))
			rc = parent_mixed(child, n, (unsigned)arg);
		else if (!strcmp(argv[1], "hoard"))
			rc = parent_hoard(child, n, arg);
		else if (!strcmp(argv[1], "pingpong"))
			rc = parent_pingpong(child, n, arg);
		else if (!strcmp(argv[1], "leave"))
			rc = parent_leave(child, n, arg);
		else if (!strcmp(argv[1], "rejoin"))
			rc = parent_rejoin(child, n, arg);
		else if (!strcmp(argv[1], "sendto"))
			rc = parent_sendto(child, n, arg);
		else if (!strcmp(argv[1], "exitstall"))
			rc = parent_exitstall(child);
		else
			rc = parent_stream(child, n, arg, !strcmp(argv[1], "stall") ? PAUSE_STALL :
			                   !strcmp(argv[1], "handover") ? PAUSE_HANDOVER : PAUSE_NONE);
	}
	pvm_exit();
	return rc;
}
