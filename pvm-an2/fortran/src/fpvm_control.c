/* Fortran binding: tasks, hosts, options and contexts. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>   /* before <pvm3.h>, which declares pvm_catchout only when FILE is known */

#include "fpvm.h"

void pvmfmytid_(int *tid) { *tid = pvm_mytid(); }
void pvmfparent_(int *tid) { *tid = pvm_parent(); }
void pvmfexit_(int *info) { *info = pvm_exit(); }
void pvmfkill_(int *tid, int *info) { *info = pvm_kill(*tid); }
void pvmfsendsig_(int *tid, int *signum, int *info) { *info = pvm_sendsig(*tid, *signum); }
void pvmfpstat_(int *tid, int *status) { *status = pvm_pstat(*tid); }
void pvmftidtohost_(int *tid, int *dtid) { *dtid = pvm_tidtohost(*tid); }
void pvmfhalt_(int *info) { *info = pvm_halt(); }
void pvmfnotify_(int *what, int *msgtag, int *cnt, int *tids, int *info)
{
	*info = pvm_notify(*what, *msgtag, *cnt, tids);
}
void pvmfsetopt_(int *what, int *val, int *oldval) { *oldval = pvm_setopt(*what, *val); }
void pvmfgetopt_(int *what, int *val) { *val = pvm_getopt(*what); }
void pvmfsleep_(int *secs) { if (*secs > 0) sleep((unsigned)*secs); }
void pvmfnewcontext_(int *ctx) { *ctx = pvm_newcontext(); }
void pvmfsetcontext_(int *ctx, int *oldctx) { *oldctx = pvm_setcontext(*ctx); }
void pvmfgetcontext_(int *ctx) { *ctx = pvm_getcontext(); }
void pvmffreecontext_(int *ctx, int *info) { *info = pvm_freecontext(*ctx); }
/* non-zero: children's output to this task's stdout */
void pvmfcatchout_(int *onoff, int *info) { *info = pvm_catchout(*onoff ? stdout : NULL); }

/* A call taking one string: *out = call(C string), or PvmNoMem. */
#define WITH_STRING(f, len, out, call)                      \
	do {                                                    \
		char *s_ = fpvm_cstring(f, len);                      \
		*(out) = s_ ? (call) : PvmNoMem;                    \
		free(s_);                                           \
	} while (0)

void pvmfspawn_(char *task, int *flag, char *where, int *ntask, int *tids, int *numt,
                flen_t task_len, flen_t where_len)
{
	char *t = fpvm_cstring(task, task_len);
	/* a where of "*" (or blank) means anywhere */
	char *w = where_len && where[0] != '*' ? fpvm_cstring(where, where_len) : NULL;
	if (!t || (where_len && where[0] != '*' && !w))
		*numt = PvmNoMem;
	else
		*numt = pvm_spawn(t, NULL, *flag, w && *w ? w : NULL, *ntask, tids);
	free(t);
	free(w);
}

void pvmfaddhost_(char *host, int *info, flen_t host_len)
{
	char *h = fpvm_cstring(host, host_len);
	int one = 0;
	*info = h ? pvm_addhosts(&h, 1, &one) : PvmNoMem;
	if (*info >= 0)
		*info = one;   /* the host's dtid, or its error */
	free(h);
}

void pvmfdelhost_(char *host, int *info, flen_t host_len)
{
	char *h = fpvm_cstring(host, host_len);
	int one = 0;
	*info = h ? pvm_delhosts(&h, 1, &one) : PvmNoMem;
	if (*info >= 0)
		*info = one;
	free(h);
}

void pvmfmstat_(char *host, int *mstat, flen_t host_len)
{
	WITH_STRING(host, host_len, mstat, pvm_mstat(s_));
}

void pvmfarchcode_(char *arch, int *code, flen_t arch_len)
{
	WITH_STRING(arch, arch_len, code, pvm_archcode(s_));
}

void pvmfperror_(char *msg, int *info, flen_t msg_len)
{
	char *m = fpvm_cstring_raw(msg, msg_len);   /* printed as given, blanks and all */
	*info = m ? pvm_perror(m) : PvmNoMem;
	free(m);
}

void pvmfhostsync_(int *host, int *clksec, int *clkusec, int *deltasec, int *deltausec, int *info)
{
	struct timeval clk = { 0, 0 }, delta = { 0, 0 };
	*info = pvm_hostsync(*host, &clk, &delta);
	*clksec = (int)clk.tv_sec;
	*clkusec = (int)clk.tv_usec;
	*deltasec = (int)delta.tv_sec;
	*deltausec = (int)delta.tv_usec;
}

/* The pvmd's arguments, separated by blanks in one string. */
void pvmfstartpvmd_(char *args, int *block, int *info, flen_t args_len)
{
	char *line = fpvm_cstring(args, args_len);
	char **argv = calloc(args_len / 2 + 2, sizeof *argv);
	if (!line || !argv) {
		*info = PvmNoMem;
	} else {
		int argc = 0;
		char *save = NULL;
		for (char *a = strtok_r(line, " \t", &save); a; a = strtok_r(NULL, " \t", &save))
			argv[argc++] = a;
		*info = pvm_start_pvmd(argc, argv, *block);
	}
	free(argv);
	free(line);
}

/* pvmfsiblings: the list is read once; index in [0, ntids) gives that sibling, any other
 * index PvmNoTask (as Debian's binding does). */
static int sibling_count = -1;
static int *siblings;

void pvmfsiblings_(int *ntids, int *index, int *sibling)
{
	if (sibling_count == -1)
		sibling_count = pvm_siblings(&siblings);
	*ntids = sibling_count;
	if (*index >= 0 && *index < sibling_count)
		*sibling = siblings[*index];
	else
		*sibling = PvmNoTask;
}

/* pvmfconfig and pvmftasks return one entry per call and cycle through a snapshot taken at
 * the first call of a cycle; a count of -1 on entry starts a new cycle. info is 1 when an
 * entry was returned, as with Debian's binding. */
static struct {
	int count, narch, next;
	struct pvmhostinfo *hosts;
} config_cycle;

void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch, int *speed,
                 int *info, flen_t name_len, flen_t arch_len)
{
	if (*nhost == -1)
		config_cycle.count = 0;
	if (config_cycle.count == 0) {
		int cc = pvm_config(&config_cycle.count, &config_cycle.narch, &config_cycle.hosts);
		if (cc < 0) {
			config_cycle.count = 0;
			*info = cc;
			return;
		}
		config_cycle.next = 0;
	}
	*nhost = config_cycle.count;
	*narch = config_cycle.narch;
	if (config_cycle.count > 0) {
		struct pvmhostinfo *h = &config_cycle.hosts[config_cycle.next++];
		*dtid = h->hi_tid;
		fpvm_fstring(name, name_len, h->hi_name);
		fpvm_fstring(arch, arch_len, h->hi_arch);
		*speed = h->hi_speed;
	}
	*info = config_cycle.count > 0;   /* 1: an entry was returned (as Debian's) */
	if (config_cycle.next >= config_cycle.count)
		config_cycle.count = 0;
}

static struct {
	int count, next;
	struct pvmtaskinfo *tasks;
} tasks_cycle;

void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid, int *flag, char *aout,
                int *info, flen_t aout_len)
{
	if (*ntask == -1)
		tasks_cycle.count = 0;
	if (tasks_cycle.count == 0) {
		int cc = pvm_tasks(*where, &tasks_cycle.count, &tasks_cycle.tasks);
		if (cc < 0) {
			tasks_cycle.count = 0;
			*info = cc;
			return;
		}
		tasks_cycle.next = 0;
	}
	*ntask = tasks_cycle.count;
	if (tasks_cycle.count > 0) {
		struct pvmtaskinfo *t = &tasks_cycle.tasks[tasks_cycle.next++];
		*tid = t->ti_tid;
		*ptid = t->ti_ptid;
		*dtid = t->ti_host;
		*flag = t->ti_flag;
		fpvm_fstring(aout, aout_len, t->ti_a_out);
	}
	*info = tasks_cycle.count > 0;   /* 1: an entry was returned (as Debian's) */
	if (tasks_cycle.next >= tasks_cycle.count)
		tasks_cycle.count = 0;
}
