/* fp_tx.c — the AN2 route's transmit side: PDUs out of a message's own fragments. */
/* Headers and small messages are copied into area blocks; each descriptor holds its blocks
 * until its report (fp_tx_desc.c), and fp_reliable.c holds them again until the peer
 * acknowledges the PDU; waiting for transmit room keeps the pvmd socket drained. */
#include "fp_tx.h"

#include "clock.h"
#include "fp_pair_fail.h"
#include "fp_progress.h"
#include "fp_reliable.h"
#include "fp_state.h"
#include "fp_tx_desc.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"
#include "route_set.h"

#include <arpa/inet.h>

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Stalled for transmit reports: every DAEMON_CHECK_US, drain the pvmd socket (no deadlock
 * with a peer's pvmd send) and have the next progress look at an2d's socket (a dead an2d
 * writes no more reports: only its socket tells). 0 or a negative PVM error. */
static int stall_check(struct fp_route *r, long long *last_us)
{
	if (lpvm_now_us() - *last_us <= DAEMON_CHECK_US)
		return 0;
	*last_us = lpvm_now_us();
	r->check_ctl = 1;
	int cc = lpvm_daemon_progress();
	return cc < 0 ? cc : 0;
}

/* Reads reports until a transmit slot is free, the peer's window has room and its resends
 * have gone (nothing new before them); keeps the pvmd socket drained and our
 * acknowledgements going meanwhile (the peer may be stalled on us as we are on it). */
static int wait_tx_room(struct fp_route *r, struct peer *p)
{
	long long last_check = lpvm_now_us();
	while (r->tx_free < 0 || an2_tx_space(r->ep) == 0 || fp_rel_window_full(p) ||
	       p->rel.marked) {
		int cc = fp_route_progress(&r->route);
		if (cc < 0)
			return cc;
		if (!r->active || p->state != PEER_OPEN)
			return 1;
		fp_rel_service(r, 1);
		cc = stall_check(r, &last_check);
		if (cc < 0)
			return cc;
		sched_yield();
	}
	return 0;
}

/* Sends one new DATA PDU, kept until acknowledged. 0, 1 (route or pair gone), < 0. */
static int tx_pdu(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
                  void **blocks, unsigned nblocks)
{
	for (;;) {   /* (each turn waits for room first; ends when posted or the pair fails) */
		int cc = wait_tx_room(r, p);
		if (cc)
			return cc;
		cc = fp_tx_post(r, p, fr, n, blocks, nblocks);
		if (cc == 0)
			break;
		if (cc != -EAGAIN)
			return 1;
	}
	fp_rel_sent(r, p, fr, n, blocks, nblocks);
	return 0;
}

/* A block of the area for a header or a copy; waits for transmit reports to give some back.
 * NULL when the area stays exhausted with nothing in flight. */
static void *tx_block(struct fp_route *r, size_t size)
{
	long long last_check = lpvm_now_us();
	for (;;) {
		void *b = bufpool_alloc_area(r->pool, size);
		if (b || (r->tx_inflight == 0 && r->rel_unacked_peers == 0) || !r->active)
			return b;
		if (fp_route_progress(&r->route) < 0 || stall_check(r, &last_check) < 0)
			return NULL;
		fp_rel_service(r, 1);   /* (acknowledgements give blocks back: ours and the peer's) */
		sched_yield();
	}
}

/* The header in network byte order: the peer may be on another host. */
static void fill_hdr(struct fp_route *r, struct pdu_hdr *h, struct peer *p,
                     const struct msg *m, int flags, uint32_t len)
{
	int enc = m->enc == ENC_INPLACE ? lpvm.dsig : m->enc;
	*h = (struct pdu_hdr){ .magic = FP_PDU_MAGIC, .kind = PDU_DATA, .flags = (uint8_t)flags,
	                       .msg_len = htonl(len), .dmn_before = htonl(p->dmn_sent),
	                       .an2_index = htonl(p->an2_sent),
	                       .enc = (int32_t)htonl((uint32_t)enc),
	                       .tag = (int32_t)htonl((uint32_t)m->tag),
	                       .ctx = (int32_t)htonl((uint32_t)m->ctx),
	                       .wid = (int32_t)htonl((uint32_t)m->wid) };
	fp_rel_stamp(r, p, h);
}

/* A PDU of header + data copied into one block (small messages). */
static int tx_copied(struct fp_route *r, struct peer *p, const struct msg *m)
{
	uint32_t len = (uint32_t)msg_length(m);
	char *b = tx_block(r, PDU_HDR_LEN + len);
	if (!b)
		return 1;
	fill_hdr(r, (struct pdu_hdr *)b, p, m, PDU_SOM | PDU_EOM, len);
	char *d = b + PDU_HDR_LEN;
	for (const struct frag *f = m->head; f; f = f->next) {
		memcpy(d, f->data, f->len);
		d += f->len;
	}
	struct an2_frag fr = { bufpool_offset(r->pool, b), PDU_HDR_LEN + len };
	void *blk = b;
	int cc = tx_pdu(r, p, &fr, 1, &blk, 1);
	bufpool_free(r->pool, b);   /* given back at its TX report */
	return cc;
}

/* Bytes of area a message needs besides its own area fragments (headers and copies). */
static size_t bytes_to_copy(const struct fp_route *r, const struct msg *m)
{
	size_t n = 0;
	for (const struct frag *f = m->head; f; f = f->next)
		if (!f->mem || !bufpool_owns(r->pool, f->mem))
			n += f->len + POOL_MIN_BLOCK;
	return n + (msg_length(m) / PDU_MAX_DATA + 1) * POOL_MIN_BLOCK;
}

/* Header block + pieces of the message's fragments, as they lie in the area (zero copy);
 * pieces outside the area (in-place data, malloc'd fragments) are copied into a block. */
static int tx_gathered(struct fp_route *r, struct peer *p, const struct msg *m)
{
	uint32_t total = (uint32_t)msg_length(m), left = total;
	const struct frag *f = m->head;
	size_t off = 0;
	int first = 1;
	while (first || left > 0) {
		struct an2_frag fr[AN2_MAX_FRAGS];
		void *blocks[AN2_MAX_FRAGS], *copies[AN2_MAX_FRAGS];
		unsigned n = 0, ncopies = 0;
		char *h = tx_block(r, PDU_HDR_LEN);
		if (!h)
			return -1;
		copies[ncopies++] = h;
		blocks[n] = h;
		fr[n++] = (struct an2_frag){ bufpool_offset(r->pool, h), PDU_HDR_LEN };
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
			if (!f->mem || !bufpool_owns(r->pool, f->mem)) {
				blk = tx_block(r, len);
				if (!blk) {
					cc = -1;
					break;
				}
				memcpy(blk, src, len);
				src = blk;
				copies[ncopies++] = blk;
			}
			blocks[n] = blk;
			fr[n++] = (struct an2_frag){ bufpool_offset(r->pool, src), len };
			off += len;
			room -= len;
			pdu_data += len;
		}
		if (!cc) {
			left -= pdu_data;
			fill_hdr(r, (struct pdu_hdr *)h, p, m,
			         (first ? PDU_SOM : 0) | (left ? 0 : PDU_EOM), total);
			first = 0;
			cc = tx_pdu(r, p, fr, n, blocks, n);
		}
		for (unsigned i = 0; i < ncopies; i++)
			bufpool_free(r->pool, copies[i]);   /* given back at the TX report */
		if (cc)
			return cc;
	}
	return 0;
}

/* What a task that computes after a send to another host would hold back: its controller,
 * waiting for this very CPU, gets it only at the scheduler's tick (4 ms at HZ=250), and the
 * message with it, where the kernel's TCP sends in the sender's own system call. So while the
 * controller waits here and our descriptors to such a peer are unreported, we give it the
 * CPU, and for a message of several PDUs also while cells it took still wait in it (for the
 * switch's credit: a descriptor reported sent has left the ring, not the host); a controller
 * that runs elsewhere or sleeps (our doorbell woke it) needs nothing. Not to a peer on this
 * host: there the controller that takes our descriptor delivers the message too, and the
 * sender usually waits for an answer next, which yields to it anyway: handing over first made
 * the 8-byte one-host ping-pong 1.37 times slower (bench/pingpong_ab.sh). Nor for the cells
 * of a one-PDU message: waiting for those made heat 64 across hosts 30 % slower. */
#define HANDOVER_MAX_US 2000   /* however long the message, then back to the task */

static void hand_over(struct fp_route *r, const struct peer *p, size_t len)
{
	if (TID_SAME_HOST(p->tid, lpvm.mytid))
		return;
	bool tail_may_wait = len > PDU_MAX_DATA;
	long long start = -1;
	while ((r->tx_inflight > 0 || (tail_may_wait && an2_controller_holds_cells(r->ep))) &&
	       r->active && an2_controller_waits_here(r->ep)) {
		long long now = lpvm_now_us();
		if (start < 0)
			start = now;
		else if (now - start >= HANDOVER_MAX_US)
			return;
		sched_yield();
		if (fp_route_progress(&r->route) < 0)
			return;
	}
}

int fp_send_msg(struct fp_route *r, struct peer *p, struct msg *m)
{
	size_t len = msg_length(m);
	/* room for headers and copies, or the daemon route (nothing sent yet: order is kept by
	 * the note the caller sends) */
	long long last_check = lpvm_now_us();
	while (bufpool_free_bytes(r->pool) < bytes_to_copy(r, m) + POOL_MAX_BLOCK) {
		if (r->tx_inflight == 0 && r->rel_unacked_peers == 0)
			return 1;
		int cc = fp_route_progress(&r->route);
		if (cc < 0)
			return cc;
		if (!r->active || p->state != PEER_OPEN)
			return 1;
		fp_rel_service(r, 1);
		cc = stall_check(r, &last_check);   /* (an an2d that died sends no more reports) */
		if (cc < 0)
			return cc;
		sched_yield();
	}
	int cc = len <= RX_COPY_MAX ? tx_copied(r, p, m) : tx_gathered(r, p, m);
	if (cc < 0 && r->active && p->state == PEER_OPEN)
		fp_peer_fail(r, p, "buffer area exhausted in mid-message");
	if (cc == 0) {
		p->an2_sent++;
		hand_over(r, p, len);
	}
	return cc == 0 ? 0 : 1;   /* a message that did not go whole takes the daemon route */
}
