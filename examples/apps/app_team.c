/* app_team.c — the example applications' team of PVM tasks, barrier, checked receives,
 * timing and result line (app_team.h). */
#include "app_team.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pvm3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct app_team *team;     /* for app_fail */
static struct timespec started;
/* at the start and end of the timed section: APP_CPU_PIDS' CPU seconds, this task's own */
static double watched_at_start, watched_at_end;
static double own_cpu_at_start, own_cpu_at_end;

static double own_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The CPU seconds used so far by the processes listed in APP_CPU_PIDS (comma-separated,
 * single-threaded daemons: an2d, an2switch), or -1 without the variable. From
 * /proc/PID/schedstat, the scheduler's run time in nanoseconds: /proc/PID/stat counts in
 * ticks of 10 ms, too coarse for runs of a few milliseconds. */
static double watched_cpu(void)
{
	const char *list = getenv("APP_CPU_PIDS");
	if (!list || !*list)
		return -1;
	double total = 0;
	for (const char *p = list; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;   /* not a number: the rest is ignored */
		char path[64];
		snprintf(path, sizeof path, "/proc/%ld/schedstat", pid);
		FILE *f = pid > 0 ? fopen(path, "r") : NULL;
		if (f) {
			unsigned long long run_ns;
			if (fscanf(f, "%llu", &run_ns) == 1)
				total += (double)run_ns / 1e9;
			fclose(f);
		}
		p = *end == ',' ? end + 1 : end;
	}
	return total;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void app_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (team && team->me == 0)
		for (int r = 1; r < team->ntasks; r++)
			if (team->tids[r] > 0)
				pvm_kill(team->tids[r]);
	pvm_exit();
	exit(2);
}

static long number(const char *name, const char *text, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s wants a whole number from %ld to %ld, not '%s'\n",
		        program_invocation_short_name, name, min, max, text);
		exit(2);
	}
	return v;
}

void app_parse(int argc, char **argv, const char *usage, struct app_options *o)
{
	static const struct option longopts[] = {
		{"tasks", required_argument, 0, 't'}, {"size", required_argument, 0, 's'},
		{"iters", required_argument, 0, 'i'}, {"worker", no_argument, 0, 'w'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	*o = (struct app_options){.tasks = 1, .size = 0, .iters = 0};
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o->tasks = (int)number("--tasks", optarg, 1, APP_MAX_TASKS); break;
		case 's': o->size = number("--size", optarg, 1, 1L << 30); break;
		case 'i': o->iters = number("--iters", optarg, 1, 1L << 30); break;
		case 'w': o->worker = 1; break;
		case 'h':
			printf("usage: %s [--tasks N] [--size N] [--iters N]\n%s\n",
			       program_invocation_short_name, usage);
			exit(0);
		default:
			fprintf(stderr, "usage: %s [--tasks N] [--size N] [--iters N]\n%s\n",
			        program_invocation_short_name, usage);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", program_invocation_short_name,
		        argv[optind]);
		exit(2);
	}
}

/* The virtual machine's hosts, the master's own first. */
static int team_hosts(struct pvmhostinfo *out, int max, int mytid)
{
	struct pvmhostinfo *hosts;
	int nhost, narch;
	if (pvm_config(&nhost, &narch, &hosts) < 0)
		app_fail("pvm_config failed");
	int mine = pvm_tidtohost(mytid), n = 0;
	for (int i = 0; i < nhost && n < max; i++)
		if (hosts[i].hi_tid == mine)
			out[n++] = hosts[i];
	for (int i = 0; i < nhost && n < max; i++)
		if (hosts[i].hi_tid != mine)
			out[n++] = hosts[i];
	return n;
}

static void spawn_workers(int argc, char **argv, struct app_team *t)
{
	static char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0)
		app_fail("cannot read /proc/self/exe");
	exe[len] = 0;
	char *args[argc + 1];
	for (int i = 1; i < argc; i++)
		args[i - 1] = argv[i];
	args[argc - 1] = "--worker";
	args[argc] = NULL;
	struct pvmhostinfo hosts[APP_MAX_TASKS];
	int nhosts = team_hosts(hosts, APP_MAX_TASKS, t->tids[0]);
	t->nhosts = nhosts < t->ntasks ? nhosts : t->ntasks;
	for (int r = 1; r < t->ntasks; r++) {
		const char *host = hosts[r % nhosts].hi_name;
		int n = pvm_spawn(exe, args, PvmTaskHost, (char *)host, 1, &t->tids[r]);
		if (n != 1)
			app_fail("spawning worker %d on %s failed (%d)", r, host, n < 0 ? n : t->tids[r]);
	}
}

void app_team_start(int argc, char **argv, const struct app_options *o, struct app_team *t)
{
	memset(t, 0, sizeof *t);
	team = t;
	int mytid = pvm_mytid();
	if (mytid < 0) {
		fprintf(stderr, "%s: cannot join PVM (is a pvmd running?)\n", program_invocation_short_name);
		exit(2);
	}
	pvm_setopt(PvmAutoErr, 0);
	const char *route = getenv("APP_ROUTE");   /* direct: stock PVM's task-to-task TCP */
	if (route && strcmp(route, "direct") == 0) {
		pvm_setopt(PvmRoute, PvmRouteDirect);
		pvm_export("APP_ROUTE");   /* the workers the master spawns route so too */
	}
	if (!o->worker) {
		t->me = 0;
		t->ntasks = o->tasks;
		t->tids[0] = mytid;
		t->nhosts = 1;
		spawn_workers(argc, argv, t);
		if (t->ntasks > 1) {
			pvm_initsend(PvmDataRaw);
			pvm_pkint(&t->ntasks, 1, 1);
			pvm_pkint(&t->nhosts, 1, 1);
			pvm_pkint(t->tids, t->ntasks, 1);
			pvm_mcast(t->tids + 1, t->ntasks - 1, APP_TAG_TEAM);
		}
		return;
	}
	t->ntasks = 2;   /* until the team is known: the master alone */
	t->tids[0] = pvm_parent();
	if (t->tids[0] < 0)
		app_fail("--worker is for tasks the master spawns");
	app_recv(t, t->tids[0], APP_TAG_TEAM);
	pvm_upkint(&t->ntasks, 1, 1);
	pvm_upkint(&t->nhosts, 1, 1);
	if (t->ntasks < 2 || t->ntasks > APP_MAX_TASKS || t->ntasks != o->tasks)
		app_fail("bad team size %d", t->ntasks);
	pvm_upkint(t->tids, t->ntasks, 1);
	t->me = -1;
	for (int r = 1; r < t->ntasks; r++)
		if (t->tids[r] == mytid)
			t->me = r;
	if (t->me < 0)
		app_fail("not in the team the master sent");
}

void app_barrier(struct app_team *t)
{
	if (t->me == 0) {
		for (int r = 1; r < t->ntasks; r++)
			app_recv(t, t->tids[r], APP_TAG_READY);
		if (t->ntasks > 1) {
			pvm_initsend(PvmDataRaw);
			pvm_mcast(t->tids + 1, t->ntasks - 1, APP_TAG_GO);
		}
		watched_at_start = watched_cpu();
		own_cpu_at_start = own_cpu();
		clock_gettime(CLOCK_MONOTONIC, &started);
	} else {
		pvm_initsend(PvmDataRaw);
		pvm_send(t->tids[0], APP_TAG_READY);
		app_recv(t, t->tids[0], APP_TAG_GO);
		own_cpu_at_start = own_cpu();
	}
}

double app_seconds(void)
{
	watched_at_end = watched_cpu();
	own_cpu_at_end = own_cpu();
	return now_s() - (started.tv_sec + started.tv_nsec / 1e9);
}

static void check_alive(const struct app_team *t, int tid)
{
	for (int r = 0; r < t->ntasks; r++) {
		if (r == t->me || t->tids[r] <= 0)
			continue;
		/* the one awaited, the master, or (the master awaiting anyone) every worker */
		if (t->tids[r] != tid && r != 0 && !(tid == -1 && t->me == 0))
			continue;
		if (pvm_pstat(t->tids[r]) != PvmOk)
			app_fail("task t%x (rank %d) has gone", t->tids[r], r);
	}
}

int app_recv(const struct app_team *t, int tid, int tag)
{
	for (;;) {
		struct timeval second = {1, 0};
		int buf = pvm_trecv(tid, tag, &second);
		if (buf > 0)
			return buf;
		if (buf < 0)
			app_fail("receive (from t%x, tag %d) failed: %d", tid, tag, buf);
		check_alive(t, tid);
	}
}

/* PVM counts items in an int: a larger message is refused here, not truncated */
static void check_length(size_t n)
{
	if (n > INT_MAX)
		app_fail("a message of %zu bytes is beyond what PVM packs at once (%d)", n, INT_MAX);
}

void app_send(int tid, int tag, const void *data, size_t n)
{
	check_length(n);
	pvm_initsend(PvmDataRaw);
	if (n && pvm_pkbyte((char *)data, (int)n, 1) < 0)
		app_fail("packing %zu bytes failed", n);
	if (pvm_send(tid, tag) < 0)
		app_fail("send to t%x failed", tid);
}

void app_mcast(int *tids, int ntids, int tag, const void *data, size_t n)
{
	if (ntids == 0)
		return;
	check_length(n);
	pvm_initsend(PvmDataRaw);
	if (n && pvm_pkbyte((char *)data, (int)n, 1) < 0)
		app_fail("packing %zu bytes failed", n);
	if (pvm_mcast(tids, ntids, tag) < 0)
		app_fail("multicast to %d tasks failed", ntids);
}

void app_unpack(void *data, size_t n)
{
	int bytes, tag, tid;
	check_length(n);
	if (pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &tid) < 0 || (size_t)bytes != n)
		app_fail("message from t%x (tag %d): %d bytes, %zu expected", tid, tag, bytes, n);
	if (n && pvm_upkbyte(data, (int)n, 1) < 0)
		app_fail("unpacking %zu bytes from t%x failed", n, tid);
}

int app_finish(struct app_team *t, const char *app, const struct app_options *o, double seconds,
               int ok, const char *detail)
{
	if (t->me == 0) {
		double team_cpu = own_cpu_at_end - own_cpu_at_start;
		for (int r = 1; r < t->ntasks; r++) {
			double theirs;
			app_recv(t, t->tids[r], APP_TAG_CPU);
			app_unpack(&theirs, sizeof theirs);
			team_cpu += theirs;
		}
		char watched[64] = "";
		if (watched_at_end >= 0 && watched_at_start >= 0)
			snprintf(watched, sizeof watched, " watched_cpu=%.6f", watched_at_end - watched_at_start);
		printf("%s tasks=%d hosts=%d size=%ld iters=%ld seconds=%.6f result=%s%s%s team_cpu=%.6f%s\n",
		       app, t->ntasks, t->nhosts, o->size, o->iters, seconds, ok ? "ok" : "MISMATCH",
		       detail && *detail ? " " : "", detail ? detail : "", team_cpu, watched);
		fflush(stdout);
		if (t->ntasks > 1) {   /* the workers wait for this: none leaves while awaited */
			pvm_initsend(PvmDataRaw);
			pvm_mcast(t->tids + 1, t->ntasks - 1, APP_TAG_GO);
		}
	} else {
		double mine = own_cpu() - own_cpu_at_start;
		app_send(t->tids[0], APP_TAG_CPU, &mine, sizeof mine);
		app_recv(t, t->tids[0], APP_TAG_GO);
	}
	pvm_exit();
	team = NULL;
	return ok ? 0 : 1;
}

int app_test_corrupt(void)
{
	const char *v = getenv("APP_TEST_CORRUPT");
	return v && strcmp(v, "1") == 0;
}

void app_block(long n, int p, int r, long *lo, long *hi)
{
	long base = n / p, extra = n % p;
	*lo = r * base + (r < extra ? r : extra);
	*hi = *lo + base + (r < extra ? 1 : 0);
}
