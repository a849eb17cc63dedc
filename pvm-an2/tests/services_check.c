/* services_check.c — the PVM services beyond messaging, printed by both libraries alike. */
/* Message handlers, the 3.3 database, catchout, hostsync, getfds, noresets, export, the helper
 * registrations and start_pvmd, built against both libraries: the outputs (task ids
 * normalised) must be the same. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pvm3.h>
#include <pvmproto.h>

#define TIDPVMD_TASKER ((int)0x80000000)   /* our pvmd */

extern int pvm_errno;   /* both libraries export it; <pvm3.h> does not declare it */

static int handled_value = -1, handler_calls, handler_sbuf_was, exit_seen = -1;

/* Takes tag 77: answers with tag 78 to ourselves, from inside the handler. */
static int echo_handler(int mid)
{
	handler_calls++;
	handler_sbuf_was = pvm_getsbuf();
	int v = 0;
	pvm_upkint(&v, 1, 1);
	handled_value = v;
	pvm_initsend(PvmDataDefault);
	v *= 2;
	pvm_pkint(&v, 1, 1);
	pvm_send(pvm_mytid(), 78);
	return mid > 0;
}

/* Takes the task-exit notification (tag 90). */
static int exit_handler(int mid)
{
	int tid = 0;
	pvm_upkint(&tid, 1, 1);
	exit_seen = tid;
	return mid > 0;
}

static void send_self(int tag, int v)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(pvm_mytid(), tag);
}

static void handlers(char *self)
{
	int me = pvm_mytid();
	int mhid = pvm_addmhf(-1, 77, -1, echo_handler);
	printf("addmhf first id %d\n", mhid);
	printf("addmhf overlapping %d\n", pvm_addmhf(-1, -1, -1, echo_handler));
	printf("addmhf overlap on tag %d\n", pvm_addmhf(me, 77, 0, echo_handler));
	send_self(77, 21);
	int keep = pvm_mkbuf(PvmDataDefault);   /* the handler must not disturb it */
	pvm_setsbuf(keep);
	int mid = pvm_recv(-1, 78);
	int v = 0;
	pvm_upkint(&v, 1, 1);
	printf("handler ran %d time(s), got %d, answered %d (recv %d)\n", handler_calls,
	       handled_value, v, mid > 0);
	printf("handler started without a send buffer %d; ours kept %d\n", handler_sbuf_was == 0,
	       pvm_getsbuf() == keep);
	printf("tag 77 never queued %d\n", pvm_nrecv(-1, 77) == 0);
	int first = pvm_delmhf(mhid), again = pvm_delmhf(mhid);
	printf("delmhf %d, again %d, bad %d, far %d\n", first, again, pvm_delmhf(-1),
	       pvm_delmhf(1000));
	send_self(77, 5);
	mid = pvm_recv(-1, 77);
	pvm_upkint(&v, 1, 1);
	printf("after delmhf tag 77 queued: %d (value %d), handler calls %d\n", mid > 0, v,
	       handler_calls);
	int mh2 = pvm_addmhf(-1, 77, -1, echo_handler);
	printf("freed id reused %d\n", mh2 == mhid);
	pvm_delmhf(mh2);

	/* a system message: the exit notification of a child goes to the handler */
	int xh = pvm_addmhf(-1, 90, -1, exit_handler);
	char *args[] = { "quit", NULL };
	int child = 0;
	pvm_spawn(self, args, PvmTaskDefault, "", 1, &child);
	pvm_notify(PvmTaskExit, 90, 1, &child);
	for (int i = 0; i < 300 && exit_seen == -1; i++) {   /* (the handler runs in a receive) */
		struct timeval t = { 0, 100000 };
		pvm_trecv(-1, 12345, &t);
	}
	if (exit_seen == -1) {
		fprintf(stderr, "services_check: FAIL no exit notification of the child within 30 s\n");
		exit(1);
	}
	printf("exit notification handled %d, queued %d\n", exit_seen == child,
	       pvm_nrecv(-1, 90) > 0);
	pvm_delmhf(xh);
}

static void database(void)
{
	printf("insert %d\n", pvm_insert("p2db", -1, 42));
	printf("insert at 3 %d\n", pvm_insert("p2db", 3, 7));
	printf("insert taken %d\n", pvm_insert("p2db", 0, 5));
	int d = -1;
	int cc = pvm_lookup("p2db", 0, &d);
	printf("lookup 0: %d data %d\n", cc, d);
	cc = pvm_lookup("p2db", 3, &d);
	printf("lookup 3: %d data %d\n", cc, d);
	cc = pvm_lookup("p2db", -1, &d);
	printf("lookup any: %d data %d\n", cc, d);
	printf("lookup bad %d, insert bad %d, delete bad %d\n", pvm_lookup("", 0, &d),
	       pvm_insert(NULL, 0, 1), pvm_delete("p2db", -1));
	cc = pvm_delete("p2db", 0);
	printf("delete %d, again %d\n", cc, pvm_delete("p2db", 0));
	printf("lookup deleted %d\n", pvm_lookup("p2db", 0, &d));
	printf("delete 3 %d\n", pvm_delete("p2db", 3));
}

static void misc(void)
{
	struct timeval clk, delta;
	int host = pvm_tidtohost(pvm_mytid());
	int cc = pvm_hostsync(host, &clk, &delta);
	struct timeval now;
	gettimeofday(&now, NULL);
	long long d = (long long)delta.tv_sec * 1000000 + delta.tv_usec;
	printf("hostsync %d, clock near ours %d, delta small %d\n", cc,
	       clk.tv_sec >= now.tv_sec - 5 && clk.tv_sec <= now.tv_sec + 5, d > -2000000 && d < 2000000);
	printf("hostsync no such host %d\n", pvm_hostsync(0x3ff00000, &clk, &delta));

	int *fds = NULL;
	int n = pvm_getfds(&fds);
	printf("getfds %d, first valid %d\n", n >= 1, n >= 1 && fds[0] >= 0);

	int *tids = NULL, ntids = -1;
	cc = pvm_getnoresets(&tids, &ntids);
	printf("getnoresets %d count %d\n", cc, ntids);
	pvm_setopt(PvmNoReset, 1);
	cc = pvm_getnoresets(&tids, &ntids);
	printf("getnoresets after PvmNoReset %d count %d me %d\n", cc, ntids,
	       ntids == 1 && tids[0] == pvm_mytid());
	pvm_setopt(PvmNoReset, 0);
	cc = pvm_getnoresets(&tids, &ntids);
	printf("getnoresets after clearing %d count %d\n", cc, ntids);

	setenv("PVM_EXPORT", "A:B", 1);
	pvm_export("C");
	printf("export C: %s\n", getenv("PVM_EXPORT"));
	pvm_export("B");
	pvm_export("");
	printf("export B again: %s\n", getenv("PVM_EXPORT"));
	pvm_unexport("A");
	printf("unexport A: %s\n", getenv("PVM_EXPORT"));
	pvm_unexport("C");
	printf("unexport C: %s\n", getenv("PVM_EXPORT"));
	pvm_unexport("Z");
	pvm_unexport("B");
	printf("unexport all: '%s'\n", getenv("PVM_EXPORT"));
	unsetenv("PVM_EXPORT");
	pvm_export("D");
	printf("export into nothing: %s\n", getenv("PVM_EXPORT"));
	unsetenv("PVM_EXPORT");
}

static int class_entries(const char *class)
{
	int n = 0;
	struct pvmmboxinfo *classes;
	if (pvm_getmboxinfo((char *)class, &n, &classes) < 0 || n < 1)
		return 0;
	return classes[0].mi_nentries;
}

static void roles(void)
{
	int cc = pvm_reg_tasker();
	printf("reg_tasker %d, listed %d\n", cc, class_entries(PVMTASKERCLASS));
	cc = pvm_reg_tasker();
	printf("reg_tasker again (off) %d, listed %d\n", cc, class_entries(PVMTASKERCLASS));
	cc = pvm_reg_hoster();
	printf("reg_hoster %d, listed %d\n", cc, class_entries(PVMHOSTERCLASS));
	cc = pvm_reg_hoster();
	printf("reg_hoster again (off) %d, listed %d\n", cc, class_entries(PVMHOSTERCLASS));
}

/* A task that registers as resource manager (the pvmd then sends it SM_* requests). */
static void resource_manager(void)
{
	struct pvmhostinfo *h = NULL;
	int cc = pvm_reg_rm(&h);
	printf("reg_rm %d host %d name %d, listed %d\n", cc, h && h->hi_tid == pvm_tidtohost(pvm_mytid()),
	       h && h->hi_name && h->hi_name[0], class_entries(PVMRMCLASS));
}

static void catch_output(char *self)
{
	printf("catchout %d\n", pvm_catchout(stdout));
	fflush(stdout);
	char *args[] = { "print", NULL };
	int child = 0;
	printf("spawned %d\n", pvm_spawn(self, args, PvmTaskDefault, "", 1, &child));
	fflush(stdout);
}

#ifdef SERVICES_AN2
int pvm_getmwid(int mid);   /* ours only: Debian's 3.4.6 does not have them */
int pvm_setmwid(int mid, int wid);
#endif
int pvm_gettmask(int who, char *tmask);
int pvm_settmask(int who, char *tmask);
int pvm_vpackf(const char *fmt, va_list ap);
int pvm_vunpackf(const char *fmt, va_list ap);

static int pack_v(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cc = pvm_vpackf(fmt, ap);
	va_end(ap);
	return cc;
}

static int unpack_v(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cc = pvm_vunpackf(fmt, ap);
	va_end(ap);
	return cc;
}

/* Calls the other tests do not make: contexts, message-in-a-message, minfo, siblings,
 * strerror, tickle. */
static void extras(void)
{
	int me = pvm_mytid(), v = 0;
	int ctx = pvm_newcontext();
	int old = pvm_setcontext(ctx);
	send_self(5, 1);
	/* arrived (seen from its own context) before the other context looks */
	int arrived = 0;
	for (int i = 0; i < 3000 && !arrived; i++) {
		arrived = pvm_probe(-1, 5) > 0;
		if (!arrived)
			usleep(10000);
	}
	if (!arrived) {
		fprintf(stderr, "services_check: FAIL a message to ourselves did not arrive within 30 s\n");
		exit(1);
	}
	pvm_setcontext(old);
	int other = pvm_nrecv(-1, 5);
	pvm_setcontext(ctx);
	struct timeval wait = { 5, 0 };
	int here = pvm_trecv(-1, 5, &wait);
	pvm_setcontext(old);
	printf("context: new %d, other context sees it %d, its own %d, free %d\n", ctx > 0,
	       other > 0, here > 0, pvm_freecontext(ctx));

	int inner = pvm_mkbuf(PvmDataDefault);
	int save = pvm_setsbuf(inner);
	v = 7;
	pvm_pkint(&v, 1, 1);
	pvm_setsbuf(pvm_mkbuf(PvmDataDefault));
	int cc = pvm_pkmesg(inner);
	pvm_send(me, 6);
	pvm_recv(me, 6);
	int got = pvm_upkmesg();
	pvm_setrbuf(got);
	v = 0;
	pvm_upkint(&v, 1, 1);
	printf("pkmesg %d upkmesg %d value %d\n", cc, got > 0, v);
	pvm_freebuf(got);
	pvm_freebuf(pvm_setsbuf(pvm_mkbuf(PvmDataDefault)));
	cc = pvm_pkmesgbody(inner);
	pvm_send(me, 8);
	pvm_recv(me, 8);
	v = 0;
	pvm_upkint(&v, 1, 1);
	printf("pkmesgbody %d value %d\n", cc, v);
	pvm_freebuf(pvm_setsbuf(save));
	pvm_freebuf(inner);

	struct pvmminfo mi;
	int mid = pvm_mkbuf(PvmDataDefault);
	pvm_getminfo(mid, &mi);
	mi.tag = 99;
	cc = pvm_setminfo(mid, &mi);
	pvm_getminfo(mid, &mi);
	printf("setminfo %d tag %d\n", cc, mi.tag);
	pvm_initsend(PvmDataDefault);
	cc = pack_v("%d", 31);
	pvm_send(me, 9);
	pvm_recv(me, 9);
	v = 0;
	int ucc = unpack_v("%d", &v);
	printf("vpackf %d vunpackf %d value %d\n", cc, ucc, v);
	pvm_freebuf(mid);

	int *sibs = NULL;
	int n = pvm_siblings(&sibs);
	printf("siblings %d, me %d\n", n, n == 1 && sibs && sibs[0] == me);

	pvm_errno = PvmNoBuf;
	printf("strerror: %s\n", pvm_strerror());
	int args[1] = { 0 }, nresp = 0, resp[16];
	printf("tickle %d\n", pvm_tickle(1, args, &nresp, resp));
}

/* A tasker: the pvmd asks it (SM_STTASK) to start the tasks it spawns; it starts one, reports
 * its exit (SM_TASKX) and unregisters. */
static void tasker(void)
{
	pvm_mytid();
	pvm_setopt(PvmResvTids, 1);   /* it talks to the pvmd */
	printf("reg_tasker %d\n", pvm_reg_tasker());
	fflush(stdout);
	struct timeval wait = { 20, 0 };
	int mid = pvm_trecv(-1, SM_STTASK, &wait);
	int tid = 0, flags = 0, argc = 0, nenv = 0, found_epid = 0;
	char path[1024] = "", *args[16] = { 0 }, *envs[256] = { 0 };
	pvm_upkint(&tid, 1, 1);
	pvm_upkint(&flags, 1, 1);
	pvm_upkstr(path);
	pvm_upkint(&argc, 1, 1);
	for (int i = 0; i < argc && i < 15; i++) {
		args[i] = malloc(1024);
		pvm_upkstr(args[i]);
	}
	pvm_upkint(&nenv, 1, 1);
	for (int i = 0; i < nenv && i < 255; i++) {
		envs[i] = malloc(4096);
		pvm_upkstr(envs[i]);
		found_epid |= !strncmp(envs[i], "PVMEPID=", 8);
	}
	int src = 0;
	if (mid > 0)
		pvm_bufinfo(mid, NULL, NULL, &src);
	printf("SM_STTASK %d: from a pvmd %d, a task of our host %d, argc %d, argv[1] %s, "
	       "PVMEPID given %d\n", mid > 0, (src & TIDPVMD_TASKER) != 0,
	       pvm_tidtohost(tid) == pvm_tidtohost(pvm_mytid()), argc, argc > 1 ? args[1] : "-",
	       found_epid);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < nenv && envs[i]; i++)
			putenv(envs[i]);
		execv(path, args);
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	int rep[6] = { tid, status, 0, 0, 0, 0 };
	pvm_initsend(PvmDataDefault);
	pvm_pkint(rep, 6, 1);
	printf("task exit %d, SM_TASKX sent %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       pvm_send(TIDPVMD_TASKER, SM_TASKX) == 0);
	printf("reg_tasker off %d\n", pvm_reg_tasker());
	for (int i = 0; i < 16; i++)
		free(args[i]);
	for (int i = 0; i < 256; i++)
		free(envs[i]);
	pvm_exit();
}

/* Spawns a task while a tasker runs: the tasker starts it. */
static void spawn_via_tasker(char *self)
{
	pvm_mytid();
	char *args[] = { "quit", NULL };
	int child = 0;
	int n = pvm_spawn(self, args, PvmTaskDefault, "", 1, &child);
	pvm_notify(PvmTaskExit, 91, 1, &child);
	struct timeval wait = { 20, 0 };
	int mid = pvm_trecv(-1, 91, &wait);
	int who = 0;
	if (mid > 0)
		pvm_upkint(&who, 1, 1);
	printf("spawned %d, its exit seen %d\n", n, mid > 0 && who == child);
	pvm_exit();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "tasker")) {
		tasker();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "spawnq")) {
		spawn_via_tasker(argv[0]);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "tracing")) {   /* both libraries: the same answers */
		pvm_mytid();
		pvm_setopt(PvmAutoErr, 0);
		printf("reg_tracer %d", pvm_reg_tracer(-1, -1, -1, -1, "", 0, 0));
		printf(" again (off) %d\n", pvm_reg_tracer(-1, -1, -1, -1, "", 0, 0));
		char mask[64] = "";
		int got = pvm_gettmask(PvmTaskSelf, mask);
		printf("gettmask %d (length %zu) settmask %d child %d bad who %d\n", got, strlen(mask),
		       pvm_settmask(PvmTaskSelf, mask), pvm_settmask(PvmTaskChild, mask),
		       pvm_gettmask(7, mask));
		pvm_exit();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "an2only")) {   /* mwid */
		pvm_mytid();
		pvm_setopt(PvmAutoErr, 0);
#ifdef SERVICES_AN2
		int mid = pvm_mkbuf(PvmDataDefault);
		int cc = pvm_setmwid(mid, 1234);
		printf("setmwid %d getmwid %d bad %d\n", cc, pvm_getmwid(mid), pvm_getmwid(-1));
#endif
		pvm_exit();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "quit")) {
		pvm_mytid();
		pvm_exit();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "print")) {   /* output for the parent's catchout */
		pvm_mytid();
		printf("line one\nline two\n");
		fflush(stdout);
		printf("no newline");
		fflush(stdout);
		pvm_exit();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "rm")) {
		resource_manager();
		pvm_exit();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "start")) {   /* no pvmd yet: start one */
		char *args[] = { argv[2], NULL };
		int cc = pvm_start_pvmd(1, args, 0);
		printf("start_pvmd %d, joined %d\n", cc, pvm_mytid() > 0);
		printf("start_pvmd again %d\n", pvm_start_pvmd(1, args, 0));
		fflush(stdout);
		pvm_halt();
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmAutoErr, 0);
	handlers(argv[0]);
	extras();
	database();
	misc();
	roles();
	catch_output(argv[0]);
	pvm_exit();
	printf("after exit\n");
	return 0;
}
