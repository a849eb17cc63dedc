/* fp_state.h — the AN2 route's state: the route, its peers and their VCs; shared sizes. */
/* Data only: each part of the route (fp_route.c and the files it calls) declares its functions
 * in its own header. The wire format is fp_wire.h. See README.md, "The AN2 fast path". */
#ifndef AN2PVM_FP_STATE_H
#define AN2PVM_FP_STATE_H

#include <an2.h>
#include <stdint.h>

#include "fp_bufpool.h"
#include "fp_wire.h"
#include "route.h"

/* Data bytes per PDU: a receive buffer is one pool block with the header in its headroom. */
#define PDU_MAX_DATA (POOL_MAX_BLOCK - FRAG_HEADROOM)
#define RX_BUF_LEN (PDU_MAX_DATA + PDU_HDR_LEN)
/* Received PDUs up to this size are copied out so that their buffer is reposted at once. */
#define RX_COPY_MAX 2048u
#define RX_POST_MAX 16u              /* receive descriptors kept posted per VC, at most; */
#define RX_POST_FIRST 2u             /* at first (fp_rx.c: more once the VC runs dry) */
#define POOL_RESERVE (4u << 20)      /* area bytes packing leaves for receive buffers */
#define DAEMON_CHECK_US 200          /* waiting: look at the pvmd socket (poll) this often */

enum peer_state {
	PEER_UNKNOWN,    /* not looked up yet (or look again after retry_at) */
	PEER_NO_AN2,     /* not a fast-path task: daemon route only, never an AN2 message */
	PEER_PENDING,    /* VC being opened */
	PEER_OPEN,
	PEER_DEAD,       /* failed or gone: daemon route from now on */
};

/* Reliable delivery over one VC (fp_reliable.h): selective repeat with cumulative
 * acknowledgements, go-back-N after a timeout. */
#define REL_WINDOW 256u          /* PDUs sent and not yet acknowledged, per VC (a power of
                                  * two), so that small messages stream on between ACKs, */
#define REL_WINDOW_BYTES (4u << 20)   /* and their bytes (64 full PDUs: four times the receive
                                  * buffers posted, and as much as a sender may queue for a
                                  * peer not reading); go-back-N resends at most this much, and
                                  * a receiver keeps at most this much out of order */
#define REL_RTO_MIN_US 50000LL       /* retransmission timeout after progress (three parties
                                      * share two cores: less fires spuriously); doubles */
#define REL_RTO_MAX_US 1000000LL     /* up to this */
#define REL_LOG_US 1000000LL         /* one recovery log line per VC direction this often */

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

struct handed;   /* fp_handover_tx.c */
struct msg;

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
	int posted;              /* receive descriptors posted on vc, */
	uint32_t post_want;      /* kept posted (0: RX_POST_FIRST), doubled when a batch of
	                          * reports brings that many PDUs on vc: it ran dry */
	uint32_t batch_seen, batch_pdus;   /* the report batch last seen on vc, its PDUs */
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
	                          * the PDUs it hands over) or its exit (fp_handover_rx.c) */
	int handed_gap;          /* a handed-over PDU was missing or bad: report it at the end */
	struct handed *handed;   /* our PDUs to hand over (fp_handover_tx.c), and after them */
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
	uint32_t report_batch;   /* report batches read (fp_progress.c), for peer.batch_seen */
	int handovers_due;       /* peers whose failed VC's stream is still to be handed over */
	int said_remote;         /* logged that our an2d is on no fabric (other hosts: pvmds) */
	struct fp_route *next_lingering;   /* in keep->lingering once closed */
	/* transmit descriptors (fp_tx_desc.c) */
	struct tx_rec *tx_recs;  /* tx_slots records, by descriptor cookie - 1 */
	uint32_t tx_slots;
	int tx_free, tx_inflight;
	/* reliable delivery (fp_reliable.h) */
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

#endif
