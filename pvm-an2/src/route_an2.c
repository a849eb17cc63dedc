/* The AN2 fast path's data path: the endpoint, PDUs out of a message's own fragments, receive
 * buffers that become fragments, the report ring, adaptive waiting, shutdown. */
#include "route_an2.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AN2_BUF_SIZE (32u << 20)
#define RX_POST_MAX 16u              /* receive descriptors kept posted per VC */
#define POOL_RESERVE (4u << 20)      /* area bytes packing leaves for receive buffers */
#define SPIN_US 0                    /* idle: spin this long (3 parties share 2 cores: yield at once), */
#define YIELD_US 3000                /* then yield up to this long, then sleep */
#define RESLEEP_US 50                /* after a wake-up without a message: this long */
#define DAEMON_CHECK_US 200          /* waiting: look at the pvmd socket (poll) this often */
#define DAEMON_BUSY_US 10000         /* busy with AN2 traffic: this often */
#define TX_DRAIN_MS 3000            /* leaving: wait this long for our transmissions */

struct an2_route *an2r;
static struct an2_route *lingering;  /* closed, but messages still hold their pool blocks */

/* One transmit descriptor in flight: the blocks it references. */
struct tx_rec {
	void *blocks[AN2_MAX_FRAGS];
	unsigned nblocks;
	int next_free;
};
static struct tx_rec *tx_recs;
static int tx_free = -1, tx_inflight;

long long an2_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- peers ---- */

struct peer *peer_find(int tid)
{
	if (!an2r)
		return NULL;
	for (struct peer *p = an2r->peers[(unsigned)tid % 64]; p; p = p->next)
		if (p->tid == tid)
			return p;
	return NULL;
}

struct peer *peer_get(int tid)
{
	struct peer *p = peer_find(tid);
	if (p || !an2r)
		return p;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->tid = tid;
	p->vc = -1;
	p->next = an2r->peers[(unsigned)tid % 64];
	an2r->peers[(unsigned)tid % 64] = p;
	return p;
}

/* ---- transmit ---- */

static void tx_complete(uint64_t cookie)
{
	if (cookie == 0 || cookie > an2_tx_slots(an2r->ep) * 2)
		return;
	struct tx_rec *r = &tx_recs[cookie - 1];
	for (unsigned i = 0; i < r->nblocks; i++)
		bufpool_tx_unref(an2r->pool, r->blocks[i]);
	r->nblocks = 0;
	r->next_free = tx_free;
	tx_free = (int)(cookie - 1);
	tx_inflight--;
}

/* Stalled for transmit reports: every DAEMON_CHECK_US, drain the pvmd socket (no deadlock
 * with a peer's pvmd send) and have the next progress look at an2d's socket (a dead an2d
 * writes no more reports: only its socket tells). 0 or a negative PVM error. */
static int stall_check(long long *last_us)
{
	if (an2_now_us() - *last_us <= DAEMON_CHECK_US)
		return 0;
	*last_us = an2_now_us();
	an2r->check_ctl = 1;
	int cc = lpvm.daemon->progress(lpvm.daemon);
	return cc < 0 ? cc : 0;
}

/* Reads reports until a transmit slot is free; keeps the pvmd socket drained meanwhile. */
static int wait_tx_room(void)
{
	long long last_check = an2_now_us();
	while (tx_free < 0 || an2_tx_space(an2r->ep) == 0) {
		int cc = an2_route_progress(&an2r->t);
		if (cc < 0)
			return cc;
		if (!an2r->active)
			return 1;
		cc = stall_check(&last_check);
		if (cc < 0)
			return cc;
		sched_yield();
	}
	return 0;
}

/* Sends one PDU; the blocks are referenced until its TX report. 0, 1 (route gone), < 0. */
static int tx_pdu(struct peer *p, const struct an2_frag *fr, unsigned n, void **blocks,
                  unsigned nblocks)
{
	int cc = wait_tx_room();
	if (cc)
		return cc;
	int idx = tx_free;
	struct tx_rec *r = &tx_recs[idx];
	for (;;) {
		int rc = an2_send(an2r->ep, (uint16_t)p->vc, fr, n, 0, (uint64_t)idx + 1);
		if (rc == 0)
			break;
		if (rc != -EAGAIN) {
			an2_peer_fail(p, an2_strerror(rc), 1);
			return 1;
		}
		cc = wait_tx_room();
		if (cc)
			return cc;
	}
	tx_free = r->next_free;
	tx_inflight++;
	for (unsigned i = 0; i < nblocks; i++) {
		r->blocks[i] = blocks[i];
		bufpool_tx_ref(an2r->pool, blocks[i]);
	}
	r->nblocks = nblocks;
	return 0;
}

/* A block of the area for a header or a copy; waits for transmit reports to give some back.
 * NULL when the area stays exhausted with nothing in flight. */
static void *tx_block(size_t size)
{
	long long last_check = an2_now_us();
	for (;;) {
		void *b = bufpool_alloc_area(an2r->pool, size);
		if (b || tx_inflight == 0 || !an2r->active)
			return b;
		if (an2_route_progress(&an2r->t) < 0 || stall_check(&last_check) < 0)
			return NULL;
		sched_yield();
	}
}

static void fill_hdr(struct pdu_hdr *h, struct peer *p, const struct msg *m, int flags,
                     uint32_t len)
{
	*h = (struct pdu_hdr){ .magic = AN2_MAGIC, .kind = PDU_DATA, .flags = (uint8_t)flags,
	                       .msg_len = len, .dmn_before = p->dmn_sent, .an2_index = p->an2_sent,
	                       .enc = m->enc == ENC_INPLACE ? lpvm.dsig : m->enc, .tag = m->tag,
	                       .ctx = m->ctx, .wid = m->wid };
}

/* A PDU of header + data copied into one block (small messages). */
static int tx_copied(struct peer *p, const struct msg *m)
{
	uint32_t len = (uint32_t)msg_length(m);
	char *b = tx_block(PDU_HDR_LEN + len);
	if (!b)
		return 1;
	fill_hdr((struct pdu_hdr *)b, p, m, PDU_SOM | PDU_EOM, len);
	char *d = b + PDU_HDR_LEN;
	for (const struct frag *f = m->head; f; f = f->next) {
		memcpy(d, f->data, f->len);
		d += f->len;
	}
	struct an2_frag fr = { bufpool_offset(an2r->pool, b), PDU_HDR_LEN + len };
	void *blk = b;
	int cc = tx_pdu(p, &fr, 1, &blk, 1);
	bufpool_free(an2r->pool, b);   /* given back at its TX report */
	return cc;
}

/* Bytes of area a message needs besides its own area fragments (headers and copies). */
static size_t bytes_to_copy(const struct msg *m)
{
	size_t n = 0;
	for (const struct frag *f = m->head; f; f = f->next)
		if (!f->mem || !bufpool_owns(an2r->pool, f->mem))
			n += f->len + POOL_MIN_BLOCK;
	return n + (msg_length(m) / PDU_MAX_DATA + 1) * POOL_MIN_BLOCK;
}

/* Header block + pieces of the message's fragments, as they lie in the area (zero copy);
 * pieces outside the area (in-place data, malloc'd fragments) are copied into a block. */
static int tx_gathered(struct peer *p, const struct msg *m)
{
	uint32_t total = (uint32_t)msg_length(m), left = total;
	const struct frag *f = m->head;
	size_t off = 0;
	int first = 1;
	while (first || left > 0) {
		struct an2_frag fr[AN2_MAX_FRAGS];
		void *blocks[AN2_MAX_FRAGS], *copies[AN2_MAX_FRAGS];
		unsigned n = 0, ncopies = 0;
		char *h = tx_block(PDU_HDR_LEN);
		if (!h)
			return -1;
		copies[ncopies++] = h;
		blocks[n] = h;
		fr[n++] = (struct an2_frag){ bufpool_offset(an2r->pool, h), PDU_HDR_LEN };
		uint32_t room = PDU_MAX_DATA, pdu_data = 0;
		int cc = 0;
		while (n < AN2_MAX_FRAGS && room > 0 && f) {
			if (off == f->len) {
				f = f->next;
				off = 0;
				continue;
			}
			uint32_t len = (uint32_t)(f->len - off) < room ? (uint32_t)(f->len - off) : room;
			const char *src = f->data + off;
			void *blk = f->mem;
			if (!f->mem || !bufpool_owns(an2r->pool, f->mem)) {
				blk = tx_block(len);
				if (!blk) {
					cc = -1;
					break;
				}
				memcpy(blk, src, len);
				src = blk;
				copies[ncopies++] = blk;
			}
			blocks[n] = blk;
			fr[n++] = (struct an2_frag){ bufpool_offset(an2r->pool, src), len };
			off += len;
			room -= len;
			pdu_data += len;
		}
		if (!cc) {
			left -= pdu_data;
			fill_hdr((struct pdu_hdr *)h, p, m,
			         (first ? PDU_SOM : 0) | (left ? 0 : PDU_EOM), total);
			first = 0;
			cc = tx_pdu(p, fr, n, blocks, n);
		}
		for (unsigned i = 0; i < ncopies; i++)
			bufpool_free(an2r->pool, copies[i]);   /* given back at the TX report */
		if (cc)
			return cc;
	}
	return 0;
}

int an2_send_msg(struct peer *p, struct msg *m)
{
	size_t len = msg_length(m);
	/* room for headers and copies, or the daemon route (nothing sent yet: order is kept by
	 * the note the caller sends) */
	while (bufpool_free_bytes(an2r->pool) < bytes_to_copy(m) + POOL_MAX_BLOCK) {
		if (tx_inflight == 0)
			return 1;
		int cc = an2_route_progress(&an2r->t);
		if (cc < 0)
			return cc;
		if (!an2r->active || p->state != PEER_OPEN)
			return 1;
		sched_yield();
	}
	int cc = len <= RX_COPY_MAX ? tx_copied(p, m) : tx_gathered(p, m);
	if (cc < 0 && an2r->active && p->state == PEER_OPEN)
		an2_peer_fail(p, "buffer area exhausted in mid-message", 1);
	if (cc == 0)
		p->an2_sent++;
	return cc == 0 ? 0 : 1;   /* a message that did not go whole takes the daemon route */
}

/* ---- receive ---- */

int an2_post_rx(struct peer *p)
{
	uint32_t want = an2r->rx_slots < RX_POST_MAX ? an2r->rx_slots : RX_POST_MAX;
	while (p->state == PEER_OPEN && (uint32_t)p->posted < want) {
		char *b = bufpool_alloc_area(an2r->pool, POOL_MAX_BLOCK);
		if (!b)
			return p->posted ? 0 : -1;
		uint32_t off = bufpool_offset(an2r->pool, b);
		struct an2_frag fr = { off + FRAG_HEADROOM - PDU_HDR_LEN, RX_BUF_LEN };
		int rc = an2_post_recv(an2r->ep, (uint16_t)p->vc, &fr, 1, (uint64_t)off + 1);
		if (rc != 0) {
			bufpool_free(an2r->pool, b);
			return rc == -EAGAIN ? 0 : rc;
		}
		p->posted++;
	}
	return 0;
}

static void protocol_error(struct peer *p, const char *what)
{
	an2_peer_fail(p, what, 1);
}

/* One good PDU in block b (len bytes from the header on). Takes the block. */
static void pdu_arrived(struct peer *p, char *b, uint32_t len)
{
	struct pdu_hdr h;
	if (len < PDU_HDR_LEN) {
		bufpool_free(an2r->pool, b);
		protocol_error(p, "PDU shorter than its header");
		return;
	}
	memcpy(&h, b + FRAG_HEADROOM - PDU_HDR_LEN, sizeof h);
	uint32_t dl = len - PDU_HDR_LEN;
	if (h.magic != AN2_MAGIC || h.kind != PDU_DATA) {
		bufpool_free(an2r->pool, b);
		protocol_error(p, "PDU with a bad header");
		return;
	}
	p->rx_pdus++;
	if (p->xh_head)
		p->exit_wait_us = an2_now_us();   /* its stream still moves: its exit notice waits */
	if (h.flags & PDU_SOM) {
		if (p->partial || h.msg_len > (1u << 30)) {
			bufpool_free(an2r->pool, b);
			protocol_error(p, p->partial ? "message started inside another" : "message too long");
			return;
		}
		p->partial = msg_new(h.enc);
		if (!p->partial) {
			bufpool_free(an2r->pool, b);
			protocol_error(p, "out of memory");
			return;
		}
		p->partial->tag = h.tag;
		p->partial->ctx = h.ctx;
		p->partial->wid = h.wid;
		p->partial->src = p->tid;
		p->partial->dst = lpvm.mytid;
		p->partial_left = h.msg_len;
		p->partial_hdr = h;
	} else if (!p->partial || h.an2_index != p->partial_hdr.an2_index) {
		bufpool_free(an2r->pool, b);
		protocol_error(p, "PDU of no message");
		return;
	}
	if (dl > p->partial_left) {
		bufpool_free(an2r->pool, b);
		protocol_error(p, "message longer than announced");
		return;
	}
	if (dl > 0) {
		struct frag *f;
		if (dl <= RX_COPY_MAX || bufpool_free_bytes(an2r->pool) < POOL_RESERVE) {
			/* copy out, so that the buffer goes back to the ring (small PDUs, or an
			 * application that keeps many messages) */
			f = calloc(1, sizeof *f);   /* plain memory: it is never transmitted */
			char *mem = f ? malloc(FRAG_HEADROOM + dl) : NULL;
			if (mem) {
				f->mem = mem;
				f->mem_size = FRAG_HEADROOM + dl;
				f->owner = bufpool_allocator(an2r->pool);   /* frees what is not its own */
				f->data = mem + FRAG_HEADROOM;
				f->len = f->cap = dl;
				memcpy(f->data, b + FRAG_HEADROOM, dl);
			} else {
				free(f);
				f = NULL;
			}
			bufpool_free(an2r->pool, b);
		} else {
			f = calloc(1, sizeof *f);   /* the receive buffer itself becomes the fragment */
			if (f) {
				f->mem = b;
				f->mem_size = POOL_MAX_BLOCK;
				f->owner = bufpool_allocator(an2r->pool);
				f->data = b + FRAG_HEADROOM;
				f->len = f->cap = dl;
			} else {
				bufpool_free(an2r->pool, b);
			}
		}
		if (!f) {
			protocol_error(p, "out of memory");
			return;
		}
		msg_append_frag(p->partial, f);
		p->partial_left -= dl;
	} else {
		bufpool_free(an2r->pool, b);
	}
	if (!(h.flags & PDU_EOM))
		return;
	if (p->partial_left) {
		protocol_error(p, "message shorter than announced");
		return;
	}
	struct msg *m = p->partial;
	p->partial = NULL;
	m->mode = MODE_NONE;
	an2_order_an2_arrival(p, m, &p->partial_hdr);
}

static void report(const struct an2_report *r)
{
	if (r->kind == AN2_REPORT_TX) {
		tx_complete(r->cookie);
		return;
	}
	struct peer *p = r->vc < an2r->max_vcs ? an2r->vc_peer[r->vc] : NULL;
	if (r->kind == AN2_REPORT_VC) {
		/* an2d reports the peer's end gone after every cell it sent has arrived: in the
		 * middle of a message it died and the message is lost. Between messages (it left,
		 * or was killed while idle) nothing is lost: the pair falls back quietly, and
		 * PvmTaskExit tells the application as with stock PVM. */
		int died = p && p->partial;
		if (p && r->status == AN2_STATUS_PEER_GONE)
			an2_peer_fail(p, died ? "the peer's end vanished" : NULL, died);
		return;
	}
	uint64_t off = r->cookie - 1;
	if (r->cookie == 0 || off + POOL_MAX_BLOCK > an2_buf_size(an2r->ep))
		return;   /* not a buffer of ours: the controller is not trusted */
	char *b = (char *)an2_buf_base(an2r->ep) + off;
	if (!p) {
		bufpool_free(an2r->pool, b);
		return;
	}
	p->posted--;
	if (r->status == AN2_STATUS_OK && r->length <= RX_BUF_LEN) {
		pdu_arrived(p, b, r->length);
	} else {
		bufpool_free(an2r->pool, b);
		if (r->status != AN2_STATUS_ABORTED && p->state == PEER_OPEN)
			protocol_error(p, r->status == AN2_STATUS_OK ? "PDU overflows its buffer"
			                                             : an2_status_str(r->status));
	}
	if (p->state == PEER_OPEN)
		an2_post_rx(p);
}

/* an2d vanished: every pair goes back to the daemon route with an error. */
static void route_gone(const char *why)
{
	if (an2r->gone)
		return;
	lpvm_log("AN2 fast path: an2d gone (%s): every peer back to the daemon route", why);
	an2r->gone = 1;
	for (int i = 0; i < 64; i++)
		for (struct peer *p = an2r->peers[i]; p; p = p->next)
			if (p->state == PEER_OPEN || p->state == PEER_PENDING)
				an2_peer_fail(p, "an2d vanished", 1);
	an2r->active = 0;
}

int an2_route_progress(struct transport *t)
{
	(void)t;
	if (!an2r || an2r->gone)
		return 0;
	struct an2_report reps[32];
	int n, total = 0;
	while ((n = an2_poll(an2r->ep, reps, 32)) > 0) {
		for (int i = 0; i < n; i++)
			report(&reps[i]);
		total += n;
		if (total >= 256)
			break;
	}
	if (an2r->exit_notices_held)
		an2_order_exit_notices_check();
	/* (t.ready & 2: the core's poll() found an2d's socket, an2_pollfds' fds[1], ready) */
	if (an2r->pending_opens || an2r->check_ctl || (an2r->t.ready & 2)) {
		an2r->check_ctl = 0;
		int cc = an2_poll_vc_answers();
		if (cc == -ECONNRESET || cc == -EPIPE || cc == -EPROTO)
			route_gone(an2_strerror(cc));
	}
	return an2_order_delivered();
}

static int an2_pollfds(struct transport *t, struct pollfd *fds, int max)
{
	if (!an2r || an2r->gone || max < 2)
		return 0;
	/* held exit notices have a deadline that no descriptor announces: look every second */
	t->poll_ms_max = an2r->exit_notices_held ? 1000 : -1;
	fds[0] = (struct pollfd){ .fd = an2_irq_fd(an2r->ep), .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = an2_ctl_fd(an2r->ep), .events = POLLIN };
	return 2;
}

/* ---- waiting (lpvm_pump) ---- */

static long long idle_since_us = -1, last_daemon_us;
static int slept;   /* we slept during this wait: after a wake-up that brought no message
                     * (a report on the way), sleep again soon rather than yield 3 ms */
static int hinted;  /* we told the controller we poll (an2_yield) since the last wait_over */

/* A VC is open or being opened: only then is there AN2 traffic worth spinning for. A task
 * whose peers all use the daemon route (PvmDontRoute, Debian tasks, AN2 off) waits as the
 * daemon route alone does: asleep in poll() on the pvmd socket, which it reads at once. */
static int fastpath_in_use(void)
{
	if (an2r->pending_opens)
		return 1;
	for (uint32_t vc = 0; vc < an2r->max_vcs; vc++)
		if (an2r->vc_peer[vc])
			return 1;
	return 0;
}

int an2_fastpath_daemon_due(int force)
{
	if (!an2r || an2r->gone || force || !fastpath_in_use())
		return 1;
	/* the pvmd socket costs a system call: while AN2 keeps us busy, read it every
	 * DAEMON_BUSY_US (a wait looks at it with poll(): an2_fastpath_idle) */
	long long now = an2_now_us();
	if (now - last_daemon_us < DAEMON_BUSY_US)
		return 0;
	last_daemon_us = now;
	return 1;
}

int an2_fastpath_idle(long long deadline_us, int *look)
{
	if (!an2r || an2r->gone || !fastpath_in_use())
		return 0;
	long long now = an2_now_us();
	if (idle_since_us < 0)
		idle_since_us = now;
	long long idle = now - idle_since_us;
	if (idle >= (slept ? RESLEEP_US : YIELD_US) || (deadline_us >= 0 && now >= deadline_us)) {
		idle_since_us = -1;
		an2_fastpath_wait_over();     /* no lease while asleep */
		if (an2_sleep_prepare(an2r->ep) == 0)
			return 0;                 /* asked for the interrupt: sleep in poll() now */
		an2_sleep_finish(an2r->ep);
		return 1;
	}
	if (idle >= SPIN_US) {
		/* only a received message ends this wait: a controller sharing our CPU keeps it
		 * rather than take turns with us while it has nothing for us */
		an2_yield(an2r->ep, true);
		hinted = 1;
		now = an2_now_us();
	}
	/* waiting for a while (our peer or we descheduled, say, the yield coming back late):
	 * the pvmd socket is due a look, by one poll() without sleeping that looks at an2d's
	 * socket too; only what is ready is read */
	if (now - idle_since_us >= DAEMON_CHECK_US && now - last_daemon_us >= DAEMON_CHECK_US) {
		last_daemon_us = now;
		*look = 1;
		return 0;
	}
	return 1;
}

void an2_fastpath_wait_over(void)
{
	if (hinted && an2r && !an2r->gone)
		an2_yield_end(an2r->ep);
	hinted = 0;
}

void an2_fastpath_woke(void)
{
	if (an2r && !an2r->gone)
		an2_sleep_finish(an2r->ep);
	idle_since_us = -1;
	last_daemon_us = an2_now_us();   /* the poll() looked at the pvmd socket */
	slept = 1;
}

void an2_fastpath_busy(void)
{
	idle_since_us = -1;
	slept = 0;
}

/* ---- starting and stopping ---- */

static int env_off(void)
{
	const char *v = getenv("PVM_AN2");
	return v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no"));
}

static void free_held(struct held **head)
{
	while (*head) {
		struct held *h = *head;
		*head = h->next;
		msg_free(h->m);
		free(h);
	}
}

/* Frees the closed routes whose pool blocks all came back. */
static void release_lingering(void)
{
	for (struct an2_route **rp = &lingering; *rp;) {
		struct an2_route *r = *rp;
		if (bufpool_blocks_out(r->pool) != 0) {
			rp = &r->next_lingering;
			continue;
		}
		*rp = r->next_lingering;
		an2_close(r->ep);
		bufpool_destroy(r->pool);
		free(r->vc_peer);
		free(r);
	}
}

/* Leaving: our transmissions done, within TX_DRAIN_MS, so that they reach a peer that reads
 * before pvmd tells it we have gone. Nothing is lost either way: an2d sends what a VC we close
 * still has queued (our endpoint lingers), and keeps a closed VC's route until the cells in
 * the switch have reached the peer. */
void an2_fastpath_quiesce(void)
{
	if (!an2r || an2r->quiesced)
		return;
	an2r->quiesced = 1;
	if (an2r->gone)
		return;
	long long end = an2_now_us() + TX_DRAIN_MS * 1000LL;
	if (an2r->pending_opens)
		an2_poll_vc_answers();   /* VCs the driver opened that we have not collected */
	while (tx_inflight > 0 && !an2r->gone) {
		if (an2_now_us() > end) {
			lpvm_log("AN2 fast path: %d PDUs not sent in %d ms (peers not receiving); "
			         "an2d sends them as the peers read", tx_inflight, TX_DRAIN_MS);
			return;
		}
		an2_route_progress(&an2r->t);
		if (lpvm.daemon && an2_fastpath_daemon_due(0))
			lpvm.daemon->progress(lpvm.daemon);
		sched_yield();
	}
}

static void an2_close_route(struct transport *t)
{
	(void)t;
	if (!an2r)
		return;
	an2_fastpath_quiesce();
	frag_set_allocator(an2r->old_alloc);
	for (int i = 0; i < 64; i++)
		while (an2r->peers[i]) {
			struct peer *p = an2r->peers[i];
			an2r->peers[i] = p->next;
			free_held(&p->hd_head);
			free_held(&p->ha_head);
			free_held(&p->xh_head);
			msg_free(p->partial);
			free(p);
		}
	/* our VCs go now (peers see PEER_GONE after our last cells); the area stays mapped while
	 * messages still hold its blocks */
	for (uint32_t vc = 0; vc < an2r->max_vcs && !an2r->gone; vc++) {
		struct an2_vc_info vi;
		if (an2_vc_info(an2r->ep, (uint16_t)vc, &vi) == 0)
			an2_vc_close(an2r->ep, (uint16_t)vc);
	}
	/* what is still queued is an2d's to send now (the area stays mapped there): its blocks
	 * are no longer ours to wait for */
	for (uint32_t i = 0; tx_recs && i < an2_tx_slots(an2r->ep) * 2; i++)
		for (unsigned b = 0; b < tx_recs[i].nblocks; b++)
			bufpool_tx_unref(an2r->pool, tx_recs[i].blocks[b]);
	free(tx_recs);
	tx_recs = NULL;
	tx_free = -1;
	tx_inflight = 0;
	/* an endpoint kept open for messages we hold gives our tid up: it may be a new task's */
	if (!an2r->gone && bufpool_blocks_out(an2r->pool) != 0)
		an2_register_name(an2r->ep, 0);
	an2r->next_lingering = lingering;
	lingering = an2r;
	an2r = NULL;
	release_lingering();
}

static int an2_send_unused(struct transport *t, struct msg *m)
{
	(void)t;
	(void)m;
	return PvmSysErr;   /* messages reach the fast path through an2_fastpath_send */
}

static void at_exit(void)
{
	/* a task that returns from main without pvm_exit: what it sent must still arrive */
	an2_fastpath_quiesce();
}

void an2_fastpath_start(void)
{
	static int said, exit_hooked;
	release_lingering();
	if (an2r || env_off())
		return;
	struct an2_open_params op = { .buf_size = AN2_BUF_SIZE, .rx_slots = RX_POST_MAX };
	an2_ep *ep = NULL;
	int rc = an2_open(&op, &ep);
	if (rc == 0) {
		rc = an2_register_name(ep, (uint32_t)lpvm.mytid);
		if (rc != 0) {
			an2_close(ep);
			ep = NULL;
		}
	}
	struct an2_route *r = ep ? calloc(1, sizeof *r) : NULL;
	if (r) {
		r->ep = ep;
		r->max_vcs = an2_max_vcs(ep);
		r->rx_slots = an2_rx_slots(ep);
		r->vc_peer = calloc(r->max_vcs, sizeof *r->vc_peer);
		r->pool = bufpool_new(an2_buf_base(ep), an2_buf_size(ep));
		tx_recs = calloc(an2_tx_slots(ep) * 2, sizeof *tx_recs);
	}
	if (!r || !r->vc_peer || !r->pool || !tx_recs) {
		if (!said++)
			lpvm_log("AN2 fast path unavailable (%s%s%s): using the daemon route",
			         rc ? an2_strerror(rc) : "out of memory", rc ? ": " : "",
			         rc ? an2_error_detail() : "");
		if (r) {
			bufpool_destroy(r->pool);
			free(r->vc_peer);
			free(r);
		}
		free(tx_recs);
		tx_recs = NULL;
		if (ep)
			an2_close(ep);
		return;
	}
	for (int i = (int)an2_tx_slots(ep) * 2 - 1; i >= 0; i--) {
		tx_recs[i].next_free = tx_free;
		tx_free = i;
	}
	bufpool_set_reserve(r->pool, POOL_RESERVE);
	r->old_alloc = frag_set_allocator(bufpool_allocator(r->pool));
	if (lpvm.frag_size == 32768)   /* task.c's default, not one the user chose */
		lpvm.frag_size = (int)(PDU_MAX_DATA + 16 + MSGHDRLEN);   /* a fragment fills a PDU */
	r->active = 1;
	r->t = (struct transport){ .name = "an2", .send = an2_send_unused,
	                           .progress = an2_route_progress, .pollfds = an2_pollfds,
	                           .poll_ms_max = -1, .close = an2_close_route, .impl = r };
	an2r = r;
	if (lpvm_add_route(&r->t) != 0) {
		an2_close_route(&r->t);
		return;
	}
	if (!exit_hooked++)
		atexit(at_exit);
}
