/* app_team.h — what the example applications share: options, a team of PVM tasks (the
 * master spawns copies of its own program, spread over the virtual machine's hosts), a
 * barrier, receives that notice a dead partner, timing and the one-line result. */
#ifndef APP_TEAM_H
#define APP_TEAM_H

#include <stddef.h>

#define APP_MAX_TASKS 64

enum app_tag {                /* message tags; the applications use APP_TAG_USER and up */
	APP_TAG_TEAM = 1, APP_TAG_READY, APP_TAG_GO, APP_TAG_CPU, APP_TAG_USER = 16
};

struct app_options {
	int tasks;            /* --tasks: tasks in the team, master included */
	long size;            /* --size: the application's problem size */
	long iters;           /* --iters: the application's repetitions (0: its default) */
	int worker;           /* --worker: spawned by the master (internal) */
};

struct app_team {
	int me;                     /* rank: 0 is the master */
	int ntasks;
	int tids[APP_MAX_TASKS];    /* by rank */
	int nhosts;                 /* hosts the team is spread over */
};

/* Parses the common options (usage names the application's meaning of size and iters);
 * exits 2 with a message on bad input. */
void app_parse(int argc, char **argv, const char *usage, struct app_options *o);

/* Joins PVM (with PvmRouteDirect if APP_ROUTE=direct is in the environment); the master
 * spawns tasks-1 workers running this program with the same options
 * (worker i on host i mod hosts, the master's own first) and tells everyone the team. */
void app_team_start(int argc, char **argv, const struct app_options *o, struct app_team *t);

/* Every task calls it once its data is ready; returns (with the master's clock started)
 * when all have. */
void app_barrier(struct app_team *t);

/* pvm_recv(tid, tag), but a partner that has gone ends the program with an error instead
 * of a hang (looked at every second while waiting). Returns the buffer id. */
int app_recv(const struct app_team *t, int tid, int tag);

/* Packs and sends (PvmDataRaw) n bytes to one task, or to several with pvm_mcast. */
void app_send(int tid, int tag, const void *data, size_t n);
void app_mcast(int *tids, int ntids, int tag, const void *data, size_t n);
/* Unpacks n bytes of the current receive buffer into data; the length must match. */
void app_unpack(void *data, size_t n);

/* Seconds since app_barrier (the master's clock): the end of the timed section. */
double app_seconds(void);

/* The master prints "<app> tasks=T hosts=H size=S iters=I seconds=X result=ok|MISMATCH
 * detail team_cpu=T [watched_cpu=C]" (T: CPU seconds the team's tasks used from the barrier
 * to their part's end, each task's own clock, summed by the master; C: those used meanwhile by
 * the processes listed in APP_CPU_PIDS, read from /proc: bench/apps gives an2d's); every task
 * leaves PVM. Returns the exit status (0 ok, 1 mismatch). */
int app_finish(struct app_team *t, const char *app, const struct app_options *o, double seconds,
               int ok, const char *detail);

/* True when APP_TEST_CORRUPT=1 is in the environment: the master then spoils one value of
 * its result before the check, so that a test sees the check fail. */
int app_test_corrupt(void);

/* Prints the error, kills the team (master) and exits 2. */
void app_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The block [lo, hi) of n items that rank r of p owns (the first n % p ranks one more). */
void app_block(long n, int p, int r, long *lo, long *hi);

#endif
