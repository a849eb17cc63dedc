/* fp_rx.c — the AN2 route's receive side: posted buffers, receive reports, reassembly. */
/* Receive buffers posted per VC become a message's fragments; PDUs that fp_reliable.c takes
 * (the next in order) are reassembled into messages, which go to fp_order.c. */
#include "fp_rx.h"

#include "clock.h"
#include "fp_order.h"
#include "fp_pair_fail.h"
#include "fp_reliable.h"
#include "fp_state.h"
#include "frag.h"
#include "lib_state.h"
#include "msg.h"

#include <arpa/inet.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t post_max(const struct fp_route *r)
{
	return r->rx_slots < RX_POST_MAX ? r->rx_slots : RX_POST_MAX;
}

/* A VC starts with few buffers posted: a pair that trades a message at a time needs no more,
 * and every buffer posted is memory the controller will write first (a page fault each, in
 * an2d, on the message's path). */
int fp_post_rx(struct fp_route *r, struct peer *p)
{
	if (!p->post_want)
		p->post_want = RX_POST_FIRST < post_max(r) ? RX_POST_FIRST : post_max(r);
	uint32_t want = p->post_want;
	while (p->state == PEER_OPEN && (uint32_t)p->posted < want) {
		char *b = bufpool_alloc_area(r->pool, POOL_MAX_BLOCK);
		if (!b)
			return p->posted ? 0 : -1;
		uint32_t off = bufpool_offset(r->pool, b);
		struct an2_frag fr = { off + FRAG_HEADROOM - PDU_HDR_LEN, RX_BUF_LEN };
		int rc = an2_post_recv(r->ep, (uint16_t)p->vc, &fr, 1, (uint64_t)off + 1);
		if (rc != 0) {
			bufpool_free(r->pool, b);
			return rc == -EAGAIN ? 0 : rc;
		}
		p->posted++;
	}
	return 0;
}

static void protocol_error(struct fp_route *r, struct peer *p, const char *what)
{
	fp_peer_fail(r, p, what);
}

/* The header came in network byte order (fp_tx.c). */
void fp_hdr_to_host(struct pdu_hdr *h)
{
	h->msg_len = ntohl(h->msg_len);
	h->dmn_before = ntohl(h->dmn_before);
	h->an2_index = ntohl(h->an2_index);
	h->seq = ntohl(h->seq);
	h->ack = ntohl(h->ack);
	h->enc = (int32_t)ntohl((uint32_t)h->enc);
	h->tag = (int32_t)ntohl((uint32_t)h->tag);
	h->ctx = (int32_t)ntohl((uint32_t)h->ctx);
	h->wid = (int32_t)ntohl((uint32_t)h->wid);
}

/* A DATA PDU taken in order joins its message (f: its data, NULL for none; taken); the
 * message goes on when complete. NULL, or what was wrong (f freed). */
const char *fp_rx_assemble(struct fp_route *r, struct peer *p, const struct pdu_hdr *h,
                           struct frag *f)
{
	uint32_t dl = f ? (uint32_t)f->len : 0;
	const char *why = NULL;
	if (h->flags & PDU_SOM) {
		if (p->partial || h->msg_len > (1u << 30))
			why = p->partial ? "message started inside another" : "message too long";
		else if (!(p->partial = msg_new(h->enc)))
			why = "out of memory";
		if (!why) {
			p->partial->tag = h->tag;
			p->partial->ctx = h->ctx;
			p->partial->wid = h->wid;
			p->partial->src = p->tid;
			p->partial->dst = lpvm.mytid;
			p->partial_left = h->msg_len;
			p->partial_hdr = *h;
		}
	} else if (!p->partial || h->an2_index != p->partial_hdr.an2_index) {
		why = "PDU of no message";
	}
	if (!why && dl > p->partial_left)
		why = "message longer than announced";
	if (why) {
		if (f)
			frag_free(f);
		return why;
	}
	if (f) {
		msg_append_frag(p->partial, f);
		p->partial_left -= dl;
	}
	if (!(h->flags & PDU_EOM))
		return NULL;
	if (p->partial_left)
		return "message shorter than announced";
	struct msg *m = p->partial;
	p->partial = NULL;
	m->mode = MODE_NONE;
	fp_order_an2_arrival(r, p, m, &p->partial_hdr);
	return NULL;
}

/* A fragment of plain memory holding a copy of n bytes (it is never transmitted). */
struct frag *fp_rx_copy_frag(struct fp_route *r, const char *data, uint32_t n)
{
	struct frag *f = calloc(1, sizeof *f);
	char *mem = f ? malloc(FRAG_HEADROOM + n) : NULL;
	if (!mem) {
		free(f);
		return NULL;
	}
	f->mem = mem;
	f->mem_size = FRAG_HEADROOM + n;
	f->owner = bufpool_allocator(r->pool);   /* frees what is not its own */
	f->data = mem + FRAG_HEADROOM;
	f->len = f->cap = n;
	memcpy(f->data, data, n);
	return f;
}

/* A DATA PDU taken in order, in block b (len bytes from the header h on; taken). */
static void take_pdu(struct fp_route *r, struct peer *p, char *b, uint32_t len,
                     const struct pdu_hdr *h)
{
	uint32_t dl = len - PDU_HDR_LEN;
	struct frag *f = NULL;
	if (dl > 0 && (dl <= RX_COPY_MAX || bufpool_free_bytes(r->pool) < POOL_RESERVE)) {
		/* copy out, so that the buffer goes back to the ring (small PDUs, or an
		 * application that keeps many messages) */
		f = fp_rx_copy_frag(r, b + FRAG_HEADROOM, dl);
		bufpool_free(r->pool, b);
	} else if (dl > 0) {
		f = calloc(1, sizeof *f);   /* the receive buffer itself becomes the fragment */
		if (f) {
			f->mem = b;
			f->mem_size = POOL_MAX_BLOCK;
			f->owner = bufpool_allocator(r->pool);
			f->data = b + FRAG_HEADROOM;
			f->len = f->cap = dl;
		} else {
			bufpool_free(r->pool, b);
		}
	} else {
		bufpool_free(r->pool, b);
	}
	const char *why = dl > 0 && !f ? "out of memory" : fp_rx_assemble(r, p, h, f);
	if (why)
		protocol_error(r, p, why);
}

/* The header of the PDU in receive block b, in host order. */
static void block_hdr(const char *b, struct pdu_hdr *h)
{
	memcpy(h, b + FRAG_HEADROOM - PDU_HDR_LEN, sizeof *h);
	fp_hdr_to_host(h);
}

/* One good PDU in block b (len bytes from the header on). Takes the block. */
static void pdu_arrived(struct fp_route *r, struct peer *p, char *b, uint32_t len)
{
	struct pdu_hdr h;
	if (len < PDU_HDR_LEN) {
		bufpool_free(r->pool, b);
		protocol_error(r, p, "PDU shorter than its header");
		return;
	}
	block_hdr(b, &h);
	if (h.magic != FP_PDU_MAGIC || h.kind < PDU_DATA || h.kind > PDU_PROBE) {
		bufpool_free(r->pool, b);
		protocol_error(r, p, "PDU with a bad header");
		return;
	}
	p->rx_pdus++;
	if (p->xh_head)
		p->exit_wait_us = lpvm_now_us();   /* its stream still moves: its exit notice waits */
	int cc = fp_rel_arrived(r, p, &h, len, b);
	if (cc == 0)   /* an ACK, NAK or PROBE, or a duplicate */
		bufpool_free(r->pool, b);
	if (cc != 1)   /* (2: kept, out of order) */
		return;
	take_pdu(r, p, b, len, &h);
	/* those it was missing for (a gap is rare: no call per PDU otherwise) */
	while (p->rel.nkept && (b = fp_rel_next_kept(r, p, &len)) != NULL) {
		block_hdr(b, &h);
		take_pdu(r, p, b, len, &h);
	}
}

/* A receive report on p's VC (p NULL: nobody's now): the buffer comes back with a PDU or an
 * error, and another is posted. */
void fp_rx_report(struct fp_route *r, struct peer *p, const struct an2_report *rep)
{
	uint64_t off = rep->cookie - 1;
	if (rep->cookie == 0 || off + POOL_MAX_BLOCK > an2_buf_size(r->ep))
		return;   /* not a buffer of ours: the controller is not trusted */
	char *b = (char *)an2_buf_base(r->ep) + off;
	if (!p) {
		bufpool_free(r->pool, b);
		return;
	}
	p->posted--;
	/* As many PDUs in one batch of reports as were posted: the controller took every buffer
	 * before we posted again, so the VC may have stalled (its credit stops; nothing is lost).
	 * A stream needs a deeper ring. */
	if (p->batch_seen != r->report_batch) {
		p->batch_seen = r->report_batch;
		p->batch_pdus = 0;
	}
	if (++p->batch_pdus >= p->post_want && p->post_want < post_max(r))
		p->post_want = 2 * p->post_want < post_max(r) ? 2 * p->post_want : post_max(r);
	if (rep->status == AN2_STATUS_OK && rep->length <= RX_BUF_LEN) {
		pdu_arrived(r, p, b, rep->length);
	} else {
		bufpool_free(r->pool, b);
		if (rep->status == AN2_STATUS_CRC_ERROR || rep->status == AN2_STATUS_LENGTH_ERROR ||
		    rep->status == AN2_STATUS_OK)   /* (damaged or merged by a lost cell: again) */
			fp_rel_damaged(r, p, rep->status == AN2_STATUS_OK ? "PDU overflows its buffer"
			                                                  : an2_status_str(rep->status));
		else if (rep->status != AN2_STATUS_ABORTED && p->state == PEER_OPEN)
			protocol_error(r, p, an2_status_str(rep->status));
	}
	if (p->state == PEER_OPEN)
		fp_post_rx(r, p);
}

