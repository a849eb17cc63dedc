/* Bad input for libpvm3-an2: no pvmd, a pvmd that dies, and a fake pvmd that sends
 * malformed fragments and messages. Every case must end in a clear error, never a crash
 * or a hang.  Usage: bad_input nopvmd | blocked | fake-corrupt | fake-close */
#include <pvm3.h>
#include <pvmproto.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define EXPECT(expr, want) do { int got_ = (expr); if (got_ != (want)) { failures++; \
	fprintf(stderr, "bad_input: FAIL %s = %d, expected %d\n", #expr, got_, (want)); } } while (0)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every call that needs the pvmd, without one: PvmSysErr, quickly. */
static void no_pvmd(void)
{
	double t0 = now();
	int tids[2], x = 1, n;
	struct timeval tmo = { 1, 0 };
	struct pvmhostinfo *hi;
	struct pvmtaskinfo *ti;
	char *names[] = { "h" };
	EXPECT(pvm_mytid(), PvmSysErr);
	EXPECT(pvm_parent(), PvmSysErr);
	EXPECT(pvm_initsend(PvmDataDefault) > 0, 1);   /* buffers work without a pvmd */
	EXPECT(pvm_pkint(&x, 1, 1), 0);
	EXPECT(pvm_send(0x40001, 1), PvmSysErr);
	EXPECT(pvm_mcast(tids, 0, 1), PvmSysErr);
	EXPECT(pvm_recv(-1, -1), PvmSysErr);
	EXPECT(pvm_nrecv(-1, -1), PvmSysErr);
	EXPECT(pvm_trecv(-1, -1, &tmo), PvmSysErr);
	EXPECT(pvm_probe(-1, -1), PvmSysErr);
	EXPECT(pvm_psend(0x40001, 1, &x, 1, PVM_INT), PvmSysErr);
	EXPECT(pvm_precv(-1, -1, &x, 1, PVM_INT, NULL, NULL, NULL), PvmSysErr);
	EXPECT(pvm_spawn("x", NULL, 0, "", 1, tids), PvmSysErr);
	EXPECT(pvm_kill(0x40001), PvmSysErr);
	EXPECT(pvm_sendsig(0x40001, 1), PvmSysErr);
	EXPECT(pvm_config(&n, &n, &hi), PvmSysErr);
	EXPECT(pvm_tasks(0, &n, &ti), PvmSysErr);
	EXPECT(pvm_pstat(0x40001), PvmSysErr);
	EXPECT(pvm_mstat("h"), PvmSysErr);
	EXPECT(pvm_addhosts(names, 1, NULL), PvmSysErr);
	EXPECT(pvm_delhosts(names, 1, NULL), PvmSysErr);
	EXPECT(pvm_notify(PvmTaskExit, 1, 1, tids), PvmSysErr);
	EXPECT(pvm_archcode("LINUX64"), PvmSysErr);
	EXPECT(pvm_halt(), PvmSysErr);
	EXPECT(pvm_exit(), 0);
	double dt = now() - t0;
	if (dt > 3.0) {
		failures++;
		fprintf(stderr, "bad_input: FAIL calls without pvmd took %.1f s\n", dt);
	}
}

/* The pvmd dies while we wait in pvm_recv (the script kills it). */
static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void blocked(void)
{
	EXPECT(pvm_mytid() > 0, 1);
	/* a receive that waits must sleep in poll(), not spin a core */
	struct timeval second = { 1, 0 };
	double c0 = cpu_seconds(), t0 = now();
	EXPECT(pvm_trecv(-1, 12345, &second), 0);
	double cpu = cpu_seconds() - c0, wall = now() - t0;
	if (wall < 0.9 || cpu > 0.1) {
		failures++;
		fprintf(stderr, "bad_input: FAIL waiting 1 s took %.2f s wall, %.3f s CPU\n", wall, cpu);
	}
	printf("waiting\n");
	fflush(stdout);
	EXPECT(pvm_recv(-1, -1), PvmSysErr);
	EXPECT(pvm_send(pvm_mytid(), 1), PvmSysErr);
	int x;
	EXPECT(pvm_nrecv(-1, -1), PvmSysErr);
	(void)x;
	pvm_exit();
}

/* ---- a fake pvmd speaking just enough of the protocol ---- */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static int readn(int fd, void *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)b + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Reads one whole message (single fragment from the library for small requests). */
static int read_msg(int fd, int *tag, unsigned char *body, size_t *len)
{
	unsigned char h[16];
	if (readn(fd, h, 16))
		return -1;
	uint32_t l = get32(h + 8);
	if (l < 32 || l > 4096 || readn(fd, body, l))
		return -1;
	*tag = (int)get32(body + 4);
	*len = l - 32;
	memmove(body, body + 32, *len);
	return 0;
}

struct out { unsigned char b[4096]; size_t n; };

static void o32(struct out *o, uint32_t v) { put32(o->b + o->n, v); o->n += 4; }
static void ostr(struct out *o, const char *s)
{
	size_t l = strlen(s) + 1;
	o32(o, (uint32_t)l);
	memcpy(o->b + o->n, s, l);
	o->n += (l + 3) & ~3u;
}

/* Sends a frame: frag header + optional message header + body. */
static void send_frame(int fd, int flags, int tag, int ctx, uint32_t enc, const struct out *body,
                       int with_msg_header, int32_t len_override)
{
	unsigned char f[16 + 32 + 4096];
	size_t hl = with_msg_header ? 32 : 0;
	size_t bl = body ? body->n : 0;
	memset(f, 0, sizeof f);
	put32(f, 0x40001);
	put32(f + 4, 0x80000000u);
	put32(f + 8, len_override >= 0 ? (uint32_t)len_override : (uint32_t)(hl + bl));
	f[12] = (unsigned char)flags;
	if (with_msg_header) {
		put32(f + 16, enc);
		put32(f + 20, (uint32_t)tag);
		put32(f + 24, (uint32_t)ctx);
	}
	if (bl)
		memcpy(f + 16 + hl, body->b, bl);
	if (write(fd, f, 16 + hl + bl) < 0)
		perror("fake pvmd write");
}

/* The client (our parent) writes a byte to the pipe just before the receive that must see the
 * stream break, and closes the pipe once it has checked what it got. Waits for that byte and
 * then until the client sleeps in that receive (state S): 1; 0 if it closed the pipe first. */
static int client_waits(int pfd)
{
	char c, path[64];
	if (read(pfd, &c, 1) != 1)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)getppid());
	for (;;) {
		char state = 0;
		FILE *f = fopen(path, "r");
		if (!f)
			return 0;
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 0;
		fclose(f);
		if (state == 'S')
			return 1;
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		if (poll(&p, 1, 1) > 0)
			return 0;
	}
}

/* Keeps the stream open until the client has checked what it got (closed the pipe). */
static void client_done(int pfd)
{
	char c;
	while (read(pfd, &c, 1) > 0)
		;
}

static void fake_pvmd(int lfd, int pfd, const char *how)
{
	int fd = accept(lfd, NULL, NULL);
	unsigned char body[4096];
	size_t len;
	int tag;
	char dauth[600];
	/* TM_CONNECT: prove ourselves in the task's file, give ours */
	if (read_msg(fd, &tag, body, &len) || tag != TM_CONNECT)
		_exit(2);
	char authfn[600];
	uint32_t sl = get32(body + 4);
	if (sl >= sizeof authfn)
		_exit(2);
	memcpy(authfn, body + 8, sl);
	FILE *a = fopen(authfn, "w");
	if (!a)
		_exit(2);
	fputc('x', a);
	fclose(a);
	snprintf(dauth, sizeof dauth, "%s/fake-dauth", getenv("PVM_TMP"));
	fclose(fopen(dauth, "w"));
	struct out o = { .n = 0 };
	o32(&o, TDPROTOCOL); o32(&o, 1); ostr(&o, dauth);
	send_frame(fd, 3, TM_CONNECT, SYSCTX_TM, 0x10000000, &o, 1, -1);
	if (read_msg(fd, &tag, body, &len) || tag != TM_CONN2)
		_exit(2);
	unlink(dauth);
	o.n = 0;
	o32(&o, 1); o32(&o, 0x40001); o32(&o, 0);
	for (int i = 0; i < 6; i++) o32(&o, 0);
	o32(&o, 4080); o32(&o, 0x408c41); ostr(&o, "7f000001:0000"); o32(&o, 0);
	send_frame(fd, 3, TM_CONN2, SYSCTX_TM, 0x10000000, &o, 1, -1);

	/* now the garbage */
	o.n = 0;
	o32(&o, 7);
	send_frame(fd, 3, 0, 0, 0, &o, 0, -1);                         /* SOM without header */
	send_frame(fd, 2, 0, 0, 0, &o, 0, -1);                         /* frag of no message */
	o.n = 0; o32(&o, 1000); o32(&o, 0x41414141);
	send_frame(fd, 3, 1, 0, 0x10000000, &o, 1, -1);                /* lying string length */
	o.n = 0; o32(&o, 5);
	send_frame(fd, 3, 3, 0, 0x7777, &o, 1, -1);                    /* unknown encoding */
	send_frame(fd, 3, 12345, SYSCTX_TC, 0x10000000, &o, 1, -1);    /* unknown control */
	/* tracing changed with malformed control messages: ignored or cleared, logged */
	static char long_mask[3001];
	memset(long_mask, 'A', sizeof long_mask - 1);
	o.n = 0; for (int i = 0; i < 6; i++) o32(&o, 0);
	ostr(&o, long_mask); o32(&o, 0); o32(&o, 1);
	send_frame(fd, 3, TC_SETTRACE, SYSCTX_TC, 0x10000000, &o, 1, -1);  /* mask of 3000 */
	o.n = 0; o32(&o, 0x40002); o32(&o, 0);
	send_frame(fd, 3, TC_SETTRACE, SYSCTX_TC, 0x10000000, &o, 1, -1);  /* cut short */
	o.n = 0; ostr(&o, long_mask);
	send_frame(fd, 3, TC_SETTMASK, SYSCTX_TC, 0x10000000, &o, 1, -1);  /* mask of 3000 */
	o.n = 0; o32(&o, 9999);
	send_frame(fd, 3, TC_SETTMASK, SYSCTX_TC, 0x10000000, &o, 1, -1);  /* lying length */
	o.n = 0;
	send_frame(fd, 3, TC_SETTRCBUF, SYSCTX_TC, 0x10000000, &o, 1, -1); /* no value */
	o.n = 0; o32(&o, (uint32_t)-5);
	send_frame(fd, 3, TC_SETTRCOPT, SYSCTX_TC, 0x10000000, &o, 1, -1); /* negative */
	o.n = 0; o32(&o, 42);
	send_frame(fd, 1, 2, 0, 0x10000000, &o, 1, -1);                /* good, in two frags */
	o.n = 0; o32(&o, 43);
	send_frame(fd, 2, 0, 0, 0, &o, 0, -1);
	if (!strcmp(how, "fake-random")) {
		/* thousands of frames with random flags, tags, encodings and bodies */
		srand(12345);
		for (int i = 0; i < 3000; i++) {
			o.n = 0;
			int words = rand() % 40;
			for (int k = 0; k < words; k++)
				o32(&o, rand() % 7 == 0 ? 0xffffffffu : (uint32_t)rand() % 64);
			static const uint32_t encs[] = { 0x10000000, 0x408c41, 0x20000000, 7 };
			send_frame(fd, rand() % 4, rand() % 4, rand() % 3 == 0 ? SYSCTX_TC : 0,
			           encs[rand() % 4], &o, rand() % 2, -1);
		}
		if (client_waits(pfd))
			close(fd);   /* the pvmd dies under the client's receive */
		client_done(pfd);
		_exit(0);
	}
	if (client_waits(pfd)) {
		if (!strcmp(how, "fake-corrupt"))
			send_frame(fd, 3, 4, 0, 0x10000000, NULL, 1, 0x7fffffff);   /* absurd length */
		else
			close(fd);                                                  /* the pvmd dies */
	}
	client_done(pfd);
	_exit(0);
}

static void fake(const char *how)
{
	char path[600], file[600];
	snprintf(path, sizeof path, "%s/fake.sock", getenv("PVM_TMP"));
	snprintf(file, sizeof file, "%s/pvmd.%d.%s", getenv("PVM_TMP"), (int)geteuid(),
	         getenv("PVM_VMID"));
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "fake pvmd: path too long\n");
		exit(1);
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 1)) {
		perror("fake pvmd");
		exit(1);
	}
	FILE *f = fopen(file, "w");
	fprintf(f, "%s\n", path);
	fclose(f);
	int pipefd[2];   /* (not inherited by an an2d the library may start) */
	if (pipe2(pipefd, O_CLOEXEC)) {
		perror("fake pvmd pipe");
		exit(1);
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		fake_pvmd(lfd, pipefd[0], how);
	}
	close(pipefd[0]);
	close(lfd);
	EXPECT(pvm_mytid(), 0x40001);
	if (!strcmp(how, "fake-random")) {
		/* take whatever survives and unpack it every which way: errors, never a crash */
		int n = 0, cc;
		EXPECT(write(pipefd[1], "w", 1), 1);   /* the stream breaks once we wait for more */
		while ((cc = pvm_recv(-1, -1)) > 0) {
			n++;
			int iv[8];
			double dv[4];
			char sv[300];
			long lv[8];   /* 4 elements at stride 2 */
			pvm_upkint(iv, 8, 1);
			pvm_upkdouble(dv, 4, 1);
			pvm_upkstr(sv);
			pvm_upklong(lv, 4, 2);
			pvm_upkbyte(sv, 100, 3);
		}
		EXPECT(cc, PvmSysErr);
		printf("fake-random: %d messages survived the garbage\n", n);
		close(pipefd[1]);
		waitpid(pid, NULL, 0);
		unlink(path);
		unlink(file);
		return;
	}
	int mid = pvm_recv(-1, 1);
	EXPECT(mid > 0, 1);
	char s[2000];
	EXPECT(pvm_upkstr(s), PvmNoData);
	EXPECT(pvm_recv(-1, 3) > 0, 1);
	int x = 0;
	EXPECT(pvm_upkint(&x, 1, 1), PvmBadMsg);
	EXPECT(pvm_recv(-1, 2) > 0, 1);
	int v[2] = { 0, 0 };
	EXPECT(pvm_upkint(v, 2, 1), 0);
	EXPECT(v[0] == 42 && v[1] == 43, 1);
	EXPECT(write(pipefd[1], "w", 1), 1);   /* the stream breaks once we wait in this receive */
	double t0 = now();
	EXPECT(pvm_recv(-1, 4), PvmSysErr);
	EXPECT(pvm_send(0x40001, 1) < 0, 1);
	EXPECT(pvm_exit() < 0, 1);
	if (now() - t0 > 3.0) {
		failures++;
		fprintf(stderr, "bad_input: FAIL the broken pvmd stream was noticed late\n");
	}
	close(pipefd[1]);
	waitpid(pid, NULL, 0);
	unlink(path);
	unlink(file);
}

int main(int argc, char **argv)
{
	pvm_setopt(PvmAutoErr, 0);
	const char *how = argc > 1 ? argv[1] : "";
	if (!strcmp(how, "nopvmd"))
		no_pvmd();
	else if (!strcmp(how, "blocked"))
		blocked();
	else if (!strncmp(how, "fake-", 5))
		fake(how);
	else
		return 2;
	printf("%s: %s\n", how, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
