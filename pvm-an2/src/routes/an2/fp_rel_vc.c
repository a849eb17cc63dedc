/* fp_rel_vc.c — a VC's reliability state: opened, its sent PDUs let go, closed. */
/* The counters an2stat shows, and the summary logged when the VC ends. */
#include "fp_reliable.h"

#include "errors.h"
#include "fp_state.h"

#include <stdlib.h>

/* an2stat's copy of the counters it shows (relaxed: one writer, the numbers order nothing). */
void fp_rel_show(struct peer *p)
{
	struct an2_vc_host_stats *v = p->rel.shown;
	if (!v)
		return;
	__atomic_store_n(&v->resent, p->rel.resent, __ATOMIC_RELAXED);
	__atomic_store_n(&v->dups_dropped, p->rel.dups, __ATOMIC_RELAXED);
	__atomic_store_n(&v->recoveries, p->rel.recoveries, __ATOMIC_RELAXED);
}

int fp_rel_open(struct fp_route *r, struct peer *p)
{
	p->rel = (struct rel_state){ .rto_us = REL_RTO_MIN_US };
	p->rel.shown = r->ep && p->vc >= 0 ? an2_vc_host_stats(r->ep, (uint16_t)p->vc) : NULL;
	fp_rel_show(p);   /* (zero: the VC index may have served another peer) */
	p->rel.ring = calloc(REL_WINDOW, sizeof *p->rel.ring);
	p->rel.kept = calloc(REL_WINDOW, sizeof *p->rel.kept);
	if (p->rel.ring && p->rel.kept)
		return 0;
	free(p->rel.ring);
	free(p->rel.kept);
	p->rel.ring = NULL;
	p->rel.kept = NULL;
	return -1;
}

/* Lets the PDUs before `upto` go (their blocks come back once their descriptors' reports
 * have come too). upto - tx_una <= REL_WINDOW (checked by every caller). */
void fp_rel_release_upto(struct fp_route *r, struct rel_state *s, uint32_t upto)
{
	for (unsigned i = 0; i < REL_WINDOW && s->tx_una != upto; i++) {
		struct rel_pdu *e = &s->ring[s->tx_una % REL_WINDOW];
		for (unsigned b = 0; b < e->nblocks; b++)
			bufpool_tx_unref(r->pool, e->blocks[b]);
		e->nblocks = e->nfrags = 0;
		if (e->marked) {
			e->marked = 0;
			s->marked--;
		}
		s->unacked_bytes -= e->bytes;
		s->tx_una++;
	}
}

void fp_rel_close(struct fp_route *r, struct peer *p)
{
	struct rel_state *s = &p->rel;
	if (!s->ring)
		return;
	if (fp_rel_unacked(s))
		r->rel_unacked_peers--;
	fp_rel_release_upto(r, s, s->tx_next);
	free(s->ring);
	s->ring = NULL;
	for (unsigned i = 0; s->nkept && i < REL_WINDOW; i++)
		if (s->kept[i].block) {
			bufpool_free(r->pool, s->kept[i].block);
			s->kept[i].block = NULL;
			s->nkept--;
		}
	free(s->kept);
	s->kept = NULL;
	/* (timeouts alone: a probe that found nothing missing, the peer merely slow, as on a
	 * busy machine; duplicates alone: the peer's timer fired early, and it says so itself) */
	if (s->resent || s->naks_in || s->bogus || s->damaged || s->out_of_order || s->naks_out)
		lpvm_log("AN2 fast path: VC %s with t%x: sent %llu PDUs, resent %llu (%llu NAKs, %llu "
		         "timeouts, %llu bad acks); took %llu, %llu damaged, %llu out of order, %llu "
		         "duplicates dropped, %llu NAKs sent",
		         p->addr, (unsigned)p->tid, (unsigned long long)s->sent,
		         (unsigned long long)s->resent, (unsigned long long)s->naks_in,
		         (unsigned long long)s->timeouts, (unsigned long long)s->bogus,
		         (unsigned long long)s->taken, (unsigned long long)s->damaged,
		         (unsigned long long)s->out_of_order, (unsigned long long)s->dups,
		         (unsigned long long)s->naks_out);
}
