/* an2.h — the raw AN2 endpoint API: open the device, open VCs to peer endpoints, post
 * receive buffers, send AAL5 PDUs and read reports straight from shared memory. */
#ifndef AN2_H
#define AN2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An endpoint is a task's handle on the emulated OTTO controller held by an2d: a portion of
 * descriptor memory and a buffer area, both mapped only into this task. Data moves between
 * buffer areas; every buffer is named by its offset in the area, never by its address.
 *
 * Every function returns 0 (or a count) on success and a negative errno on failure;
 * an2_strerror() explains the value. An endpoint is not thread-safe: one thread at a time.
 * A child forked while endpoints are open lets go of them at once (their descriptors are
 * closed in the child, so it cannot keep them alive in an2d); it may only an2_close them.
 *
 * Control socket (where an2d listens): $AN2_SOCKET if set, else
 *   ${AN2_SYSTEM_DIR:-/run/an2d}/an2d.sock         the system an2d (serving every uid), if
 *                                                  its socket is there and PVM_VMID is unset
 *   ${PVM_TMP:-/tmp}/an2d.<uid>/an2d.sock          without PVM_VMID
 *   ${PVM_TMP:-/tmp}/an2d.<uid>.<vmid>/an2d.sock   with PVM_VMID=<vmid>
 * The socket's directory must not be another user's (nor writable by others unless sticky),
 * and the server must run as our uid or as root: otherwise an2_open fails with -EPERM and
 * says why (an2_error_detail) before sending a byte. The system an2d's directory must be
 * root's and writable by nobody else, and its server must run as root. On a system an2d a
 * VC joins endpoints of one uid only (-EACCES otherwise, unless root allowed the pair), names
 * are per uid, and each uid has limits on endpoints, VC ends and memory (-EDQUOT).
 * an2_open() never starts the system an2d; it starts a per-user
 * an2d (daemonised) if none answers there, unless AN2_NO_AUTOSTART is set
 * or params->no_autostart; the an2d program is $AN2D_PATH, else the one this library was
 * built with. It stops after $AN2D_IDLE_EXIT seconds (default 60) without a client.
 */

typedef struct an2_ep an2_ep;

/* Resources asked for at open; a zero field takes an2d's default. an2d refuses requests
 * beyond its per-task limits with -E2BIG (an2_error_detail() says which limit). */
struct an2_open_params {
    uint64_t buf_size;    /* bytes of buffer area */
    uint32_t max_vcs;     /* VCs this endpoint may hold at once */
    uint32_t tx_slots;    /* transmit ring slots (power of two) */
    uint32_t rx_slots;    /* receive ring slots per VC (power of two) */
    int      no_autostart;/* 1: fail with -ECONNREFUSED/-ENOENT rather than start an2d */
};

#define AN2_MAX_PDU    65535u /* AAL5 payload limit */
#define AN2_MAX_FRAGS  8u     /* fragments per send or receive descriptor */
#define AN2_ADDR_LEN   32     /* room for "itf.vpi.vci" */

int  an2_open(const struct an2_open_params *params, an2_ep **out);
void an2_close(an2_ep *ep);     /* also closes every VC, as an2_vc_close */

uint32_t an2_endpoint_id(const an2_ep *ep);  /* unique among an2d's endpoints; never 0 */
void    *an2_buf_base(const an2_ep *ep);     /* the buffer area ... */
size_t   an2_buf_size(const an2_ep *ep);     /* ... and its size */

/* Counters a protocol layer above keeps per VC, in the endpoint's portion, for an2stat to show
 * (the driver only reads them). Update with relaxed atomic stores (__atomic_store_n). */
struct an2_vc_host_stats {
    uint64_t resent;        /* PDUs sent again */
    uint64_t dups_dropped;  /* duplicates received and dropped */
    uint64_t recoveries;    /* losses repaired */
};
/* vc's counters, or NULL for a VC index out of range. */
struct an2_vc_host_stats *an2_vc_host_stats(an2_ep *ep, uint16_t vc);
uint32_t an2_max_vcs(const an2_ep *ep);
uint32_t an2_tx_slots(const an2_ep *ep);
uint32_t an2_rx_slots(const an2_ep *ep);
int      an2_ctl_fd(const an2_ep *ep);       /* readable when a VC-open answer is waiting */

/* A VC as the driver set it up: the local index used in every call and report, and the
 * VC's address on this host's link, as text "itf.vpi.vci" (linux-atm notation). */
struct an2_vc_info {
    uint32_t peer_id;     /* the other endpoint */
    uint16_t vc;          /* local VC index */
    uint16_t itf, vpi, vci;
    char     addr[AN2_ADDR_LEN];
};

/* VCs open only when both ends agree: A asks for a VC to B's id and B for one to A's id.
 * Blocking form: waits up to timeout_ms (-1: forever) for the other side; -ETIMEDOUT
 * withdraws the request. -ESRCH: no such peer, or it closed before agreeing. */
int an2_vc_open(an2_ep *ep, uint32_t peer_id, int timeout_ms, struct an2_vc_info *out);
/* Non-blocking form: start sends the request (0, or -errno if an2d cannot be reached);
 * complete returns 1 and fills *out when any started open has finished (out->peer_id says
 * which), a negative errno for one that failed (-ESRCH, -ENOSPC, -EALREADY when already
 * asking that peer; out->peer_id set), 0 if none has finished yet. Nothing blocks. */
int an2_vc_open_start(an2_ep *ep, uint32_t peer_id);
int an2_vc_open_complete(an2_ep *ep, struct an2_vc_info *out);
/* Withdraws a started open: 0 if withdrawn, 1 if it had already completed (its completion
 * is then returned by an2_vc_open_complete), -ENOENT if none was started. */
int an2_vc_open_cancel(an2_ep *ep, uint32_t peer_id);
/* Closes a local VC; its posted buffers come back as ABORTED reports. PDUs already reported
 * sent still reach the peer (the switch keeps the route until its buffered cells are
 * delivered); then the peer gets AN2_STATUS_PEER_GONE. */
int an2_vc_close(an2_ep *ep, uint16_t vc);
int an2_vc_info(const an2_ep *ep, uint16_t vc, struct an2_vc_info *out);

/* A run of the buffer area. */
struct an2_frag {
    uint32_t offset;
    uint32_t length;
};

/* Posts one receive descriptor (empty buffers) on a VC; cookie comes back in its report.
 * -EAGAIN: the VC's receive ring is full. */
int an2_post_recv(an2_ep *ep, uint16_t vc, const struct an2_frag *frags, unsigned nfrags,
                  uint64_t cookie);
/* Sends one AAL5 PDU, the concatenation of the fragments (total <= AN2_MAX_PDU), with
 * CPCS-UU uu. -EAGAIN: the transmit ring is full (read reports and retry). The buffers
 * belong to the controller until the TX report with this cookie. */
int an2_send(an2_ep *ep, uint16_t vc, const struct an2_frag *frags, unsigned nfrags,
             uint8_t uu, uint64_t cookie);
/* The number of transmit descriptors that can be queued now. */
unsigned an2_tx_space(const an2_ep *ep);

enum an2_report_kind { AN2_REPORT_TX = 1, AN2_REPORT_RX = 2, AN2_REPORT_VC = 3 };
enum an2_status {
    AN2_STATUS_OK = 0, AN2_STATUS_CRC_ERROR = 1, AN2_STATUS_LENGTH_ERROR = 2,
    AN2_STATUS_ABORTED = 3, AN2_STATUS_PROTECTION = 4, AN2_STATUS_PEER_GONE = 5,
};
struct an2_report {
    uint64_t cookie;  /* the descriptor's cookie (0 for VC events) */
    uint32_t length;  /* payload bytes sent or received */
    uint16_t vc;
    uint8_t  kind;    /* enum an2_report_kind */
    uint8_t  status;  /* enum an2_status */
    uint8_t  uu;      /* received CPCS-UU */
};

/* Copies up to max waiting reports; returns how many (0: none). Never makes a system call. */
int an2_poll(an2_ep *ep, struct an2_report *out, int max);
/* Like an2_poll, but waits up to timeout_ms (-1: forever) for at least one report:
 * spins, then yields, then sleeps until the controller's interrupt. 0 on timeout;
 * -ECONNRESET if an2d has gone (noticed within 100 ms while asleep). */
int an2_wait(an2_ep *ep, struct an2_report *out, int max, int timeout_ms);

/* Waiting by polling, for a caller with its own loop: an2_yield gives the CPU up once, having
 * told the controller the CPU we poll on, for how much longer (50 us), and whether only
 * received packets and VC events end our wait (rx_only) or any report (otto_hw.h's polling
 * hint): an emulated controller sharing our CPU then keeps it while it has nothing for us,
 * rather than take turns with us. an2_yield_end withdraws the hint when the wait is over.
 * No system call but the yield; when the controller's pulse shows that our yields do not
 * reach it (it waits for our CPU, in another scheduling group), a 20 us sleep instead. */
void an2_yield(an2_ep *ep, bool rx_only);
void an2_yield_end(an2_ep *ep);
/* Whether the controller is awake and its pulse names the CPU we run on: it then runs only
 * when we give that CPU up (or the scheduler moves it), and a task about to compute should
 * hand it the CPU first, or what it just posted waits for the scheduler's tick. A hint (the
 * pulse is up to 10 us old); no system call. */
bool an2_controller_waits_here(const an2_ep *ep);
/* Whether cells the controller took from us or others still wait in it (otto_hw.h's holding
 * hint): a descriptor reported sent has left the ring, not the host. */
bool an2_controller_holds_cells(const an2_ep *ep);

/* Sleeping together with other descriptors (e.g. a PVM task's pvmd socket):
 *   if (an2_sleep_prepare(ep) == 0)          asks for the interrupt, looks once more
 *       poll({an2_irq_fd(ep), POLLIN} + others, ...);
 *   an2_sleep_finish(ep);                    stops asking, drains an2_irq_fd
 * an2_sleep_prepare returns how many reports wait (then do not sleep). A wake-up may be
 * spurious (an interrupt meant for an earlier sleep): poll the reports, and if there are
 * none, prepare and sleep again. */
int  an2_sleep_prepare(an2_ep *ep);
void an2_sleep_finish(an2_ep *ep);
int  an2_irq_fd(const an2_ep *ep);           /* readable after an interrupt */

/* The registry: names this endpoint (a PVM task uses its tid) so that other tasks find it:
 * -EADDRINUSE if another endpoint holds the name. The name dies with the endpoint, or when
 * it registers name 0 (an endpoint kept open after its task left PVM gives its tid up).
 * Lookup fills *endpoint_id for a name, -ESRCH if no open endpoint holds it. Both ask an2d
 * (a round trip on the control socket; VC-open answers met meanwhile are kept). */
int an2_register_name(an2_ep *ep, uint32_t name);
int an2_lookup_name(an2_ep *ep, uint32_t name, uint32_t *endpoint_id);

/* "itf.vpi.vci" <-> numbers, with linux-atm's text2atm/atm2text. */
int an2_addr_format(char *buf, size_t len, uint16_t itf, uint16_t vpi, uint16_t vci);
int an2_addr_parse(const char *text, uint16_t *itf, uint16_t *vpi, uint16_t *vci);
/* A fabric host's address (switch << 8 | port) as an ATM end-system address (NSAP), in
 * linux-atm's notation (atm2text): 0, or -EINVAL if it does not fit in len. */
int an2_host_nsap_format(char *buf, size_t len, uint32_t host_addr);

/* The per-user control socket path (rule above: $AN2_SOCKET, else under PVM_TMP) into buf;
 * -ENAMETOOLONG if it does not fit. */
int an2_socket_path(char *buf, size_t len);

const char *an2_strerror(int err);          /* err: a negative errno from this API */
const char *an2_status_str(unsigned status);/* enum an2_status */
const char *an2_error_detail(void);         /* an2d's explanation of this thread's last refusal */

#ifdef __cplusplus
}
#endif
#endif
