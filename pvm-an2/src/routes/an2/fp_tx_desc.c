/* fp_tx_desc.c — the AN2 route's transmit descriptors in flight and the blocks each holds. */
/* One record per descriptor posted (its cookie - 1), holding its blocks referenced until its
 * TX report comes back; counted per VC for the retransmission timer (fp_reliable.c). */
#include "fp_tx_desc.h"

#include "fp_pair_fail.h"
#include "fp_state.h"

#include <errno.h>
#include <stdlib.h>

int fp_tx_init(struct fp_route *r, uint32_t slots)
{
	r->tx_recs = calloc(slots, sizeof *r->tx_recs);
	if (!r->tx_recs)
		return -1;
	r->tx_slots = slots;
	r->tx_free = -1;
	for (int i = (int)slots - 1; i >= 0; i--) {
		r->tx_recs[i].vc = -1;
		r->tx_recs[i].next_free = r->tx_free;
		r->tx_free = i;
	}
	return 0;
}

void fp_tx_hand_over(struct fp_route *r)
{
	for (uint32_t i = 0; r->tx_recs && i < r->tx_slots; i++)
		for (unsigned b = 0; b < r->tx_recs[i].nblocks; b++)
			bufpool_tx_unref(r->pool, r->tx_recs[i].blocks[b]);
	free(r->tx_recs);
	r->tx_recs = NULL;
	r->tx_free = -1;
	r->tx_inflight = 0;
}

int fp_tx_post(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
               void *const *blocks, unsigned nblocks)
{
	if (p->state != PEER_OPEN || p->vc < 0)
		return -ENOTCONN;
	if (r->tx_free < 0 || an2_tx_space(r->ep) == 0)
		return -EAGAIN;
	int idx = r->tx_free;
	int rc = an2_send(r->ep, (uint16_t)p->vc, fr, n, 0, (uint64_t)idx + 1);
	if (rc == -EAGAIN)
		return rc;
	if (rc != 0) {
		fp_peer_fail(r, p, an2_strerror(rc));
		return rc;
	}
	struct tx_rec *rec = &r->tx_recs[idx];
	r->tx_free = rec->next_free;
	r->tx_inflight++;
	for (unsigned i = 0; i < nblocks; i++) {
		rec->blocks[i] = blocks[i];
		bufpool_tx_ref(r->pool, blocks[i]);
	}
	rec->nblocks = nblocks;
	rec->vc = p->vc;
	p->rel.tx_queued++;
	return 0;
}

void fp_tx_complete(struct fp_route *r, uint64_t cookie)
{
	if (cookie == 0 || cookie > r->tx_slots)
		return;
	struct tx_rec *rec = &r->tx_recs[cookie - 1];
	for (unsigned i = 0; i < rec->nblocks; i++)
		bufpool_tx_unref(r->pool, rec->blocks[i]);
	rec->nblocks = 0;
	rec->next_free = r->tx_free;
	r->tx_free = (int)(cookie - 1);
	r->tx_inflight--;
	/* (a VC closed meanwhile, or reused by another peer: its count only errs low, which
	 * makes the retransmission timer act a little sooner) */
	struct peer *p = rec->vc >= 0 && (uint32_t)rec->vc < r->max_vcs ? r->vc_peer[rec->vc] : NULL;
	if (p && p->rel.tx_queued > 0)
		p->rel.tx_queued--;
	rec->vc = -1;
}
