/* fp_route.h — the AN2 route's internal state and the functions its files share. */
/* The endpoint, the peers, transmit and wait state; fp_route.c (life, operations table),
 * fp_peers.c, fp_negotiate.c, fp_pair_fail.c, fp_handover.c, fp_tx.c, fp_rx.c, fp_reliable.c,
 * fp_order.c, fp_wait.c; the wire format is fp_wire.h. See
 * README.md, "The AN2 fast path". */
#ifndef AN2PVM_FP_ROUTE_H
#define AN2PVM_FP_ROUTE_H

#include <an2.h>
#include <pvm3.h>
#include <stdint.h>

#include "clock.h"
#include "codec.h"
#include "errors.h"
#include "fp_bufpool.h"
#include "fp_wire.h"
#include "lib_state.h"
#include "msg.h"
#include "pvm_ids.h"
#include "route.h"
#include "route_set.h"
#include "rxqueue.h"

/* Data bytes per PDU: a receive buffer is one pool block with the header in its headroom. */
#define PDU_MAX_DATA (POOL_MAX_BLOCK - FRAG_HEADROOM)
#define RX_BUF_LEN (PDU_MAX_DATA + PDU_HDR_LEN)
/* Received PDUs up to this size are copied out so that their buffer is reposted at once. */
#define RX_COPY_MAX 2048u
#define RX_POST_MAX 16u              /* receive descriptors kept posted per VC */
#define POOL_RESERVE (4u << 20)      /* area bytes packing leaves for receive buffers */
#define DAEMON_CHECK_US 200          /* waiting: look at the pvmd socket (poll) this often */

enum peer_state {
	PEER_UNKNOWN,    /* not looked up yet (or look again after retry_at) */
	PEER_NO_AN2,     /* not a fast-path task: daemon route only, never an AN2 message */
	PEER_PENDING,    /* VC being opened */
	PEER_OPEN,
	PEER_DEAD,       /* failed or gone: daemon route from now on */
};

/* Reliable delivery over one VC (fp_reliable.c): selective repeat with cumulative
 * acknowledgements, go-back-N after a timeout. */
#define REL_WINDOW 256u          /* PDUs sent and not yet acknowledged, per VC (a power of
                                  * two), so that small messages stream on between ACKs, */
#define REL_WINDOW_BYTES (4u << 20)   /* and their bytes (64 full PDUs: four times the receive
                                  * buffers posted, and as much as a sender may queue for a
                                  * peer not reading); go-back-N resends at most this much, and
                                  * a receiver keeps at most this much out of order */

/* A sent PDU, kept (its blocks referenced) until the peer acknowledges it. */
struct rel_pdu {
	struct an2_frag frags[AN2_MAX_FRAGS];
	void *blocks[AN2_MAX_FRAGS];
	unsigned nfrags, nblocks;
	uint32_t bytes;
	int marked;              /* to be resent */
};

/* A PDU received out of order, kept (its receive block) until those before it have come. */
struct rel_kept {
	void *block;             /* NULL: none */
	uint32_t seq, len;
};

struct rel_state {
	/* sending */
	struct rel_pdu *ring;    /* REL_WINDOW entries by seq % REL_WINDOW (NULL: no VC) */
	uint32_t tx_next;        /* the next new PDU's number */
	uint32_t tx_una;         /* the oldest unacknowledged one (== tx_next: none) */
	uint32_t marked;         /* PDUs marked to be resent (selectively or go-back-N), */
	uint32_t mark_from;      /* none before this one */
	uint32_t unacked_bytes;  /* in the PDUs from tx_una to tx_next */
	int tx_queued;           /* our descriptors on this VC whose TX report has not come */
	long long rto_us, rto_at_us, ack_progress_us;
	uint32_t back_to;        /* the last resend's (first) PDU */
	long long back_at_us;    /* and when (a NAK repeated for it meanwhile is not obeyed, */
	uint32_t back_damaged;   /* unless the peer has received damaged PDUs since) */
	int probing;             /* a PROBE went at a timeout and nothing came back since */
	/* receiving */
	uint32_t rx_next;        /* the next PDU number expected (always one missing) */
	struct rel_kept *kept;   /* REL_WINDOW entries by seq % REL_WINDOW: PDUs after rx_next */
	uint32_t nkept;
	uint32_t ack_owed;       /* PDUs taken since the peer last heard our cumulative ack, */
	uint32_t ack_owed_bytes; /* and their bytes */
	int ack_now;             /* a duplicate came: acknowledge at the next chance */
	int dup_acked;           /* already acknowledged at a duplicate since the last new PDU */
	int rx_gap;              /* something may be missing: damage or a gap since the last PDU
	                          * taken in order, and no word since that the peer sent no more */
	uint32_t nak_for;        /* the PDU number our last NAK asked for */
	long long nak_at_us;     /* and when (0: none yet) */
	uint32_t nak_damaged;    /* and our damaged count then */
	/* counters (logged per recovery, rate-limited, and as a summary when the VC ends; the
	 * resends, duplicates and recoveries also shown by an2stat) */
	struct an2_vc_host_stats *shown;   /* in our portion (NULL in the simulation) */
	uint64_t recoveries;
	uint64_t sent, resent, naks_in, timeouts, bogus;
	uint64_t taken, damaged, out_of_order, dups, naks_out, acks_out;
	long long tx_logged_us, rx_logged_us;
	unsigned tx_unlogged, rx_unlogged;   /* recoveries since the last log line */
};

struct handed;

struct held {
	struct held *next;
	struct msg *m;
	uint32_t need;   /* AN2 messages (for a daemon one) or daemon ones (for an AN2 one) */
};

struct peer {
	struct peer *next;
	int tid;
	enum peer_state state;
	uint32_t ep_id;          /* the peer's endpoint */
	long long retry_at_ms;   /* PEER_NO_AN2: look up again after this */
	int remote_misses;       /* look-ups over the fabric that found nothing, in a row */
	int vc;                  /* local VC index, -1 if none */
	int vc_started;          /* an2_vc_open_start done, not completed */
	char addr[AN2_ADDR_LEN];
	int posted;              /* receive descriptors posted on vc */
	uint64_t rx_pdus;        /* data PDUs received on vc */
	/* sending: counted from our REQ on */
	int req_sent;
	uint32_t an2_sent, dmn_sent;
	/* receiving: counted from the peer's REQ on */
	int req_seen;
	uint32_t an2_deliv, dmn_deliv;
	int note_pending;
	uint32_t note_need;
	struct held *hd_head, *hd_tail;   /* daemon-route messages waiting for AN2 ones */
	struct held *ha_head, *ha_tail;   /* AN2 messages waiting for daemon-route ones */
	struct held *xh_head, *xh_tail;   /* PvmTaskExit notices about it, waiting for the end of
	                                   * its AN2 stream (PEER_GONE) */
	long long exit_wait_us;           /* since then, when the last of its PDUs came */
	int await_end;           /* our VC failed: its stream ends with its END (daemon route, after
	                          * the PDUs it hands over) or its exit (fp_handover.c) */
	int handed_gap;          /* a handed-over PDU was missing or bad: report it at the end */
	struct handed *handed;   /* our PDUs to hand over (fp_handover.c), and after them */
	uint32_t handed_end;     /* the END's number */
	int handover_due;
	/* reassembly */
	struct msg *partial;
	uint32_t partial_left;
	struct pdu_hdr partial_hdr;
	int error_pending;       /* a receive from this peer is to fail once (PvmSysErr) */
	struct rel_state rel;    /* sequence numbers, acknowledgements, retransmission */
};

/* One transmit descriptor in flight: the blocks it references. */
struct tx_rec {
	void *blocks[AN2_MAX_FRAGS];
	unsigned nblocks;
	int next_free;
	int vc;                  /* the VC it went on (its peer's tx_queued), -1: none */
};

struct fp_route {
	struct route route;      /* first: the core's handle is this struct (fp_of) */
	an2_ep *ep;              /* NULL: the fast path is off or unavailable (the route only
	                          * declines peers' requests and passes every message on) */
	struct route_keep *keep; /* route_set.c's, for this kind of route: where a closed route's
	                          * area lingers, and the once-per-process log lines */
	struct bufpool *pool;
	const struct frag_allocator *old_alloc;
	struct peer *peers[64];
	struct peer **vc_peer;   /* by local VC index */
	uint32_t max_vcs, rx_slots;
	int active;              /* 0 after an2d vanished or shutdown: daemon route only */
	int gone;                /* an2d vanished */
	int pending_opens;
	long long answers_polled_us;   /* when a send last looked for VCs opened meanwhile */
	int check_ctl;           /* look at the control socket on the next progress */
	int errors_pending;
	int exit_notices_held;   /* peers with PvmTaskExit notices held */
	int quiesced;
	int delivered;           /* messages fp_order.c put on the queue (progress' count) */
	int handovers_due;       /* peers whose failed VC's stream is still to be handed over */
	int said_remote;         /* logged that our an2d is on no fabric (other hosts: pvmds) */
	struct fp_route *next_lingering;   /* in keep->lingering once closed */
	/* transmit (fp_tx.c) */
	struct tx_rec *tx_recs;  /* tx_slots records, by descriptor cookie - 1 */
	uint32_t tx_slots;
	int tx_free, tx_inflight;
	/* reliable delivery (fp_reliable.c) */
	int rel_unacked_peers;   /* open VCs with PDUs not yet acknowledged */
	int resend_pending;      /* some VC has PDUs marked to resend */
	int acks_owed;           /* some VC owes the peer an acknowledgement */
	long long rel_check_at_us;   /* the retransmission timers are looked at from then on */
	/* waiting (fp_wait.c) */
	long long idle_since_us, last_daemon_us;
	int slept;   /* we slept during this wait: after a wake-up that brought no message
	              * (a report on the way), sleep again soon rather than yield 3 ms */
	int hinted;  /* we told the controller we poll (an2_yield) since the last wait_over */
};

/* The AN2 route behind the core's handle. */
static inline struct fp_route *fp_of(struct route *t)
{
	return (struct fp_route *)t;
}

/* fp_peers.c */
struct peer *fp_peer_find(struct fp_route *r, int tid);
struct peer *fp_peer_get(struct fp_route *r, int tid);   /* creates; NULL when out of memory */

/* fp_negotiate.c */
/* The peer, with a VC open or being opened, when a message to tid may use AN2; NULL for
 * the daemon route. Starts negotiation on the first message to a fast-path task. */
struct peer *fp_negotiate_for_send(struct fp_route *r, int tid);
void fp_negotiate_req(struct fp_route *r, int src, int value);   /* a peer's REQ */
void fp_negotiate_nak(struct fp_route *r, int src);              /* a peer's NAK */
int fp_poll_vc_answers(struct fp_route *r);
void fp_vc_opened(struct fp_route *r, struct peer *p, const struct an2_vc_info *vi);

/* fp_pair_fail.c: the pair stops using AN2 (a failure, or the peer gone): logs why (if
 * given), hands what the peer has not acknowledged over to the daemon route, closes the VC. */
void fp_peer_fail(struct fp_route *r, struct peer *p, const char *why);

/* fp_handover.c: a failed VC's stream finished over the daemon route */
/* The VC failed: copies the PDUs of whole messages the peer has not acknowledged; they go,
 * then END, then our request for the pvmd's notice of its exit (FP_TAG_GONE), at the next
 * flush (all peers', or only's before a message to it), where no route is being read. */
void fp_handover_capture(struct fp_route *r, struct peer *p);
void fp_handover_flush(struct fp_route *r, struct peer *only);
/* what was not sent yet is dropped: we are closing, or the peer has gone */
void fp_handover_discard(struct fp_route *r, struct peer *p);
void fp_handover_pdu(struct fp_route *r, struct msg *m);     /* FP_TAG_PDU (consumed) */
void fp_handover_end_msg(struct fp_route *r, int src, int value);   /* FP_TAG_END [value] */
int fp_handover_gone_notice(struct fp_route *r, struct msg *m);   /* FP_TAG_GONE: 1 */
/* p's stream has ended: at its END (end: the number after its last PDU) or exit (NULL) */
void fp_handover_end(struct fp_route *r, struct peer *p, const uint32_t *end);

/* fp_order.c */
/* A complete message arrived over AN2 from p (hdr: its first PDU's header). */
void fp_order_an2_arrival(struct fp_route *r, struct peer *p, struct msg *m,
                          const struct pdu_hdr *hdr);
/* Delivers everything that may go now; force: everything (the pair failed). */
void fp_order_release(struct fp_route *r, struct peer *p, int force);
/* Exit notices held while the peer's stream stood still for 10 s go (logged). */
void fp_order_exit_notices_check(struct fp_route *r);
int fp_order_delivered(struct fp_route *r);   /* messages put on the queue since the last call */

void fp_order_note(struct fp_route *r, int src, int need);   /* a peer's NOTE */
/* A PvmTaskExit notice about exited, whose VC is open: held until its AN2 stream has ended. */
void fp_order_hold_exit_notice(struct fp_route *r, struct peer *exited, struct msg *m);
/* A daemon-route message from p after its REQ: held until what precedes it has come. */
void fp_order_daemon_arrival(struct fp_route *r, struct peer *p, struct msg *m);

/* fp_daemon_msg.c */
/* m to dst by the pvmd route itself (no other route is re-entered, no pump): 0 or < 0 */
int fp_daemon_send(struct msg *m, int dst, int tag, int ctx);
int fp_send_ctl(int tid, int tag, int value);   /* [value] in FP_CTX, so */

/* fp_send.c: route_ops send, carries */
int fp_route_send(struct route *t, struct msg *m);
int fp_route_carries(struct route *t, int tid);
/* fp_filter.c: route_ops filter */
int fp_route_filter(struct route *t, struct msg *m);
/* fp_peer_gone.c: route_ops peer_failed */
int fp_route_peer_failed(struct route *t, int tid);
/* fp_progress.c: route_ops progress and pollfds */
int fp_route_progress(struct route *t);
int fp_route_pollfds(struct route *t, struct pollfd *fds, int max);

/* fp_tx.c */
int fp_tx_init(struct fp_route *r, uint32_t slots);   /* 0, or -1 out of memory */
/* 0, 1 = use the daemon route, < 0 */
int fp_send_msg(struct fp_route *r, struct peer *p, struct msg *m);
void fp_tx_complete(struct fp_route *r, uint64_t cookie);   /* a TX report: blocks come back */
/* Closing: what is still queued is an2d's to send, its blocks no longer ours to wait for. */
void fp_tx_hand_over(struct fp_route *r);

/* Posts one PDU without waiting (and counts it on its VC): 0, -EAGAIN (no transmit room now),
 * or another negative errno (the pair has failed). The blocks are referenced until its report. */
int fp_tx_post(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
               void *const *blocks, unsigned nblocks);

/* fp_reliable.c: sequence numbers, acknowledgements and selective retransmission per VC */
int fp_rel_open(struct fp_route *r, struct peer *p);      /* VC opened: 0, -1 out of memory */
void fp_rel_show(struct peer *p);   /* an2stat's copy of the counters, updated */
void fp_rel_close(struct fp_route *r, struct peer *p);    /* VC ends: unacked PDUs let go,
                                                           * counters logged */
int fp_rel_window_full(const struct peer *p);
/* The header fields of the next new DATA PDU (taking any acknowledgement owed with it). */
void fp_rel_stamp(struct fp_route *r, struct peer *p, struct pdu_hdr *net_hdr);
/* A new DATA PDU went out (posted): kept until acknowledged. */
void fp_rel_sent(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
                 void *const *blocks, unsigned nblocks);
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
/* Resends, timers; flush_acks: also every acknowledgement owed (we are about to wait). */
void fp_rel_service(struct fp_route *r, int flush_acks);
int fp_rel_poll_ms(struct fp_route *r);   /* -1, or how soon a timer needs a look */
/* Leaving: PDUs still unacknowledged on VCs that needed recovery (worth waiting for); with
 * final set, every open VC sends an ACK (what we took, and how many PDUs we sent). */
int fp_rel_leaving(struct fp_route *r, int final);

/* fp_rx.c */
int fp_post_rx(struct fp_route *r, struct peer *p);
void fp_rx_report(struct fp_route *r, struct peer *p, const struct an2_report *rep);
void fp_hdr_to_host(struct pdu_hdr *h);
/* A DATA PDU taken in order joins its message (f: its data or NULL; taken): NULL or why not */
const char *fp_rx_assemble(struct fp_route *r, struct peer *p, const struct pdu_hdr *h,
                           struct frag *f);
struct frag *fp_rx_copy_frag(struct fp_route *r, const char *data, uint32_t n);   /* or NULL */

/* fp_wait.c: route_ops others_due, poll_ms_max, idle, woke, busy, wait_over */
int fp_wait_others_due(struct route *t, int ready);
int fp_wait_poll_ms_max(struct route *t);
int fp_wait_idle(struct route *t, long long deadline_us, int *look);
void fp_wait_woke(struct route *t);
void fp_wait_busy(struct route *t);
void fp_wait_over(struct route *t);

#endif
