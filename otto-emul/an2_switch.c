/* an2_switch.c — the AN2 switch model: VC routing, per-VC credits and buffers on every link,
 * paced output ports, counters. Cells pass straight through (cut-through) when the VC has
 * nothing buffered and the receiver takes them; otherwise they wait here as real cells. */
#include "an2_switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an2_switch_port.h"
#include "link_pacer.h"
#include "vc_map.h"

#define DEFAULT_CREDIT_CELLS 256u

struct route {
    unsigned in_port, out_port;
    uint16_t in_vpi, in_vci, out_vpi, out_vci;
    uint32_t window;          /* buffer cells: its input port's window when made; only grows */
    uint32_t credit;          /* credits the upstream device holds: window - cells held here */
    uint8_t *ring;            /* window cells of 53 bytes, allocated when first needed */
    uint32_t head, count;     /* buffered cells, oldest at head */
    bool stalled;             /* the receiver refused cells at the last attempt */
    bool receiver_mid_pdu;    /* the last cell delivered was not an end-of-PDU cell */
    uint32_t active_index;    /* position in sw->active while count > 0 */
    struct an2_vc_switch_counters c;
};

struct port {
    struct an2_port_device dev;
    bool attached;
    uint32_t window;              /* of routes in from this port; 0: the switch's */
    struct link_pacer out_pacer;  /* switch -> device direction of the port's link */
    struct an2_port_counters c;
};

struct an2_switch {
    unsigned nports;
    uint32_t window;
    struct port *port;
    struct vc_map routes;
    struct route **active;        /* routes with buffered cells */
    uint32_t nactive, active_cap, rr;
};

static uint64_t route_key(unsigned port, uint16_t vpi, uint16_t vci)
{
    return (uint64_t)port << 32 | (uint64_t)vpi << 16 | vci;
}

struct an2_switch *an2_switch_create(const struct an2_switch_config *config)
{
    if (!config || config->nports < 1 || config->nports > 4096 || config->cells_per_second < 0) {
        errno = EINVAL;
        return NULL;
    }
    struct an2_switch *sw = calloc(1, sizeof *sw);
    if (!sw)
        return NULL;
    sw->port = calloc(config->nports, sizeof *sw->port);
    if (!sw->port) {
        free(sw);
        return NULL;
    }
    sw->nports = config->nports;
    sw->window = config->vc_credit_cells ? config->vc_credit_cells : DEFAULT_CREDIT_CELLS;
    for (unsigned i = 0; i < sw->nports; i++) {
        link_pacer_init(&sw->port[i].out_pacer, config->cells_per_second);
        /* What reaches an output was shaped by the senders' own link clocks (bursts after
         * idling bounded there); the output may pass on a sender's catch-up after the
         * emulator was descheduled, while its long-run rate stays the link's. */
        sw->port[i].out_pacer.backlogged = true;
    }
    vc_map_init(&sw->routes);
    return sw;
}

static void route_free(struct route *r)
{
    free(r->ring);
    free(r);
}

void an2_switch_destroy(struct an2_switch *sw)
{
    if (!sw)
        return;
    for (size_t i = 0; i < sw->routes.cap; i++) {
        struct route *r = vc_map_slot_value(&sw->routes, i);
        if (r)
            route_free(r);
    }
    vc_map_free(&sw->routes);
    free(sw->active);
    free(sw->port);
    free(sw);
}

int an2_switch_port_attach(struct an2_switch *sw, unsigned port, const struct an2_port_device *dev)
{
    if (port >= sw->nports || !dev || !dev->receive)
        return -EINVAL;
    if (sw->port[port].attached)
        return -EBUSY;
    sw->port[port].dev = *dev;
    sw->port[port].attached = true;
    return 0;
}

void an2_switch_port_detach(struct an2_switch *sw, unsigned port)
{
    if (port < sw->nports) {
        memset(&sw->port[port].dev, 0, sizeof sw->port[port].dev);
        sw->port[port].attached = false;
        sw->port[port].window = 0; /* the next link on the port starts afresh */
    }
}

static bool vc_valid(uint16_t vpi, uint16_t vci)
{
    return vpi <= AAL5_MAX_VPI && vci != 0;
}

int an2_switch_route_add(struct an2_switch *sw, unsigned in_port, uint16_t in_vpi,
                         uint16_t in_vci, unsigned out_port, uint16_t out_vpi, uint16_t out_vci)
{
    if (!sw || in_port >= sw->nports || out_port >= sw->nports || !vc_valid(in_vpi, in_vci) ||
        !vc_valid(out_vpi, out_vci))
        return -EINVAL;
    uint64_t key = route_key(in_port, in_vpi, in_vci);
    if (vc_map_get(&sw->routes, key))
        return -EEXIST;
    struct route *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    uint32_t window = sw->port[in_port].window ? sw->port[in_port].window : sw->window;
    *r = (struct route){ .in_port = in_port, .out_port = out_port, .in_vpi = in_vpi,
                         .in_vci = in_vci, .out_vpi = out_vpi, .out_vci = out_vci,
                         .window = window, .credit = window };
    int rc = vc_map_put(&sw->routes, key, r);
    if (rc)
        free(r);
    return rc;
}

static void active_add(struct an2_switch *sw, struct route *r)
{
    if (sw->nactive == sw->active_cap) {
        uint32_t cap = sw->active_cap ? sw->active_cap * 2 : 16;
        struct route **a = realloc(sw->active, cap * sizeof *a);
        if (!a)
            abort(); /* a few pointers per VC: out of memory here is not survivable */
        sw->active = a;
        sw->active_cap = cap;
    }
    r->active_index = sw->nactive;
    sw->active[sw->nactive++] = r;
}

static void active_remove(struct an2_switch *sw, struct route *r)
{
    struct route *last = sw->active[--sw->nactive];
    sw->active[r->active_index] = last;
    last->active_index = r->active_index;
}

static uint8_t *ring_cell(const struct an2_switch *sw, const struct route *r, uint32_t i)
{
    (void)sw;
    return r->ring + (size_t)((r->head + i) % r->window) * AAL5_CELL_BYTES;
}

static bool cell_is_eop(const uint8_t *cell)
{
    struct aal5_cell_header h;
    return aal5_cell_header_decode(cell, &h) == 0 && aal5_pti_is_eop(h.pti);
}

/* Drops buffered cells [from, count) of r: discarded by a closing VC or an aborted PDU. */
static void drop_buffered_from(struct an2_switch *sw, struct route *r, uint32_t from)
{
    uint32_t dropped = r->count - from;
    r->count = from;
    r->credit += dropped;
    r->c.drops += dropped;
    sw->port[r->out_port].c.drops += dropped;
    if (r->count == 0 && dropped)
        active_remove(sw, r);
}

static void discard_partial(struct an2_switch *sw, struct route *r)
{
    struct port *out = &sw->port[r->out_port];
    if (r->receiver_mid_pdu && out->attached && out->dev.discard_partial)
        out->dev.discard_partial(out->dev.ctx, r->out_vpi, r->out_vci);
    r->receiver_mid_pdu = false;
}

int an2_switch_route_del(struct an2_switch *sw, unsigned in_port, uint16_t in_vpi,
                         uint16_t in_vci)
{
    if (!sw || in_port >= sw->nports)
        return -ENOENT;
    struct route *r = vc_map_del(&sw->routes, route_key(in_port, in_vpi, in_vci));
    if (!r)
        return -ENOENT;
    drop_buffered_from(sw, r, 0);
    discard_partial(sw, r);
    route_free(r);
    return 0;
}

void an2_switch_abort_pdu(struct an2_switch *sw, unsigned port, uint16_t vpi, uint16_t vci)
{
    struct route *r = vc_map_get(&sw->routes, route_key(port, vpi, vci));
    if (!r)
        return;
    uint32_t keep = r->count;
    while (keep && !cell_is_eop(ring_cell(sw, r, keep - 1)))
        keep--;
    drop_buffered_from(sw, r, keep);
    if (keep == 0)
        discard_partial(sw, r); /* the PDU's first cells may already be downstream */
}

uint32_t an2_switch_tx_credit(const struct an2_switch *sw, unsigned port, uint16_t vpi,
                              uint16_t vci)
{
    const struct route *r = vc_map_get(&sw->routes, route_key(port, vpi, vci));
    return r ? r->credit : 0;
}

void cell_run_cell(const struct cell_run *run, uint32_t i, uint16_t vpi, uint16_t vci,
                   uint8_t out[AAL5_CELL_BYTES])
{
    if (!run->cells) {
        aal5_tx_pdu_cell(run->pdu, run->first + i, vpi, vci, out);
        return;
    }
    memcpy(out, run->cells + (size_t)i * AAL5_CELL_BYTES, AAL5_CELL_BYTES);
    /* the switch rewrites VPI/VCI (and HEC); a header whose HEC fails stays as it is, so
     * that the receiver drops the cell */
    if (aal5_hec(out) == out[4])
        aal5_cell_header_set_vc(out, vpi, vci);
}

void cell_run_cells(const struct cell_run *run, uint32_t i, uint32_t n, uint16_t vpi,
                    uint16_t vci, uint8_t *out)
{
    if (!run->cells) {
        aal5_tx_pdu_cells(run->pdu, run->first + i, n, vpi, vci, out);
        return;
    }
    const uint8_t *in = run->cells + (size_t)i * AAL5_CELL_BYTES;
    memcpy(out, in, (size_t)n * AAL5_CELL_BYTES);
    /* a header like the one before it (VPI/VCI, PTI, CLP and HEC alike) gets what that one
     * got: the rewrite is a function of those five bytes */
    for (uint32_t k = 0; k < n; k++) {
        uint8_t *cell = out + (size_t)k * AAL5_CELL_BYTES;
        const uint8_t *src = in + (size_t)k * AAL5_CELL_BYTES;
        if (k && memcmp(src, src - AAL5_CELL_BYTES, AAL5_HEADER_BYTES) == 0) {
            memcpy(cell, cell - AAL5_CELL_BYTES, AAL5_HEADER_BYTES);
            continue;
        }
        if (aal5_hec(cell) == cell[4])
            aal5_cell_header_set_vc(cell, vpi, vci);
    }
}

static bool run_ends_pdu(const struct cell_run *run, uint32_t n)
{
    if (!run->cells)
        return run->first + n == run->pdu->ncells;
    return cell_is_eop(run->cells + (size_t)(n - 1) * AAL5_CELL_BYTES);
}

/* Offers run to the receiver through the output port's clock; returns the cells it took. */
static uint32_t deliver(struct an2_switch *sw, struct route *r, const struct cell_run *run,
                        uint64_t now)
{
    struct port *out = &sw->port[r->out_port];
    uint32_t n = run->ncells;
    uint32_t allow = link_pacer_allow(&out->out_pacer, now);
    if (allow < n)
        n = allow;
    if (!n)
        return 0;
    uint32_t k;
    if (!out->attached) {
        k = n; /* no device on the port: the cells fall off the end of the fibre */
        r->c.drops += n;
        out->c.drops += n;
    } else {
        struct cell_run sub = *run;
        sub.ncells = n;
        k = out->dev.receive(out->dev.ctx, r->out_vpi, r->out_vci, &sub, now);
        if (k > n)
            k = n;
    }
    link_pacer_consume(&out->out_pacer, k);
    if (k) {
        r->receiver_mid_pdu = !run_ends_pdu(run, k);
        r->credit += k; /* one credit back upstream per cell forwarded */
        r->c.cells_out += k;
        r->c.credits_granted += k;
        out->c.cells_out += k;
        sw->port[r->in_port].c.credits_granted += k;
    }
    bool refused = k < n;
    if (refused && !r->stalled) {
        r->c.stalls++;
        out->c.stalls++;
    }
    r->stalled = refused;
    return k;
}

void an2_switch_send(struct an2_switch *sw, unsigned port, uint16_t vpi, uint16_t vci,
                     const struct cell_run *run, uint64_t now_ns)
{
    struct route *r = vc_map_get(&sw->routes, route_key(port, vpi, vci));
    uint32_t n = run->ncells;
    if (!r || n > r->credit)
        abort(); /* the device sent without credit: a bug in otto-emul, not bad input */
    r->credit -= n;
    r->c.cells_in += n;
    sw->port[port].c.cells_in += n;
    uint32_t k = r->count == 0 ? deliver(sw, r, run, now_ns) : 0;
    if (k == n)
        return;
    if (!r->ring) {
        r->ring = malloc((size_t)r->window * AAL5_CELL_BYTES);
        if (!r->ring)
            abort();
    }
    if (r->count == 0)
        active_add(sw, r);
    while (k < n) { /* in stretches that are contiguous in the ring */
        uint32_t tail = (r->head + r->count) % r->window;
        uint32_t m = r->window - tail < n - k ? r->window - tail : n - k;
        cell_run_cells(run, k, m, r->out_vpi, r->out_vci, ring_cell(sw, r, r->count));
        r->count += m;
        k += m;
    }
}

static bool drain(struct an2_switch *sw, struct route *r, uint64_t now)
{
    bool moved = false;
    while (r->count) {
        uint32_t contiguous = r->window - r->head;
        if (contiguous > r->count)
            contiguous = r->count;
        struct cell_run run = { .ncells = contiguous, .cells = ring_cell(sw, r, 0) };
        uint32_t k = deliver(sw, r, &run, now);
        r->head = (r->head + k) % r->window;
        r->count -= k;
        moved |= k > 0;
        if (k < contiguous)
            break;
    }
    if (!r->count)
        active_remove(sw, r);
    return moved;
}

static bool poll_routes(struct an2_switch *sw, uint64_t now_ns)
{
    bool moved = false;
    uint32_t n = sw->nactive;
    if (!n)
        return false;
    /* Round robin over VCs with buffered cells; drain() may remove the route it drains. */
    uint32_t start = sw->rr++ % n;
    struct route *batch[64];
    for (uint32_t done = 0; done < n; done += 64) {
        uint32_t m = n - done < 64 ? n - done : 64;
        for (uint32_t i = 0; i < m; i++)
            batch[i] = sw->active[(start + done + i) % n];
        for (uint32_t i = 0; i < m; i++)
            moved |= batch[i]->count && drain(sw, batch[i], now_ns);
    }
    return moved;
}

bool an2_switch_poll(struct an2_switch *sw, uint64_t now_ns)
{
    return poll_routes(sw, now_ns);
}

uint64_t an2_switch_next_deadline(const struct an2_switch *sw)
{
    uint64_t t = UINT64_MAX;
    for (uint32_t i = 0; i < sw->nactive; i++) {
        const struct route *r = sw->active[i];
        if (r->stalled)
            continue; /* waits for the receiver, not for the clock */
        uint64_t next = link_pacer_next(&sw->port[r->out_port].out_pacer);
        if (next < t)
            t = next;
    }
    return t;
}

/* r's buffer grows to `cells` (> its window): the cells held keep their order, and the
 * upstream device gets the difference as credit. -ENOMEM leaves r as it was. */
static int route_grow(const struct an2_switch *sw, struct route *r, uint32_t cells)
{
    if (r->ring) {
        uint8_t *ring = malloc((size_t)cells * AAL5_CELL_BYTES);
        if (!ring)
            return -ENOMEM;
        for (uint32_t i = 0; i < r->count; i++)
            memcpy(ring + (size_t)i * AAL5_CELL_BYTES, ring_cell(sw, r, i), AAL5_CELL_BYTES);
        free(r->ring);
        r->ring = ring;
        r->head = 0;
    }
    r->credit += cells - r->window;
    r->window = cells;
    return 0;
}

int an2_switch_port_set_window(struct an2_switch *sw, unsigned port, uint32_t cells)
{
    if (!sw || port >= sw->nports || cells == 0)
        return -EINVAL;
    uint32_t now = sw->port[port].window ? sw->port[port].window : sw->window;
    if (cells <= now)
        return 0;
    sw->port[port].window = cells;
    int rc = 0;
    /* bounded by the map's capacity; a window grows a few times in a link's life */
    for (size_t i = 0; i < sw->routes.cap; i++) {
        struct route *r = vc_map_slot_value(&sw->routes, i);
        if (r && r->in_port == port && r->window < cells && route_grow(sw, r, cells) != 0)
            rc = -ENOMEM;
    }
    return rc;
}

int an2_switch_port_set_rate(struct an2_switch *sw, unsigned port, double cells_per_second)
{
    if (!sw || port >= sw->nports || cells_per_second < 0)
        return -EINVAL;
    link_pacer_init(&sw->port[port].out_pacer, cells_per_second);
    sw->port[port].out_pacer.backlogged = true;
    return 0;
}

int an2_switch_port_counters(const struct an2_switch *sw, unsigned port,
                             struct an2_port_counters *out)
{
    if (!sw || port >= sw->nports || !out)
        return -EINVAL;
    *out = sw->port[port].c;
    return 0;
}

int an2_switch_vc_counters(const struct an2_switch *sw, unsigned in_port, uint16_t in_vpi,
                           uint16_t in_vci, struct an2_vc_switch_counters *out)
{
    const struct route *r = sw ? vc_map_get(&sw->routes, route_key(in_port, in_vpi, in_vci)) : NULL;
    if (!r || !out)
        return -ENOENT;
    *out = r->c;
    out->cells_buffered = r->count;
    return 0;
}

bool an2_switch_holds_cells(const struct an2_switch *sw)
{
    return sw->nactive > 0;
}
