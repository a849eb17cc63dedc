/* Group library check: a master spawns N workers (of one or two programs, e.g. ours and one
 * built on Debian's libgpvm3) which share groups and check every group call; each worker
 * reports to the master, which prints one line per worker and exits 0 only if all passed.
 *   grp_check master <n> <group> <program> [<program2>]   (workers alternate programs)
 *   grp_check probe    exits 77 if this libpvm3 has no message boxes (pvmgs needs them) */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pvm3.h>

extern int pvm_errno;   /* exported by every libpvm3, not declared by <pvm3.h> */

enum { TAG_REPORT = 90, TAG_BCAST = 91, TAG_SCATTER = 93, TAG_JOINED = 94, TAG_GS_EXIT = 95,
       TAG_REDUCE = 200 };
enum { COUNT = 3, CHUNK = 4, LOOPS = 20, REPORT_WAIT_SEC = 90 };

static int parent_tid, my_tid, nworkers, my_inst;
static const char *group;

static void report(int ok, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&ok, 1, 1);
	pvm_pkstr(text);
	pvm_send(parent_tid, TAG_REPORT);
	pvm_exit();
	exit(ok ? 0 : 1);
}

static void fail_at(int line, const char *fmt, ...)
{
	char text[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	report(0, "line %d: %s", line, text);
}

#define CHECK(cond, ...) \
	do { if (!(cond)) fail_at(__LINE__, __VA_ARGS__); } while (0)

/* ---- reduce: values, expected results computed in doubles, comparison ---- */

enum op { OP_MAX, OP_MIN, OP_SUM, OP_PRODUCT, OP_USER };
static const char *const op_names[] = { "PvmMax", "PvmMin", "PvmSum", "PvmProduct", "user" };

static int is_complex(int type) { return type == PVM_CPLX || type == PVM_DCPLX; }

/* Member i's k-th value: (re, im). Small integers, so every order of combining is exact. */
static void value(enum op op, int type, int i, int k, double *re, double *im)
{
	*im = 0;
	if (op == OP_PRODUCT) {
		*re = (i + k) % 3 + 1;
		if (is_complex(type)) {
			*re = 1;
			*im = (i + k) % 2 ? -1 : 1;
		}
	} else if (op == OP_SUM) {
		*re = (i * 7 + k * 3) % 11 - 5;
		*im = is_complex(type) ? i - k : 0;
	} else {   /* max, min: distinct moduli for complex, negatives for the rest */
		*re = is_complex(type) ? i + 1 + k : (i * 7 + k * 3) % 11 - 5;
		*im = is_complex(type) ? -(double)i : 0;
	}
	/* Debian's libpvm3 carries a long in XDR as 32 bits and does not sign-extend it when
	 * unpacking: a negative long comes back as 2^32 - |x|, with the stock group library too */
	if (type == PVM_LONG && *re < 0)
		*re += 20;
}

static void expected(enum op op, int type, int k, double *re, double *im)
{
	value(op, type, 0, k, re, im);
	for (int i = 1; i < nworkers; i++) {
		double r = 0, m = 0;
		value(op, type, i, k, &r, &m);
		double better = r * r + m * m, now = *re * *re + *im * *im;
		if (op == OP_SUM) {
			*re += r;
			*im += m;
		} else if (op == OP_PRODUCT) {
			double nr = *re * r - *im * m, ni = *re * m + *im * r;
			*re = nr;
			*im = ni;
		} else if (is_complex(type)) {
			if ((op == OP_MAX && better > now) || (op == OP_MIN && better < now)) {
				*re = r;
				*im = m;
			}
		} else if ((op == OP_MAX && r > *re) || (op == OP_MIN && r < *re)) {
			*re = r;
		}
	}
}

static void store(int type, void *buf, int k, double re, double im)
{
	switch (type) {
	case PVM_BYTE: ((signed char *)buf)[k] = (signed char)re; break;
	case PVM_SHORT: ((short *)buf)[k] = (short)re; break;
	case PVM_INT: ((int *)buf)[k] = (int)re; break;
	case PVM_LONG: ((long *)buf)[k] = (long)re; break;
	case PVM_FLOAT: ((float *)buf)[k] = (float)re; break;
	case PVM_DOUBLE: ((double *)buf)[k] = re; break;
	case PVM_CPLX: ((float *)buf)[2 * k] = (float)re; ((float *)buf)[2 * k + 1] = (float)im; break;
	case PVM_DCPLX: ((double *)buf)[2 * k] = re; ((double *)buf)[2 * k + 1] = im; break;
	}
}

static void load(int type, const void *buf, int k, double *re, double *im)
{
	*im = 0;
	switch (type) {
	case PVM_BYTE: *re = ((const signed char *)buf)[k]; break;
	case PVM_SHORT: *re = ((const short *)buf)[k]; break;
	case PVM_INT: *re = ((const int *)buf)[k]; break;
	case PVM_LONG: *re = (double)((const long *)buf)[k]; break;
	case PVM_FLOAT: *re = ((const float *)buf)[k]; break;
	case PVM_DOUBLE: *re = ((const double *)buf)[k]; break;
	case PVM_CPLX: *re = ((const float *)buf)[2 * k]; *im = ((const float *)buf)[2 * k + 1]; break;
	case PVM_DCPLX: *re = ((const double *)buf)[2 * k]; *im = ((const double *)buf)[2 * k + 1]; break;
	}
}

/* A user operation: bitwise exclusive or of ints (associative and commutative). */
static void xor_op(int *type, void *x, void *y, int *num, int *info)
{
	if (*type != PVM_INT) {
		*info = PvmBadParam;
		return;
	}
	for (int i = 0; i < *num; i++)
		((int *)x)[i] ^= ((int *)y)[i];
	*info = PvmOk;
}

/* Each reduction its own tag: pvm_reduce does not block, and the stock fan-in takes the
 * next reduction's contribution for this one's if both share a tag (documented caveat). */
static void check_reduce(enum op op, int type, int root, int tag)
{
	static void (*const funcs[])(int *, void *, void *, int *, int *) =
		{ PvmMax, PvmMin, PvmSum, PvmProduct };
	double buf[2 * COUNT];
	for (int k = 0; k < COUNT; k++) {
		double re = 0, im = 0;
		value(op, type, my_inst, k, &re, &im);
		store(type, buf, k, re, im);
	}
	int cc = pvm_reduce(funcs[op], buf, COUNT, type, tag, (char *)group, root);
	CHECK(cc == 0, "pvm_reduce(%s, type %d) = %d", op_names[op], type, cc);
	if (my_inst != root)
		return;
	for (int k = 0; k < COUNT; k++) {
		double re = 0, im = 0, want_re = 0, want_im = 0;
		load(type, buf, k, &re, &im);
		expected(op, type, k, &want_re, &want_im);
		CHECK(re == want_re && im == want_im, "pvm_reduce(%s, type %d)[%d] = (%g,%g), want (%g,%g)",
		      op_names[op], type, k, re, im, want_re, want_im);
	}
}

static void check_reductions(void)
{
	static const int types[] = { PVM_BYTE, PVM_SHORT, PVM_INT, PVM_LONG, PVM_FLOAT, PVM_DOUBLE,
	                             PVM_CPLX, PVM_DCPLX };
	for (int op = OP_MAX; op <= OP_PRODUCT; op++) {
		for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
			if (types[t] == PVM_BYTE && (op == OP_SUM || op == OP_PRODUCT))
				continue;   /* stock refuses bytes there */
			check_reduce((enum op)op, types[t], (int)(op + t) % nworkers, TAG_REDUCE + 16 * op + (int)t);
		}
	}
	int x[COUNT], want[COUNT] = { 0 };
	for (int k = 0; k < COUNT; k++) {
		x[k] = (my_inst + 1) * (k + 3) * 37;
		for (int i = 0; i < nworkers; i++)
			want[k] ^= (i + 1) * (k + 3) * 37;
	}
	int root = nworkers - 1;
	int cc = pvm_reduce(xor_op, x, COUNT, PVM_INT, TAG_REDUCE + 100, (char *)group, root);
	CHECK(cc == 0, "pvm_reduce(user) = %d", cc);
	if (my_inst == root)
		CHECK(memcmp(x, want, sizeof x) == 0, "pvm_reduce(user): %d %d %d", x[0], x[1], x[2]);
	/* refused alike by every member before anything is sent */
	pvm_setopt(PvmAutoErr, 0);
	CHECK(pvm_reduce(PvmSum, x, COUNT, PVM_UINT, TAG_REDUCE, (char *)group, 0) == PvmBadParam,
	      "pvm_reduce of PVM_UINT not refused");
	CHECK(pvm_reduce(PvmSum, x, 0, PVM_INT, TAG_REDUCE, (char *)group, 0) == PvmBadParam,
	      "pvm_reduce of 0 items not refused");
	pvm_setopt(PvmAutoErr, 1);
}

/* ---- membership ---- */

static void check_consistency(const char *g, int size)
{
	CHECK(pvm_gsize((char *)g) == size, "pvm_gsize(%s) = %d, want %d", g, pvm_gsize((char *)g), size);
	CHECK(pvm_gettid((char *)g, my_inst) == my_tid, "pvm_gettid(%s, me)", g);
	CHECK(pvm_getinst((char *)g, my_tid) == my_inst, "pvm_getinst(%s, me)", g);
	for (int j = 0; j < size; j++) {
		int t = pvm_gettid((char *)g, j);
		CHECK(t > 0, "pvm_gettid(%s, %d) = %d", g, j, t);
		CHECK(pvm_getinst((char *)g, t) == j, "pvm_getinst(%s, t%x) != %d", g, t, j);
	}
}

static void check_errors(void)
{
	pvm_setopt(PvmAutoErr, 0);
	CHECK(pvm_joingroup((char *)group) == PvmDupGroup, "second join not PvmDupGroup");
	CHECK(pvm_getinst((char *)group, parent_tid) == PvmNotInGroup, "getinst of non-member");
	CHECK(pvm_gettid((char *)group, nworkers + 5) == PvmNoInst, "gettid of a free instance");
	CHECK(pvm_gsize("no-such-group") == PvmNoGroup, "gsize of a missing group");
	CHECK(pvm_lvgroup("no-such-group") == PvmNoGroup, "lvgroup of a missing group");
	CHECK(pvm_joingroup("") == PvmNullGroup, "join of \"\"");
	CHECK(pvm_gsize(NULL) == PvmNullGroup, "gsize(NULL)");
	CHECK(pvm_errno == PvmNullGroup, "pvm_errno after a failed call: %d", pvm_errno);
	pvm_setopt(PvmAutoErr, 1);
}

static void check_buffers_kept(void)
{
	int sbuf = pvm_initsend(PvmDataDefault);
	int marker = 777;
	pvm_pkint(&marker, 1, 1);
	int rbuf = pvm_getrbuf();
	pvm_gsize((char *)group);
	pvm_getinst((char *)group, my_tid);
	CHECK(pvm_getsbuf() == sbuf && pvm_getrbuf() == rbuf, "a group call changed the user's buffers");
	CHECK(pvm_getcontext() == 0, "a group call left its context set (%d)", pvm_getcontext());
}

/* Every member broadcasts once (in interop runs, both libraries send and receive). */
static void check_bcast(void)
{
	int magic = 4242;
	for (int root = 0; root < nworkers; root++) {
		if (my_inst == root) {
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&magic, 1, 1);
			pvm_pkint(&my_inst, 1, 1);
			CHECK(pvm_bcast((char *)group, TAG_BCAST) == 0, "pvm_bcast from %d", root);
		} else {
			int got = 0, from = -1, bytes, tag, src;
			CHECK(pvm_recv(-1, TAG_BCAST) > 0, "receiving the broadcast of %d", root);
			pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src);
			pvm_upkint(&got, 1, 1);
			pvm_upkint(&from, 1, 1);
			CHECK(got == magic && from == root && src == pvm_gettid((char *)group, root),
			      "broadcast content %d from %d (t%x), want %d", got, from, src, root);
		}
		CHECK(pvm_barrier((char *)group, nworkers) == 0, "barrier after bcast");
		/* from itself only: the next round's broadcaster may already have sent */
		if (my_inst == root)
			CHECK(pvm_nrecv(pvm_mytid(), TAG_BCAST) == 0,
			      "the broadcaster received its own message");
	}
}

static void check_scatter_gather(int root)
{
	int all[64 * CHUNK], mine[CHUNK], back[64 * CHUNK];
	for (int i = 0; i < nworkers * CHUNK; i++)
		all[i] = i * 3 + 1;
	int cc = pvm_scatter(mine, my_inst == root ? all : NULL, CHUNK, PVM_INT, TAG_SCATTER,
	                     (char *)group, root);
	CHECK(cc == 0, "pvm_scatter = %d", cc);
	for (int k = 0; k < CHUNK; k++) {
		CHECK(mine[k] == (my_inst * CHUNK + k) * 3 + 1, "scatter[%d] = %d", k, mine[k]);
		mine[k] += 1000 * (my_inst + 1);
	}
	cc = pvm_gather(my_inst == root ? back : NULL, mine, CHUNK, PVM_INT, TAG_SCATTER,
	                (char *)group, root);
	CHECK(cc == 0, "pvm_gather = %d", cc);
	if (my_inst == root)
		for (int i = 0; i < nworkers * CHUNK; i++)
			CHECK(back[i] == all[i] + 1000 * (i / CHUNK + 1), "gather[%d] = %d", i, back[i]);
	double dall[64 * 2], dmine[2], dback[64 * 2];
	for (int i = 0; i < nworkers * 2; i++)
		dall[i] = i * 0.5 - 3.25;
	cc = pvm_scatter(dmine, dall, 2, PVM_DOUBLE, TAG_SCATTER, (char *)group, root);
	CHECK(cc == 0 && dmine[0] == my_inst * 1.0 - 3.25 && dmine[1] == my_inst + 0.5 - 3.25,
	      "pvm_scatter(double) = %d", cc);
	cc = pvm_gather(dback, dmine, 2, PVM_DOUBLE, TAG_SCATTER, (char *)group, root);
	CHECK(cc == 0, "pvm_gather(double) = %d", cc);
	if (my_inst == root)
		CHECK(memcmp(dall, dback, (size_t)nworkers * 2 * sizeof *dall) == 0, "gather(double)");
}

static void check_join_leave_loop(void)
{
	char loop_group[80];
	snprintf(loop_group, sizeof loop_group, "%s-loop", group);
	pvm_setopt(PvmAutoErr, 0);
	for (int r = 0; r < LOOPS; r++) {
		int i = pvm_joingroup(loop_group);
		CHECK(i >= 0 && i < nworkers, "loop %d: join = %d", r, i);
		int n = pvm_gsize(loop_group);
		CHECK(n >= 1 && n <= nworkers, "loop %d: gsize = %d", r, n);
		CHECK(pvm_getinst(loop_group, my_tid) == i, "loop %d: getinst", r);
		CHECK(pvm_gettid(loop_group, i) == my_tid, "loop %d: gettid", r);
		CHECK(pvm_lvgroup(loop_group) == 0, "loop %d: lvgroup", r);
		int again = pvm_getinst(loop_group, my_tid);
		CHECK(again == PvmNotInGroup || again == PvmNoGroup, "loop %d: still in (%d)", r, again);
		again = pvm_lvgroup(loop_group);
		CHECK(again == PvmNotInGroup || again == PvmNoGroup, "loop %d: left twice (%d)", r, again);
	}
	pvm_setopt(PvmAutoErr, 1);
}

static void worker(void)
{
	my_inst = pvm_joingroup((char *)group);
	CHECK(my_inst >= 0 && my_inst < nworkers, "pvm_joingroup = %d", my_inst);
	CHECK(pvm_barrier((char *)group, nworkers) == 0, "first barrier (%d tasks)", nworkers);
	check_consistency(group, nworkers);
	check_errors();
	check_buffers_kept();
	check_bcast();
	check_reductions();
	check_scatter_gather(nworkers / 2);
	check_scatter_gather(nworkers - 1);
	check_join_leave_loop();
	CHECK(pvm_barrier((char *)group, -1) == 0, "barrier -1");
	/* frozen: the map comes to every member, which then answers from it */
	int size = pvm_freezegroup((char *)group, nworkers);
	CHECK(size == nworkers, "pvm_freezegroup = %d", size);
	check_consistency(group, nworkers);
	check_scatter_gather(0);
	check_reduce(OP_SUM, PVM_INT, nworkers - 1, TAG_REDUCE + 101);
	CHECK(pvm_barrier((char *)group, nworkers) == 0, "last barrier");
	CHECK(pvm_lvgroup((char *)group) == 0, "pvm_lvgroup");
	report(1, "ok (instance %d)", my_inst);
}

/* Polls pvm_gsize until it is want, for up to 30 s. */
static int wait_for_size(const char *g, int want)
{
	int size = -1;
	for (int i = 0; i < 3000 && size != want; i++) {
		size = pvm_gsize((char *)g);
		if (size != want) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return size;
}

/* A member that exits without leaving is taken out of its groups by pvmgs. */
static int dead_member(const char *program)
{
	char g[80];
	snprintf(g, sizeof g, "%s-dead", group);
	int inst = pvm_joingroup(g);
	char *args[] = { "join-and-exit", g, NULL };
	int tid = 0;
	if (inst != 0 || pvm_spawn((char *)program, args, PvmTaskDefault, NULL, 1, &tid) != 1) {
		printf("FAIL: dead member: join %d, spawn t%x\n", inst, tid);
		return 0;
	}
	int grew = pvm_recv(tid, TAG_JOINED) > 0 ? pvm_gsize(g) : -1;
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_JOINED);   /* now exit */
	int shrank = wait_for_size(g, 1);
	if (grew == 2 && shrank != 1)
		printf("FAIL: pvmgs did not take the dead member out within 30 s\n");
	printf("member exiting without leaving (%s): group grew to %d, then %d\n", program, grew, shrank);
	pvm_lvgroup(g);
	return grew == 2 && shrank == 1;
}

/* With pvmgs killed, a barrier that can never complete fails instead of hanging. */
static int dead_server(void)
{
	char g[80];
	snprintf(g, sizeof g, "%s-orphan", group);
	int inst = pvm_joingroup(g);
	int saved = pvm_setrbuf(0), server = 0;
	int buf = pvm_recvinfo("pvmgs", 0, PvmMboxDefault);
	if (buf > 0) {
		pvm_setrbuf(buf);
		pvm_upkint(&server, 1, 1);
		pvm_freebuf(pvm_setrbuf(saved));
	}
	if (inst != 0 || server <= 0 || pvm_notify(PvmTaskExit, TAG_GS_EXIT, 1, &server) < 0 ||
	    pvm_kill(server) < 0) {
		printf("FAIL: dead server: join %d, pvmgs t%x\n", inst, server);
		return 0;
	}
	/* gone before the barrier asks it */
	struct timeval tv = { 30, 0 };
	if (pvm_trecv(-1, TAG_GS_EXIT, &tv) <= 0) {
		printf("FAIL: dead server: no exit notice from pvmgs t%x within 30 s of pvm_kill\n", server);
		return 0;
	}
	int cc = pvm_barrier(g, 2);
	printf("barrier after pvmgs died: %s\n", cc == PvmSysErr ? "PvmSysErr" : "unexpected");
	return cc == PvmSysErr;
}

static int master(int n, char **programs, int nprograms)
{
	int tids[64];
	if (n < 1 || n > 64)
		return 2;
	char count[16];
	snprintf(count, sizeof count, "%d", n);
	char *args[] = { "worker", count, (char *)group, NULL };
	for (int i = 0; i < n; i++) {
		const char *prog = programs[i % nprograms];
		if (pvm_spawn((char *)prog, args, PvmTaskDefault, NULL, 1, &tids[i]) != 1) {
			fprintf(stderr, "cannot spawn %s: %d\n", prog, tids[i]);
			return 1;
		}
	}
	int passed = 0, reported = 0;
	for (int waited = 0; reported < n && waited < REPORT_WAIT_SEC; ) {
		struct timeval tv = { 1, 0 };
		int buf = pvm_trecv(-1, TAG_REPORT, &tv);
		if (buf <= 0) {
			waited++;
			continue;
		}
		int ok = 0, bytes, tag, src;
		char text[512] = "";
		pvm_bufinfo(buf, &bytes, &tag, &src);
		pvm_upkint(&ok, 1, 1);
		pvm_upkstr(text);
		int i = 0;
		while (i < n && tids[i] != src)
			i++;
		printf("worker %d (%s): %s%s\n", i, programs[i % nprograms], ok ? "" : "FAIL: ", text);
		passed += ok;
		reported++;
		if (!ok && waited < REPORT_WAIT_SEC - 3)
			waited = REPORT_WAIT_SEC - 3;   /* the others may wait for it for ever */
	}
	if (reported < n)
		printf("FAIL: %d of %d workers did not report\n", n - reported, n);
	/* after everyone left, the group is gone */
	pvm_setopt(PvmAutoErr, 0);
	int size = pvm_gsize((char *)group);
	printf("group after all left: %s\n", size == PvmNoGroup ? "gone" : "still there");
	int ok = passed == n && reported == n && size == PvmNoGroup;
	return ok && dead_member(programs[nprograms - 1]) && dead_server() ? 0 : 1;
}

/* Exits 77 when pvm_putinfo is missing from this libpvm3 (PvmNotImpl): no pvmgs then.
 * Otherwise the entry must read back, or nothing else can work. */
static int probe(void)
{
	pvm_setopt(PvmAutoErr, 0);
	int buf = pvm_initsend(PvmDataDefault);
	int put = 4711, got = 0;
	pvm_pkint(&put, 1, 1);
	int index = pvm_putinfo("grp_check-probe", buf, PvmMboxDefault);
	if (index == PvmNotImpl) {
		printf("SKIP: pvm_putinfo answers PvmNotImpl in this libpvm3 (no message boxes yet), "
		       "and pvmgs registers and is found through a message box\n");
		return 77;
	}
	if (index < 0) {
		printf("FAIL: pvm_putinfo = %d\n", index);
		return 1;
	}
	int rbuf = pvm_recvinfo("grp_check-probe", index, PvmMboxDefault);
	if (rbuf > 0) {
		pvm_setrbuf(rbuf);
		pvm_upkint(&got, 1, 1);
	}
	pvm_delinfo("grp_check-probe", index, PvmMboxDefault);
	if (got != put) {
		printf("FAIL: pvm_recvinfo of our own entry = %d, unpacked %d\n", rbuf, got);
		return 1;
	}
	return 0;
}

/* Without a pvmd every group call fails at once with an error (no hang, no crash). */
static int no_pvmd(void)
{
	pvm_setopt(PvmAutoErr, 0);
	int x = 1, bad = 0;
	bad += pvm_joingroup("g") >= 0;
	bad += pvm_lvgroup("g") >= 0;
	bad += pvm_gsize("g") >= 0;
	bad += pvm_gettid("g", 0) >= 0;
	bad += pvm_getinst("g", 1) >= 0;
	bad += pvm_barrier("g", 1) >= 0;
	bad += pvm_bcast("g", 1) >= 0;
	bad += pvm_freezegroup("g", 1) >= 0;
	bad += pvm_reduce(PvmSum, &x, 1, PVM_INT, 1, "g", 0) >= 0;
	bad += pvm_scatter(&x, &x, 1, PVM_INT, 1, "g", 0) >= 0;
	bad += pvm_gather(&x, &x, 1, PVM_INT, 1, "g", 0) >= 0;
	printf("without a pvmd: %d group calls did not fail\n", bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "nopvmd") == 0)
		return no_pvmd();
	my_tid = pvm_mytid();
	if (my_tid < 0)
		return 1;
	parent_tid = pvm_parent();
	int rc = 2;
	if (argc >= 4 && strcmp(argv[1], "worker") == 0) {
		nworkers = atoi(argv[2]);
		group = argv[3];
		worker();
	} else if (argc >= 5 && strcmp(argv[1], "master") == 0) {
		group = argv[3];
		rc = master(atoi(argv[2]), argv + 4, argc - 4);
	} else if (argc == 3 && strcmp(argv[1], "join-and-exit") == 0) {
		rc = pvm_joingroup(argv[2]) < 0;
		pvm_initsend(PvmDataDefault);
		pvm_send(parent_tid, TAG_JOINED);
		pvm_recv(parent_tid, TAG_JOINED);   /* and exits without pvm_lvgroup */
	} else if (argc == 2 && strcmp(argv[1], "probe") == 0) {
		rc = probe();
	} else {
		fprintf(stderr, "usage: %s master <n> <group> <program>... | probe\n", argv[0]);
	}
	pvm_exit();
	return rc;
}
