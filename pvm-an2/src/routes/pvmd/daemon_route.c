/* route_daemon.c — the pvmd route: task-daemon fragments over the stream socket to the local pvmd. */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "route.h"
#include "route_providers.h"
#include "rxqueue.h"

#define TDFRAGHDR_LEN 16
#define FFSOM 1                        /* fragment flags: first of its message, */
#define FFEOM 2                        /* last of its message */
#define MAX_FRAG_LEN (64u << 20)       /* larger length fields mean a corrupt stream */
#define STAGE_SIZE (64 * 1024)
#define MAX_IOV 64

/* A message being reassembled from one source. */
struct partial {
	struct partial *next;
	int src;
	struct msg *m;
};

struct daemon_route {
	struct route route;      /* first: the core's handle is this struct */
	int fd;
	/* receive side */
	char *stage;             /* bytes read but not yet parsed */
	size_t stage_start, stage_end;
	unsigned char hdr[TDFRAGHDR_LEN];
	size_t hdr_have;
	struct frag *body;       /* fragment body being filled */
	size_t body_need;
	int body_src, body_dst, body_flags;
	struct partial *partials;
	int failed;              /* negative PVM error once the stream is unusable */
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int fail(struct daemon_route *r, int code)
{
	if (!r->failed)
		r->failed = code;
	lpvm.dead = 1;
	return r->failed;
}

/* ---- receiving ---- */

static struct partial **find_partial(struct daemon_route *r, int src)
{
	struct partial **pp = &r->partials;
	while (*pp && (*pp)->src != src)
		pp = &(*pp)->next;
	return pp;
}

/* A complete fragment has arrived; returns 1 if it completed a message. */
static int frag_arrived(struct daemon_route *r, struct frag *f)
{
	int src = r->body_src, ff = r->body_flags;
	struct partial **pp = find_partial(r, src);
	if (ff & FFSOM) {
		if (f->len < MSGHDRLEN) {
			lpvm_log("dropped malformed fragment from t%x: %zu bytes, no message header",
			         (unsigned)src, f->len);
			frag_free(f);
			return 0;
		}
		if (*pp) {
			lpvm_log("dropped incomplete message from t%x: new message started",
			         (unsigned)src);
			struct partial *old = *pp;
			*pp = old->next;
			msg_free(old->m);
			free(old);
		}
		const unsigned char *h = (const unsigned char *)f->data;
		struct msg *m = msg_new((int)get32(h));
		struct partial *p = calloc(1, sizeof *p);
		if (!m || !p) {
			msg_free(m);
			free(p);
			frag_free(f);
			return fail(r, PvmNoMem);
		}
		m->tag = (int)get32(h + 4);
		m->ctx = (int)get32(h + 8);
		m->wid = (int)get32(h + 16);
		m->crc = (int)get32(h + 20);
		m->src = src;
		m->dst = r->body_dst;
		f->data += MSGHDRLEN;
		f->len -= MSGHDRLEN;
		f->cap -= MSGHDRLEN;
		p->src = src;
		p->m = m;
		p->next = r->partials;
		r->partials = p;
		pp = &r->partials;
	} else if (!*pp) {
		lpvm_log("dropped fragment from t%x that belongs to no message", (unsigned)src);
		frag_free(f);
		return 0;
	}
	struct partial *p = *pp;
	if (f->len)
		msg_append_frag(p->m, f);
	else
		frag_free(f);
	if (!(ff & FFEOM))
		return 0;
	*pp = p->next;
	struct msg *m = p->m;
	free(p);
	m->mode = MODE_NONE;
	rxq_deliver(m);
	return 1;
}

/* Parses a fragment header; starts the body. */
static int header_complete(struct daemon_route *r)
{
	uint32_t len = get32(r->hdr + 8);
	if (len > MAX_FRAG_LEN)
		return -1;
	r->body_dst = (int)get32(r->hdr);
	r->body_src = (int)get32(r->hdr + 4);
	r->body_flags = r->hdr[12];
	r->body = frag_new(len);
	if (!r->body)
		return PvmNoMem;
	r->body_need = len;
	r->hdr_have = 0;
	return 0;
}

/* Consumes staged bytes; returns messages completed or a negative error. */
static int parse_stage(struct daemon_route *r)
{
	int got = 0;
	while (r->stage_start < r->stage_end || (r->body && !r->body_need)) {
		if (!r->body) {
			size_t n = TDFRAGHDR_LEN - r->hdr_have;
			size_t avail = r->stage_end - r->stage_start;
			if (n > avail)
				n = avail;
			memcpy(r->hdr + r->hdr_have, r->stage + r->stage_start, n);
			r->hdr_have += n;
			r->stage_start += n;
			if (r->hdr_have < TDFRAGHDR_LEN)
				break;
			int cc = header_complete(r);
			if (cc == -1) {
				lpvm_log("pvmd stream corrupt: fragment length %u", get32(r->hdr + 8));
				return fail(r, PvmSysErr);
			}
			if (cc < 0)
				return fail(r, cc);
		}
		size_t n = r->stage_end - r->stage_start;
		if (n > r->body_need)
			n = r->body_need;
		memcpy(r->body->data + r->body->len, r->stage + r->stage_start, n);
		r->body->len += n;
		r->body_need -= n;
		r->stage_start += n;
		if (r->body_need)
			break;
		struct frag *f = r->body;
		r->body = NULL;
		int cc = frag_arrived(r, f);
		if (cc < 0)
			return cc;
		got += cc;
	}
	if (r->stage_start == r->stage_end)
		r->stage_start = r->stage_end = 0;
	return got;
}

static int daemon_progress(struct route *t)
{
	struct daemon_route *r = (struct daemon_route *)t;
	if (r->failed)
		return r->failed;
	int got = 0;
	for (int reads = 0;; reads++) {
		if (got > 0 && reads >= 16)
			return got;   /* a peer that never pauses must not keep us here forever */
		ssize_t n;
		if (r->body && r->body_need >= STAGE_SIZE / 2) {
			/* big fragment body: read straight into the fragment */
			n = read(r->fd, r->body->data + r->body->len, r->body_need);
			if (n > 0) {
				r->body->len += (size_t)n;
				r->body_need -= (size_t)n;
				int cc = parse_stage(r);
				if (cc < 0)
					return cc;
				got += cc;
				continue;
			}
		} else {
			n = read(r->fd, r->stage + r->stage_end, STAGE_SIZE - r->stage_end);
			if (n > 0) {
				r->stage_end += (size_t)n;
				int cc = parse_stage(r);
				if (cc < 0)
					return cc;
				got += cc;
				continue;
			}
		}
		if (n == 0) {
			if (!lpvm.exiting)
				lpvm_log("pvmd closed the connection");
			fail(r, PvmSysErr);
			return got ? got : r->failed;   /* what arrived before the end still counts */
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return got;
		lpvm_log("read from pvmd: %s", strerror(errno));
		fail(r, PvmSysErr);
		return got ? got : r->failed;
	}
}

/* ---- sending ---- */

/* Waits until the socket takes more data, draining input meanwhile. */
static int wait_writable(struct route *t)
{
	struct daemon_route *r = (struct daemon_route *)t;
	struct pollfd p = { .fd = r->fd, .events = POLLIN | POLLOUT };
	for (;;) {
		int n = poll(&p, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(r, PvmSysErr);
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			int cc = daemon_progress(t);
			if (cc < 0)
				return cc;
		}
		if (p.revents & POLLOUT)
			return 0;
	}
}

/* Writes the whole iovec array, blocking politely. */
static int write_all(struct route *t, struct iovec *iov, int cnt)
{
	struct daemon_route *r = (struct daemon_route *)t;
	while (cnt > 0) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };
		ssize_t n = sendmsg(r->fd, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				int cc = wait_writable(t);
				if (cc < 0)
					return cc;
				continue;
			}
			lpvm_log("write to pvmd: %s", strerror(errno));
			return fail(r, PvmSysErr);
		}
		size_t done = (size_t)n;
		while (cnt > 0 && done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

static int daemon_send(struct route *t, struct msg *m)
{
	struct daemon_route *r = (struct daemon_route *)t;
	if (r->failed)
		return r->failed;
	unsigned char hdrs[MAX_IOV][TDFRAGHDR_LEN + MSGHDRLEN];
	struct iovec iov[MAX_IOV];
	int niov = 0, nh = 0;
	struct frag *f = m->head;
	int first = 1;
	do {   /* a message without data still travels as one fragment */
		size_t dlen = f ? f->len : 0;
		unsigned char *h = hdrs[nh++];
		size_t hlen = TDFRAGHDR_LEN + (first ? MSGHDRLEN : 0);
		int last = !f || !f->next;
		put32(h, (uint32_t)m->dst);
		put32(h + 4, (uint32_t)lpvm.mytid);
		put32(h + 8, (uint32_t)(dlen + hlen - TDFRAGHDR_LEN));
		memset(h + 12, 0, 4);
		h[12] = (unsigned char)((first ? FFSOM : 0) | (last ? FFEOM : 0));
		if (first) {
			unsigned char *mh = h + TDFRAGHDR_LEN;
			memset(mh, 0, MSGHDRLEN);
			put32(mh, (uint32_t)(m->enc == ENC_INPLACE ? lpvm.dsig : m->enc));
			put32(mh + 4, (uint32_t)m->tag);
			put32(mh + 8, (uint32_t)m->ctx);
			put32(mh + 16, (uint32_t)m->wid);
			put32(mh + 20, 0);
		}
		iov[niov++] = (struct iovec){ h, hlen };
		if (dlen)
			iov[niov++] = (struct iovec){ f->data, dlen };
		first = 0;
		if (f)
			f = f->next;
		if (niov >= MAX_IOV - 1 || !f) {
			int cc = write_all(t, iov, niov);
			if (cc < 0)
				return cc;
			niov = nh = 0;
		}
	} while (f);
	return 0;
}

static int daemon_pollfds(struct route *t, struct pollfd *fds, int max)
{
	struct daemon_route *r = (struct daemon_route *)t;
	if (max < 1 || r->failed)
		return 0;
	fds[0] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
	return 1;
}

static void daemon_close(struct route *t)
{
	struct daemon_route *r = (struct daemon_route *)t;
	if (r->fd >= 0)
		close(r->fd);
	while (r->partials) {
		struct partial *p = r->partials;
		r->partials = p->next;
		msg_free(p->m);
		free(p);
	}
	frag_free(r->body);
	free(r->stage);
	free(r);
}

/* ---- connecting ---- */

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof sa.sun_path)
		return -1;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return -1;
	}
	/* before anything is sent: a socket another user planted gets nothing of ours */
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    (cred.uid != geteuid() && cred.uid != 0)) {
		lpvm_log("%s is served by uid %d, not by us: not our pvmd", path,
		         len == sizeof cred ? (int)cred.uid : -1);
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* "hexaddr:hexport" as the pvmd writes it for TCP. */
static int connect_inet(const char *text)
{
	char *end;
	unsigned long addr = strtoul(text, &end, 16);
	if (*end != ':')
		return -1;
	unsigned long port = strtoul(end + 1, &end, 16);
	if (port == 0 || port > 0xffff)
		return -1;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	sa.sin_addr.s_addr = htonl((uint32_t)addr);
	sa.sin_port = htons((uint16_t)port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The pvmd route reaches every task: it takes every message, carries no task's messages
 * by itself, filters nothing, never spins, keeps nothing per peer and has nothing to
 * quiesce. */
static int daemon_carries(struct route *t, int tid)
{
	(void)t;
	(void)tid;
	return 0;
}

static int daemon_others_due(struct route *t, int ready)
{
	(void)t;
	(void)ready;
	return 1;
}

static int daemon_filter(struct route *t, struct msg *m)
{
	(void)t;
	(void)m;
	return 0;
}

static int daemon_poll_ms_max(struct route *t)
{
	(void)t;
	return -1;
}

static int daemon_idle(struct route *t, long long deadline_us, int *look)
{
	(void)t;
	(void)deadline_us;
	(void)look;
	return 0;
}

static void daemon_nothing(struct route *t)
{
	(void)t;
}

static int daemon_recv_error(struct route *t, int tid)
{
	(void)t;
	(void)tid;
	return 0;   /* a failed pvmd connection fails the receive by itself (lpvm.dead) */
}

static int daemon_flush(struct route *t)
{
	(void)t;
	return 0;   /* it defers nothing */
}

static int daemon_peer_failed(struct route *t, int tid)
{
	(void)t;
	(void)tid;
	return 0;   /* nothing kept per peer: the pvmd itself knows its tasks and hosts */
}

static const struct route_ops daemon_ops = {
	.name = "pvmd",
	.send = daemon_send,
	.carries = daemon_carries,
	.progress = daemon_progress,
	.others_due = daemon_others_due,
	.filter = daemon_filter,
	.pollfds = daemon_pollfds,
	.poll_ms_max = daemon_poll_ms_max,
	.idle = daemon_idle,
	.woke = daemon_nothing,
	.busy = daemon_nothing,
	.wait_over = daemon_nothing,
	.recv_error = daemon_recv_error,
	.peer_failed = daemon_peer_failed,
	.flush = daemon_flush,
	.quiesce = daemon_nothing,
	.close = daemon_close,
};

struct route *daemon_route_open(const char *addr, int *err)
{
	int fd = -1;
	for (int attempt = 0; attempt < 3 && fd < 0; attempt++) {
		fd = addr[0] == '/' ? connect_unix(addr) : connect_inet(addr);
		if (fd < 0 && errno != EAGAIN && errno != EINTR)
			break;   /* refused or absent: no pvmd, say so at once */
		if (fd < 0)
			nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	if (fd < 0) {
		*err = PvmSysErr;
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	struct daemon_route *r = calloc(1, sizeof *r);
	char *stage = malloc(STAGE_SIZE);
	if (!r || !stage) {
		free(r);
		free(stage);
		close(fd);
		*err = PvmNoMem;
		return NULL;
	}
	r->route.ops = &daemon_ops;
	r->fd = fd;
	r->stage = stage;
	return &r->route;
}
