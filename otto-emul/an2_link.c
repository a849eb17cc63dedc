/* an2_link.c — one end of an AN2 link over a carrier (an2_carrier.h): records in and out,
 * per-VC credits, keepalive, the signalling channel; the switch's device on the link's port. */
#include "an2_link.h"

#include <arpa/inet.h>
#include <endian.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aal5_cell.h"
#include "aal5_crc32.h"
#include "aal5_pdu.h"
#include "fault_inject.h"
#include "an2_capture.h"
#include "an2_carrier.h"
#include "an2_switch.h"
#include "an2_switch_port.h"
#include "vc_map.h"

#define OUT_CAP        (512u * 1024u)  /* queued output bytes */
#define OUT_RESERVE    (16u * 1024u)   /* of which data cells may not use the last */
#define IN_CAP         (256u * 1024u + AN2_FIBER_HDR + AN2_FIBER_MAX_BODY)
#define READS_PER_CALL 4               /* bounded work per service call */
#define SIG_QUEUE      512u            /* signalling messages waiting for the output */
#define HELLO_WAIT_NS  5000000000ull   /* no HELLO within this: the link is down */

struct link_vc {
    uint16_t vci, gen;
    uint32_t tx_sent, tx_limit;        /* Vs, and the other end's last limit */
    uint32_t rx_count, rx_limit_sent;  /* cells received, and the last limit we sent */
    uint32_t index;                    /* in link->vcs */
    uint8_t *cap;                      /* capture: the PDU being received so far */
    uint32_t cap_len;
};

struct an2_link {
    struct an2_link_config cfg;
    struct an2_link_info info;
    bool hello_seen, down;
    char why[96];
    uint16_t vci_half;
    uint32_t peer_keepalive_ms;
    uint16_t vci_cursor, gen_next;
    struct vc_map by_vci;
    struct link_vc **vcs;
    uint32_t nvcs, cap_vcs;
    uint8_t *out;                      /* output bytes [out_start, out_start + out_len); NULL:
                                        * built in the carrier's window (in_window) */
    size_t out_start, out_len;
    size_t out_wanted;                 /* in_window: room a refused reservation needed */
    size_t open_cells;                 /* offset of a CELLS record still open, or SIZE_MAX */
    uint8_t *in;
    size_t in_len;
    struct an2_sig_msg sigq[SIG_QUEUE];
    uint32_t sig_head, sig_count;
    uint64_t created_ns, last_rx_ns, last_keepalive_ns, last_write_ns;
    uint64_t echo_ns;                  /* the other end's last keepalive stamp */
    uint64_t echo_rx_ns;               /* when it came */
    bool credit_refresh;               /* repeat every VC's credit at the next poll */
};

static void link_down(struct an2_link *l, const char *why)
{
    if (l->down)
        return;
    l->down = true;
    l->info.up = false;
    snprintf(l->why, sizeof l->why, "%s", why);
    if (l->cfg.on_down)
        l->cfg.on_down(l->cfg.ctx, l, l->why);
}

/* ---- output ---- */

static bool in_window(const struct an2_link *l) { return !l->out; }

/* Where the output is built, and how many bytes it may hold: the carrier's window when it has
 * one (the records are then written where the carrier sends them from, and a flush only
 * commits them), else our buffer. The window stays where it is until the flush. */
static uint8_t *out_base(const struct an2_link *l, size_t *cap)
{
    if (!in_window(l)) {
        *cap = OUT_CAP;
        return l->out;
    }
    uint8_t *w = an2_carrier_window(l->cfg.carrier, cap);
    if (*cap > OUT_CAP)
        *cap = OUT_CAP;
    if (*cap < l->out_len)
        *cap = l->out_len; /* the carrier failed: no more room, the flush says why */
    return w;
}

/* A reservation of n bytes found no room: in the window, room is what a sleeper waits for. */
static void out_refused(struct an2_link *l, size_t n)
{
    if (in_window(l) && n > l->out_wanted)
        l->out_wanted = n;
}

/* Room for n more bytes at the end of the output at base, cap bytes long (out_base),
 * compacting if that makes room. */
static uint8_t *out_reserve_at(struct an2_link *l, uint8_t *base, size_t cap, size_t n)
{
    if (cap - l->out_start - l->out_len < n && l->out_start) {
        memmove(l->out, l->out + l->out_start, l->out_len);
        if (l->open_cells != SIZE_MAX)
            l->open_cells -= l->out_start;
        l->out_start = 0;
    }
    if (cap - l->out_start - l->out_len < n) {
        out_refused(l, l->out_len + n);
        return NULL;
    }
    return base + l->out_start + l->out_len;
}

static uint8_t *out_reserve(struct an2_link *l, size_t n)
{
    size_t cap;
    uint8_t *base = out_base(l, &cap);
    return out_reserve_at(l, base, cap, n);
}

static bool out_record(struct an2_link *l, uint8_t type, const void *body, uint16_t len)
{
    uint8_t *p = out_reserve(l, AN2_FIBER_HDR + len);
    if (!p)
        return false;
    p[0] = type;
    p[1] = 0;
    uint16_t nlen = htons(len);
    memcpy(p + 2, &nlen, 2);
    memcpy(p + AN2_FIBER_HDR, body, len);
    l->out_len += AN2_FIBER_HDR + len;
    l->open_cells = SIZE_MAX;
    return true;
}

/* Slots for up to want cells (at least one) at the end of the output, contiguous, in an open
 * CELLS record if there is one; *got says how many. keep: output bytes to leave free (for the
 * records that are not data). */
static uint8_t *out_cells(struct an2_link *l, size_t keep, uint32_t want, uint32_t *got)
{
    size_t cap;
    uint8_t *base = out_base(l, &cap);
    size_t limit = cap > keep ? cap - keep : 0;
    size_t hdr = l->open_cells != SIZE_MAX ? 0 : AN2_FIBER_HDR;
    if (l->out_len + hdr + AAL5_CELL_BYTES > limit) {
        out_refused(l, l->out_len + hdr + AAL5_CELL_BYTES + keep);
        return NULL;
    }
    uint32_t in_record = 0;
    if (l->open_cells != SIZE_MAX) {
        const uint8_t *rec = base + l->open_cells;
        in_record = (uint32_t)(rec[2] << 8 | rec[3]) / AAL5_CELL_BYTES;
    }
    size_t fit = (limit - l->out_len - hdr) / AAL5_CELL_BYTES;
    uint32_t n = AN2_FIBER_MAX_CELLS - in_record;
    if (want < n)
        n = want;
    if (fit < n)
        n = (uint32_t)fit;
    uint8_t *p = out_reserve_at(l, base, cap, hdr + (size_t)n * AAL5_CELL_BYTES);
    if (!p)
        return NULL;
    if (l->open_cells == SIZE_MAX) {
        l->open_cells = l->out_start + l->out_len;
        p[0] = AN2_FIBER_CELLS;
        p[1] = 0;
        p[2] = p[3] = 0;
        p += AN2_FIBER_HDR;
        l->out_len += AN2_FIBER_HDR;
    }
    uint8_t *rec = base + l->open_cells;
    uint32_t cells = in_record + n;
    rec[2] = (uint8_t)(cells * AAL5_CELL_BYTES >> 8);
    rec[3] = (uint8_t)(cells * AAL5_CELL_BYTES);
    l->out_len += (size_t)n * AAL5_CELL_BYTES;
    if (cells == AN2_FIBER_MAX_CELLS)
        l->open_cells = SIZE_MAX;
    *got = n;
    return p;
}

/* A slot for one cell (out_cells). */
static uint8_t *out_cell(struct an2_link *l, size_t keep)
{
    uint32_t got;
    return out_cells(l, keep, 1, &got);
}

/* The output built in the carrier's window goes, all of it: the window had room for it. */
static bool commit(struct an2_link *l, uint64_t now)
{
    if (!l->out_len || l->down)
        return false;
    if (an2_carrier_commit(l->cfg.carrier, l->out_len) != 0) {
        link_down(l, errno == EPIPE || errno == ECONNRESET ? "connection reset" : strerror(errno));
        return false;
    }
    l->last_write_ns = now;
    l->out_len = 0;
    l->open_cells = SIZE_MAX;
    return true;
}

static bool flush(struct an2_link *l, uint64_t now)
{
    if (in_window(l))
        return commit(l, now);
    bool moved = false;
    while (l->out_len && !l->down) {
        ssize_t n = an2_carrier_write(l->cfg.carrier, l->out + l->out_start, l->out_len);
        if (n < 0) {
            if (errno != EAGAIN)
                link_down(l, errno == EPIPE || errno == ECONNRESET ? "connection reset"
                                                                     : strerror(errno));
            break;
        }
        moved = true;
        l->last_write_ns = now;
        l->out_start += (size_t)n;
        l->out_len -= (size_t)n;
        l->open_cells = SIZE_MAX; /* never append to a record partly sent */
    }
    if (!l->out_len)
        l->out_start = 0;
    return moved;
}

/* ---- signalling cells ---- */

void an2_sig_cell_encode(const struct an2_sig_msg *msg, uint8_t cell[53])
{
    struct an2_sig_msg m = *msg;
    m.vci = htons(m.vci);
    m.gen = htons(m.gen);
    m.calling_host = htonl(m.calling_host);
    m.called_host = htonl(m.called_host);
    m.calling_ep = htonl(m.calling_ep);
    m.called_ep = htonl(m.called_ep);
    m.name = htonl(m.name);
    m.call_ref = htonl(m.call_ref);
    m.calling_uid = htonl(m.calling_uid);
    m.pad = 0;
    aal5_segment(&m, sizeof m, 0, 0, 0, AN2_FIBER_SIG_VCI, cell, 1);
}

int an2_sig_cell_decode(const uint8_t cell[53], struct an2_sig_msg *msg)
{
    struct aal5_cell_header h;
    if (aal5_cell_header_decode(cell, &h) || h.vpi != 0 || h.vci != AN2_FIBER_SIG_VCI ||
        !aal5_pti_is_eop(h.pti))
        return -EBADMSG;
    const uint8_t *payload = cell + AAL5_HEADER_BYTES;
    if (aal5_crc32_update(AAL5_CRC32_INIT, payload, AAL5_CELL_PAYLOAD) != AAL5_CRC32_RESIDUE)
        return -EBADMSG;
    uint16_t len = (uint16_t)(payload[AAL5_CELL_PAYLOAD - 6] << 8 | payload[AAL5_CELL_PAYLOAD - 5]);
    if (len != sizeof *msg)
        return -EBADMSG;
    memcpy(msg, payload, sizeof *msg);
    msg->vci = ntohs(msg->vci);
    msg->gen = ntohs(msg->gen);
    msg->calling_host = ntohl(msg->calling_host);
    msg->called_host = ntohl(msg->called_host);
    msg->calling_ep = ntohl(msg->calling_ep);
    msg->called_ep = ntohl(msg->called_ep);
    msg->name = ntohl(msg->name);
    msg->call_ref = ntohl(msg->call_ref);
    msg->calling_uid = ntohl(msg->calling_uid);
    return 0;
}

bool an2_link_send_sig(struct an2_link *l, const struct an2_sig_msg *msg)
{
    if (l->down || l->sig_count == SIG_QUEUE)
        return false;
    l->sigq[(l->sig_head + l->sig_count++) % SIG_QUEUE] = *msg;
    return true;
}

static void sig_out(struct an2_link *l)
{
    while (l->sig_count && l->hello_seen) {
        uint8_t *cell = out_cell(l, 0);
        if (!cell)
            return;
        an2_sig_cell_encode(&l->sigq[l->sig_head], cell);
        l->sig_head = (l->sig_head + 1) % SIG_QUEUE;
        l->sig_count--;
        l->info.sig_out++;
    }
}

/* ---- VCs ---- */

static struct link_vc *vc_find(const struct an2_link *l, uint16_t vci)
{
    return vc_map_get(&l->by_vci, vci);
}

int an2_link_vc_add(struct an2_link *l, uint16_t vci, uint16_t gen)
{
    if (vc_find(l, vci))
        return -EEXIST;
    if (l->nvcs == l->cap_vcs) {
        uint32_t cap = l->cap_vcs ? l->cap_vcs * 2 : 16;
        struct link_vc **a = realloc(l->vcs, cap * sizeof *a);
        if (!a)
            return -ENOMEM;
        l->vcs = a;
        l->cap_vcs = cap;
    }
    struct link_vc *v = calloc(1, sizeof *v);
    if (!v)
        return -ENOMEM;
    *v = (struct link_vc){.vci = vci, .gen = gen, .index = l->nvcs};
    int rc = vc_map_put(&l->by_vci, vci, v);
    if (rc) {
        free(v);
        return rc;
    }
    l->vcs[l->nvcs++] = v;
    l->info.vcs = l->nvcs;
    return 0;
}

void an2_link_vc_del(struct an2_link *l, uint16_t vci)
{
    struct link_vc *v = vc_map_del(&l->by_vci, vci);
    if (!v)
        return;
    struct link_vc *last = l->vcs[--l->nvcs];
    l->vcs[v->index] = last;
    last->index = v->index;
    l->info.vcs = l->nvcs;
    free(v->cap);
    free(v);
}

uint16_t an2_link_vci_alloc(struct an2_link *l, uint16_t *gen)
{
    uint32_t lo = l->vci_half ? AN2_FIBER_HALF_VCI : AN2_FIBER_FIRST_VCI;
    uint32_t hi = l->vci_half ? 65536u : AN2_FIBER_HALF_VCI;
    uint32_t span = hi - lo;
    for (uint32_t i = 0; i < span; i++) {
        uint32_t vci = lo + (l->vci_cursor + i) % span;
        if (!vc_find(l, (uint16_t)vci)) {
            l->vci_cursor = (uint16_t)((vci - lo + 1) % span);
            *gen = ++l->gen_next;
            return (uint16_t)vci;
        }
    }
    return 0;
}

/* Credit updates for the VCs whose limit has grown enough (a quarter window), or at all
 * while the sender is down to half a window; with every keepalive, for every VC (so an
 * update the other end could not use, e.g. one that came before its VC, is repeated). */
static bool credits_out(struct an2_link *l, uint64_t now)
{
    if (!l->hello_seen || !l->nvcs)
        return false;
    (void)now;
    struct an2_fiber_credit batch[AN2_FIBER_MAX_CREDITS];
    unsigned n = 0;
    bool sent = false;
    uint32_t window = l->info.window;
    uint32_t quarter = window / 4 ? window / 4 : 1;
    for (uint32_t i = 0; i < l->nvcs; i++) {
        struct link_vc *v = l->vcs[i];
        uint32_t limit = v->rx_count + an2_switch_tx_credit(l->cfg.sw, l->cfg.port, 0, v->vci);
        /* a limit once sent stands: the other end ignores a smaller one and may have cells
         * on the way against it (our switch's credit falls to 0 when the route goes) */
        if ((int32_t)(limit - v->rx_limit_sent) < 0)
            limit = v->rx_limit_sent;
        uint32_t grown = limit - v->rx_limit_sent;
        uint32_t left = v->rx_limit_sent - v->rx_count;   /* credit the sender still has */
        if (!l->credit_refresh && (!grown || (grown < quarter && left >= window / 2)))
            continue;
        batch[n++] = (struct an2_fiber_credit){.vci = htons(v->vci), .gen = htons(v->gen),
                                               .limit = htonl(limit)};
        v->rx_limit_sent = limit;
        if (n == AN2_FIBER_MAX_CREDITS) {
            if (!out_record(l, AN2_FIBER_CREDIT, batch, (uint16_t)(n * sizeof *batch)))
                break;
            l->info.credits_out += n;
            n = 0;
            sent = true;
        }
    }
    if (n && out_record(l, AN2_FIBER_CREDIT, batch, (uint16_t)(n * sizeof *batch))) {
        l->info.credits_out += n;
        sent = true;
    }
    l->credit_refresh = false;
    return sent;
}

/* ---- the switch's device on our port: cells leaving the switch onto the link ---- */

static uint32_t dev_receive(void *ctx, uint16_t vpi, uint16_t vci, const struct cell_run *run,
                            uint64_t now_ns)
{
    (void)now_ns;
    struct an2_link *l = ctx;
    struct link_vc *v = vpi == 0 ? vc_find(l, vci) : NULL;
    if (l->down || !l->hello_seen || !v)
        return 0;
    uint32_t credit = v->tx_limit - v->tx_sent;
    if ((int32_t)credit <= 0)
        return 0;
    uint32_t n = run->ncells < credit ? run->ncells : credit;
    uint32_t k = 0;
    while (k < n) { /* each pass fills one record's worth at most, or stops */
        uint32_t got;
        uint8_t *cells = out_cells(l, OUT_RESERVE, n - k, &got);
        if (!cells)
            break;
        cell_run_cells(run, k, got, 0, vci, cells);
        k += got;
    }
    v->tx_sent += k;
    l->info.cells_out += k;
    return k;
}

/* ---- input ---- */

static void on_hello(struct an2_link *l, const uint8_t *body, uint16_t len, uint64_t now)
{
    struct an2_fiber_hello h;
    if (len != sizeof h || l->hello_seen) {
        link_down(l, "bad or repeated HELLO");
        return;
    }
    memcpy(&h, body, sizeof h);
    uint16_t role = ntohs(h.role);
    uint32_t window = ntohl(h.window), ka = ntohl(h.keepalive_ms);
    uint32_t peer_id = ntohl(h.switch_id);
    if (ntohl(h.magic) != AN2_FIBER_MAGIC || ntohs(h.version) != AN2_FIBER_VERSION) {
        link_down(l, "not an AN2 link, or another version");
        return;
    }
    if ((role != AN2_FIBER_ROLE_HOST && role != AN2_FIBER_ROLE_SWITCH) || !window ||
        window > (1u << 20) || ka < 10 || ka > 10000 ||
        (role == AN2_FIBER_ROLE_SWITCH && (peer_id < 1 || peer_id > 255)) ||
        (role == AN2_FIBER_ROLE_HOST && l->cfg.role == AN2_FIBER_ROLE_HOST)) {
        link_down(l, "HELLO with values out of range");
        return;
    }
    if (role == AN2_FIBER_ROLE_SWITCH && l->cfg.role == AN2_FIBER_ROLE_SWITCH) {
        if (peer_id == l->cfg.switch_id) {
            link_down(l, "the other switch has our switch id");
            return;
        }
        l->vci_half = l->cfg.switch_id < peer_id ? 0 : 1;
    } else {
        l->vci_half = l->cfg.role == AN2_FIBER_ROLE_SWITCH ? 0 : 1;
    }
    l->hello_seen = true;
    l->info.up = true;
    l->info.peer_role = role;
    l->info.peer_switch_id = peer_id;
    l->info.peer_port = ntohs(h.port);
    l->info.peer_window = window;
    l->info.host_addr = l->cfg.role == AN2_FIBER_ROLE_HOST ? ntohl(h.host_addr) : l->cfg.host_addr;
    l->peer_keepalive_ms = ka;
    l->last_keepalive_ns = 0; /* answer at once: the first round trip */
    (void)now;
}

static void on_credit(struct an2_link *l, const uint8_t *body, uint16_t len)
{
    if (!len || len % sizeof(struct an2_fiber_credit) ||
        len / sizeof(struct an2_fiber_credit) > AN2_FIBER_MAX_CREDITS) {
        link_down(l, "malformed CREDIT");
        return;
    }
    for (size_t off = 0; off < len; off += sizeof(struct an2_fiber_credit)) {
        struct an2_fiber_credit c;
        memcpy(&c, body + off, sizeof c);
        struct link_vc *v = vc_find(l, ntohs(c.vci));
        if (!v || v->gen != ntohs(c.gen))
            continue; /* a VC gone, or an earlier one on the same VCI */
        uint32_t limit = ntohl(c.limit);
        /* limits only grow (mod 2^32), and never past what the window allows */
        if ((int32_t)(limit - v->tx_limit) > 0 &&
            limit - v->tx_sent <= l->info.peer_window)
            v->tx_limit = limit;
        l->info.credits_in++;
    }
}

static void on_keepalive(struct an2_link *l, const uint8_t *body, uint16_t len, uint64_t now)
{
    struct an2_fiber_keepalive k;
    if (len != sizeof k) {
        link_down(l, "malformed KEEPALIVE");
        return;
    }
    memcpy(&k, body, sizeof k);
    uint64_t sent = be64toh(k.sent_ns), echo = be64toh(k.echo_ns), held = be64toh(k.held_ns);
    l->echo_ns = sent;
    l->echo_rx_ns = now;
    if (echo && echo <= now && held <= now - echo)
        l->info.rtt_ns = now - echo - held;
}

/* Whether two cell headers name the same VPI/VCI (GFC, PTI, CLP and HEC aside). */
static bool same_vc(const uint8_t *a, const uint8_t *b)
{
    return ((a[0] ^ b[0]) & 0x0f) == 0 && a[1] == b[1] && a[2] == b[2] &&
           ((a[3] ^ b[3]) & 0xf0) == 0;
}

/* One cell through the fault injector and into the capture; false if it is lost. */
static bool fault_and_capture(struct an2_link *l, struct link_vc *v, uint8_t *cell,
                              const struct aal5_cell_header *h, uint64_t now)
{
    uint8_t *payload = cell + AAL5_HEADER_BYTES;
    if (l->cfg.faults) {
        uint64_t flipped = l->cfg.faults->bits_flipped, lost = l->cfg.faults->cells_lost;
        bool kept = fault_inject_cell(l->cfg.faults, payload);
        l->info.bits_flipped += l->cfg.faults->bits_flipped - flipped;
        l->info.cells_lost += l->cfg.faults->cells_lost - lost;
        if (!kept)
            return false;
    }
    if (l->cfg.capture) {
        if (!v->cap)
            v->cap = malloc(AAL5_MAX_CELLS * AAL5_CELL_PAYLOAD);
        if (v->cap && v->cap_len + AAL5_CELL_PAYLOAD <= AAL5_MAX_CELLS * AAL5_CELL_PAYLOAD) {
            memcpy(v->cap + v->cap_len, payload, AAL5_CELL_PAYLOAD);
            v->cap_len += AAL5_CELL_PAYLOAD;
        } else {
            v->cap_len = 0; /* longer than any AAL5 PDU: not recorded */
        }
        if (aal5_pti_is_eop(h->pti)) {
            if (v->cap_len)
                an2_capture_pdu(l->cfg.capture, now, h->vpi, h->vci, v->cap, v->cap_len);
            v->cap_len = 0;
        }
    }
    return true;
}

/* Cells [cells, cells + n * 53) of one record. */
static void on_cells(struct an2_link *l, uint8_t *cells, uint32_t n, uint64_t now)
{
    uint32_t i = 0;
    while (i < n && !l->down) {
        uint8_t *cell = cells + (size_t)i * AAL5_CELL_BYTES;
        struct aal5_cell_header h;
        if (aal5_cell_header_decode(cell, &h)) {
            link_down(l, "a cell with a bad HEC");
            return;
        }
        if (h.vpi == 0 && h.vci == AN2_FIBER_SIG_VCI) {
            struct an2_sig_msg m;
            i++;
            if (an2_sig_cell_decode(cell, &m)) {
                link_down(l, "a malformed signalling cell");
                return;
            }
            l->info.sig_in++;
            if (l->cfg.on_sig)
                l->cfg.on_sig(l->cfg.ctx, l, &m);
            continue;
        }
        /* a run of consecutive cells of one VC, each with a good HEC (one cell at a time
         * when faults are injected or PDUs captured) */
        uint32_t j = i + 1;
        while (j < n && !l->cfg.faults && !l->cfg.capture) {
            const uint8_t *next = cells + (size_t)j * AAL5_CELL_BYTES;
            /* a header that repeats the one before it exactly has its good HEC */
            if (memcmp(next, next - AAL5_CELL_BYTES, AAL5_HEADER_BYTES) == 0) {
                j++;
                continue;
            }
            if (!same_vc(cell, next))
                break;
            if (aal5_hec(next) != next[4]) {
                link_down(l, "a cell with a bad HEC");
                return;
            }
            j++;
        }
        uint32_t run_n = j - i;
        struct link_vc *v = h.vpi == 0 ? vc_find(l, h.vci) : NULL;
        l->info.cells_in += run_n;
        if (!v) {
            l->info.dropped_unrouted += run_n;
        } else {
            uint32_t credit = an2_switch_tx_credit(l->cfg.sw, l->cfg.port, 0, h.vci);
            if (run_n > v->rx_limit_sent - v->rx_count) {
                link_down(l, "cells sent beyond their credit");
                return;
            }
            if (run_n > credit) { /* routes being changed: the VC's cells are lost */
                l->info.dropped_unrouted += run_n;
            } else if ((l->cfg.faults || l->cfg.capture) && !fault_and_capture(l, v, cell, &h, now)) {
                /* lost on the fibre: its credit comes back like a forwarded cell's */
            } else {
                struct cell_run run = {.ncells = run_n, .cells = cell};
                an2_switch_send(l->cfg.sw, l->cfg.port, 0, h.vci, &run, now);
            }
            v->rx_count += run_n;
        }
        i = j;
    }
}

long an2_fiber_record_check(const uint8_t *buf, size_t len)
{
    if (len < AN2_FIBER_HDR)
        return 0;
    uint16_t blen = (uint16_t)(buf[2] << 8 | buf[3]);
    uint8_t type = buf[0];
    if (buf[1] != 0)
        return -1;
    switch (type) {
    case AN2_FIBER_HELLO:
        if (blen != sizeof(struct an2_fiber_hello))
            return -1;
        break;
    case AN2_FIBER_CELLS:
        if (!blen || blen % AAL5_CELL_BYTES || blen > AN2_FIBER_MAX_BODY)
            return -1;
        break;
    case AN2_FIBER_CREDIT:
        if (!blen || blen % sizeof(struct an2_fiber_credit) ||
            blen > AN2_FIBER_MAX_CREDITS * sizeof(struct an2_fiber_credit))
            return -1;
        break;
    case AN2_FIBER_KEEPALIVE:
        if (blen != sizeof(struct an2_fiber_keepalive))
            return -1;
        break;
    default:
        return -1;
    }
    return len >= AN2_FIBER_HDR + (size_t)blen ? (long)(AN2_FIBER_HDR + blen) : 0;
}

static void parse(struct an2_link *l, uint64_t now)
{
    size_t off = 0;
    while (!l->down) {
        long n = an2_fiber_record_check(l->in + off, l->in_len - off);
        if (n < 0) {
            link_down(l, "a malformed record");
            return;
        }
        if (n == 0)
            break;
        const uint8_t *rec = l->in + off;
        uint16_t blen = (uint16_t)(n - AN2_FIBER_HDR);
        const uint8_t *body = rec + AN2_FIBER_HDR;
        if (rec[0] == AN2_FIBER_HELLO)
            on_hello(l, body, blen, now);
        else if (!l->hello_seen)
            link_down(l, "a record before HELLO");
        else if (rec[0] == AN2_FIBER_CELLS)
            on_cells(l, l->in + off + AN2_FIBER_HDR, blen / AAL5_CELL_BYTES, now);
        else if (rec[0] == AN2_FIBER_CREDIT)
            on_credit(l, body, blen);
        else
            on_keepalive(l, body, blen, now);
        off += (size_t)n;
    }
    memmove(l->in, l->in + off, l->in_len - off);
    l->in_len -= off;
}

static bool read_some(struct an2_link *l, uint64_t now)
{
    bool got = false;
    for (int i = 0; i < READS_PER_CALL && !l->down; i++) {
        ssize_t n = an2_carrier_read(l->cfg.carrier, l->in + l->in_len, IN_CAP - l->in_len);
        if (n == 0) {
            link_down(l, "closed by the other end");
            break;
        }
        if (n < 0) {
            if (errno != EAGAIN)
                link_down(l, errno == ECONNRESET ? "connection reset" : strerror(errno));
            break;
        }
        got = true;
        l->last_rx_ns = now;
        l->in_len += (size_t)n;
        parse(l, now);
        if ((size_t)n < IN_CAP / 2)
            break;
    }
    return got;
}

static void send_hello(struct an2_link *l)
{
    struct an2_fiber_hello h = {
        .magic = htonl(AN2_FIBER_MAGIC), .version = htons(AN2_FIBER_VERSION),
        .role = htons(l->cfg.role), .switch_id = htonl(l->cfg.switch_id),
        .host_addr = htonl(l->cfg.host_addr), .window = htonl(l->cfg.window),
        .keepalive_ms = htonl(l->cfg.keepalive_ms),
        .vci_half = htons(l->cfg.role == AN2_FIBER_ROLE_SWITCH ? 0 : 1),
        .port = htons((uint16_t)l->cfg.port)};
    out_record(l, AN2_FIBER_HELLO, &h, sizeof h);
}

/* Time from then to now; none when then is later. A caller may pass a clock read before one
 * that stamped the link (an event handled meanwhile), and a wrapped difference would make a
 * link that just spoke look silent for centuries. */
static uint64_t since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

static void keepalive(struct an2_link *l, uint64_t now)
{
    uint64_t period = (uint64_t)l->cfg.keepalive_ms * 1000000u;
    if (l->hello_seen && since(now, l->last_keepalive_ns) >= period) {
        struct an2_fiber_keepalive k = {.sent_ns = htobe64(now), .echo_ns = htobe64(l->echo_ns),
                                        .held_ns = htobe64(l->echo_ns ? since(now, l->echo_rx_ns)
                                                                      : 0)};
        if (out_record(l, AN2_FIBER_KEEPALIVE, &k, sizeof k)) {
            l->last_keepalive_ns = now;
            l->credit_refresh = true;
        }
    }
    if (!l->hello_seen) {
        if (since(now, l->created_ns) > HELLO_WAIT_NS)
            link_down(l, "no HELLO from the other end");
        return;
    }
    uint64_t silent = (uint64_t)AN2_FIBER_DEAD_MISSES * l->peer_keepalive_ms * 1000000u;
    if (since(now, l->last_rx_ns) > silent)
        link_down(l, "silent past its keepalive");
    else if ((l->out_len || l->out_wanted) &&
             since(now, l->last_write_ns) > (uint64_t)AN2_FIBER_DEAD_MISSES * period)
        link_down(l, "the other end stopped reading");
}

/* ---- life ---- */

struct an2_link *an2_link_create(const struct an2_link_config *cfg, uint64_t now_ns)
{
    struct an2_link *l = calloc(1, sizeof *l);
    if (!l || !cfg->carrier || !cfg->sw || !cfg->window || cfg->window_start > cfg->window) {
        free(l);
        an2_carrier_close(cfg->carrier);
        errno = l ? EINVAL : ENOMEM;
        return NULL;
    }
    l->cfg = *cfg;
    if (!l->cfg.keepalive_ms)
        l->cfg.keepalive_ms = 200;
    size_t room;
    bool window = an2_carrier_window(cfg->carrier, &room) != NULL;
    l->out = window ? NULL : malloc(OUT_CAP);
    l->in = malloc(IN_CAP);
    l->open_cells = SIZE_MAX;
    l->created_ns = l->last_rx_ns = l->last_write_ns = now_ns;
    vc_map_init(&l->by_vci);
    l->info.window = cfg->window_start ? cfg->window_start : cfg->window;
    struct an2_port_device dev = {.receive = dev_receive, .ctx = l};
    int rc = (window || l->out) && l->in ? an2_switch_port_attach(cfg->sw, cfg->port, &dev)
                                         : -ENOMEM;
    if (!rc && an2_switch_port_set_window(cfg->sw, cfg->port, l->info.window) != 0) {
        an2_switch_port_detach(cfg->sw, cfg->port);
        rc = -ENOMEM;
    }
    if (rc) {
        free(l->out);
        free(l->in);
        free(l);
        an2_carrier_close(cfg->carrier);
        errno = -rc;
        return NULL;
    }
    send_hello(l);
    flush(l, now_ns);
    return l;
}

void an2_link_destroy(struct an2_link *l)
{
    if (!l)
        return;
    an2_switch_port_detach(l->cfg.sw, l->cfg.port);
    for (uint32_t i = 0; i < l->nvcs; i++) {
        free(l->vcs[i]->cap);
        free(l->vcs[i]);
    }
    free(l->vcs);
    vc_map_free(&l->by_vci);
    an2_carrier_close(l->cfg.carrier);
    free(l->out);
    free(l->in);
    free(l);
}

int an2_link_fd(const struct an2_link *l) { return l->cfg.carrier->fd; }
unsigned an2_link_port(const struct an2_link *l) { return l->cfg.port; }
bool an2_link_is_up(const struct an2_link *l) { return l->hello_seen && !l->down; }
const char *an2_link_why(const struct an2_link *l) { return l->down ? l->why : ""; }
bool an2_link_wants_write(const struct an2_link *l) { return l->out_len || l->out_wanted; }
uint32_t an2_link_write_events(const struct an2_link *l) { return l->cfg.carrier->write_events; }
bool an2_link_polled(const struct an2_link *l) { return l->cfg.carrier->polled; }
bool an2_link_arm(struct an2_link *l)
{
    if (l->down)
        return true;
    if (l->out_wanted) {
        /* the room a refused reservation wanted has come: one more pass, to try again (and
         * only one: whoever still finds too little asks anew) */
        size_t room;
        an2_carrier_window(l->cfg.carrier, &room);
        if (room >= l->out_wanted) {
            l->out_wanted = 0;
            return false;
        }
    }
    return an2_carrier_arm(l->cfg.carrier, l->out_len ? 1 : l->out_wanted);
}

void an2_link_info(const struct an2_link *l, struct an2_link_info *out)
{
    *out = l->info;
}

uint64_t an2_link_traffic(const struct an2_link *l)
{
    return l->info.cells_in + l->info.cells_out + l->info.sig_in + l->info.sig_out;
}

int an2_link_set_window(struct an2_link *l, uint32_t cells)
{
    if (cells <= l->info.window || cells > l->cfg.window)
        return 0;
    int rc = an2_switch_port_set_window(l->cfg.sw, l->cfg.port, cells);
    if (rc == 0)
        l->info.window = cells; /* credits_out grants the routes' larger credit */
    return rc;
}

bool an2_link_poll(struct an2_link *l, uint64_t now_ns)
{
    if (l->down)
        return false;
    bool moved = l->cfg.carrier->polled && read_some(l, now_ns);
    sig_out(l); /* before credits: a CREDIT must not overtake the SETUP of its VC */
    moved |= credits_out(l, now_ns);
    if (l->out_len)
        moved |= flush(l, now_ns);
    return moved;
}

bool an2_link_service(struct an2_link *l, uint64_t now_ns)
{
    if (l->down)
        return false;
    an2_carrier_event(l->cfg.carrier);
    read_some(l, now_ns);
    keepalive(l, now_ns);
    an2_link_poll(l, now_ns);
    return !l->down;
}

uint64_t an2_link_next_deadline(const struct an2_link *l)
{
    if (l->down)
        return UINT64_MAX;
    uint64_t period = (uint64_t)l->cfg.keepalive_ms * 1000000u;
    return l->hello_seen ? l->last_keepalive_ns + period : l->created_ns + HELLO_WAIT_NS;
}
