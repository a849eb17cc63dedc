/* fp_reliable.h — nothing lost on an open VC: sequence numbers, acks, retransmission. */
#ifndef AN2PVM_FP_RELIABLE_H
#define AN2PVM_FP_RELIABLE_H

#include "fp_state.h"

/* Each direction of a VC numbers its DATA PDUs from 0. The receiver takes them in order: a
 * duplicate is dropped (and acknowledged), a later one is kept (its receive block) until those
 * before it have come, and a gap or a damaged PDU (CRC or length error) is answered by a NAK
 * naming the first PDU missing. Acknowledgements are cumulative, ride on the reverse DATA PDUs,
 * and otherwise go as an ACK PDU every ACK_EVERY PDUs taken, or when the receiver is about to
 * wait. The sender keeps every PDU's blocks referenced until acknowledged (REL_WINDOW PDUs and
 * REL_WINDOW_BYTES at most per VC) and resends the NAKed one alone (selective repeat). When its
 * retransmission timer expires it sends a PROBE, one cell, which the receiver answers with an
 * ACK (nothing missing: an ACK was lost) or a NAK (a lost tail, or a lost NAK), and a NAK that
 * answers a probe resends everything from the PDU it names on (go-back-N: a tail is lost whole):
 * a receiver that is only slow to post buffers gets no flood of resends behind the PDUs it has
 * not taken yet. The timer is looked at by the wait loops (progress, when it found no report)
 * and never arms a thread; it is armed at the first look after progress, so that the clean
 * path reads no clock per message. Every header field from the peer is checked
 * against what we sent or expect: nothing it sends can move us out of the window. */

/* fp_rel_vc.c: a VC's reliability state */
int fp_rel_open(struct fp_route *r, struct peer *p);      /* VC opened: 0, -1 out of memory */
void fp_rel_show(struct peer *p);   /* an2stat's copy of the counters, updated */
void fp_rel_close(struct fp_route *r, struct peer *p);    /* VC ends: unacked PDUs let go,
                                                           * counters logged */

/* fp_rel_send.c: sending */
int fp_rel_window_full(const struct peer *p);
/* The header fields of the next new DATA PDU (taking any acknowledgement owed with it). */
void fp_rel_stamp(struct fp_route *r, struct peer *p, struct pdu_hdr *net_hdr);
/* A new DATA PDU went out (posted): kept until acknowledged. */
void fp_rel_sent(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
                 void *const *blocks, unsigned nblocks);

/* fp_rel_recv.c: receiving */
/* A good PDU's header (host order) from p, len bytes in all, in receive block b: 1 if a DATA
 * PDU to be taken (the next in order), 2 if kept here (a later one: b is ours until
 * fp_rel_next_kept gives it back), 0 if consumed or dropped (ACK, NAK, PROBE, duplicate). */
int fp_rel_arrived(struct fp_route *r, struct peer *p, const struct pdu_hdr *h, uint32_t len,
                   void *b);
/* After a PDU was taken: the kept one that is next in order now (its block; *len), taken, or
 * NULL (and a NAK for the next gap if more are kept). */
void *fp_rel_next_kept(struct fp_route *r, struct peer *p, uint32_t *len);
/* A PDU from p came damaged (CRC or length error): ask for it again. */
void fp_rel_damaged(struct fp_route *r, struct peer *p, const char *what);

/* fp_rel_timer.c: timers, and what the wait loops have done */
/* Resends, timers; flush_acks: also every acknowledgement owed (we are about to wait). */
void fp_rel_service(struct fp_route *r, int flush_acks);
int fp_rel_poll_ms(struct fp_route *r);   /* -1, or how soon a timer needs a look */
/* Leaving: PDUs still unacknowledged on VCs that needed recovery (worth waiting for); with
 * final set, every open VC sends an ACK (what we took, and how many PDUs we sent). */
int fp_rel_leaving(struct fp_route *r, int final);

/* between the reliability files */
static inline int fp_rel_unacked(const struct rel_state *s)
{
	return s->tx_una != s->tx_next;
}
/* Lets the PDUs before `upto` go (their blocks come back once their descriptors' reports
 * have come too). upto - tx_una <= REL_WINDOW (checked by every caller). */
void fp_rel_release_upto(struct fp_route *r, struct rel_state *s, uint32_t upto);
/* An ACK, NAK or PROBE PDU: 0, or -1 when it cannot go now (the pair may have failed). */
int fp_rel_send_ctl(struct fp_route *r, struct peer *p, enum pdu_kind kind);
void fp_rel_pump(struct fp_route *r, struct peer *p);   /* the marked PDUs resent, as room allows */
/* Marks PDU `from` (whole: and every one after it) to be resent, and resends (see there). */
void fp_rel_resend(struct fp_route *r, struct peer *p, uint32_t from, int whole,
                   uint32_t damaged, const char *why);
/* A cumulative acknowledgement from the peer: 1 if it lies in the window. */
int fp_rel_take_ack(struct fp_route *r, struct peer *p, uint32_t ack);

#endif
