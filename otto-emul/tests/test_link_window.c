/* test_link_window.c — credit windows that grow: the window derived from a round trip and a
 * rate (floor, cap, median of samples); a switch route's buffer growing with cells held
 * (order kept, credit added); and two link ends over a socketpair where the receiver grows
 * its window mid-stream: the sender uses the new credit, the receiver's over-credit check
 * holds, neither link goes down; and a receiver whose route goes while the sender still holds
 * its credit: the credit it gave stands (keepalives repeat it, never lower it), so the cells
 * sent against it are dropped as unrouted and the link stays up. Also a link serviced with a
 * clock read before the one that stamped what it last read: it is not silent. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "aal5_cell.h"
#include "an2_carrier.h"
#include "an2_credit_window.h"
#include "an2_link.h"
#include "an2_switch.h"
#include "an2_switch_port.h"
#include "check.h"

#define OC3 (149760000.0 / 424.0)

static void derived_window(void)
{
    CHECK(an2_credit_window_for(100000, 0) == AN2_WINDOW_FLOOR, "100 us unpaced: the floor");
    CHECK(an2_credit_window_for(10000000, OC3) == 4736, "10 ms at OC-3c: %u",
          an2_credit_window_for(10000000, OC3));
    CHECK(an2_credit_window_for(1000000000, OC3) == AN2_WINDOW_CAP, "1 s: the cap");
    CHECK(an2_credit_window_for(UINT64_MAX, 1e12) == AN2_WINDOW_CAP, "absurd: the cap");
    struct an2_credit_window w;
    an2_credit_window_init(&w);
    CHECK(w.window == AN2_WINDOW_FLOOR, "starts at the floor");
    CHECK(an2_credit_window_sample(&w, 10000000, OC3) == 0, "one sample: no change");
    CHECK(an2_credit_window_sample(&w, 10000000, OC3) == 0, "a repeated value is no sample");
    for (unsigned i = 1; i < AN2_WINDOW_SAMPLES - 1; i++)
        CHECK(an2_credit_window_sample(&w, 10000000 + i, OC3) == 0, "%u samples: no change",
              i + 1);
    CHECK(an2_credit_window_sample(&w, 10000009, OC3) == 4736, "all samples in: 4736");
    CHECK(an2_credit_window_sample(&w, 11000000, OC3) == 0, "a little more: no change");
    for (unsigned i = 0; i < AN2_WINDOW_SAMPLES / 2 + 1; i++)
        an2_credit_window_sample(&w, 30000000 + i, OC3);
    CHECK(w.window == 14144, "most samples at 30 ms: %u", w.window);
    /* one late wake-up among short round trips does not move the median */
    an2_credit_window_init(&w);
    uint64_t rtts[] = {100000, 110000, 500000000, 120000, 105000, 400000000, 101000, 102000};
    for (unsigned i = 0; i < 8; i++)
        CHECK(an2_credit_window_sample(&w, rtts[i], OC3) == 0, "sample %u: no change", i);
    CHECK(w.window == AN2_WINDOW_FLOOR, "two spikes in eight: still the floor");
}

/* A device that takes cells only when open, recording the first payload byte of each. */
struct sink {
    bool open;
    uint32_t n;
    uint8_t seen[1024];
};

static uint32_t sink_receive(void *ctx, uint16_t vpi, uint16_t vci, const struct cell_run *run,
                             uint64_t now)
{
    (void)vpi, (void)vci, (void)now;
    struct sink *s = ctx;
    if (!s->open)
        return 0;
    for (uint32_t i = 0; i < run->ncells && s->n < sizeof s->seen; i++) {
        uint8_t cell[AAL5_CELL_BYTES];
        cell_run_cell(run, i, 0, 41, cell);
        s->seen[s->n++] = cell[AAL5_HEADER_BYTES];
    }
    return run->ncells;
}

/* n cells on VPI 0/VCI vci whose payloads start with seq, seq + 1, ... */
static void make_cells(uint8_t *cells, uint32_t n, uint16_t vci, uint8_t seq)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *c = cells + (size_t)i * AAL5_CELL_BYTES;
        memset(c, 0, AAL5_CELL_BYTES);
        struct aal5_cell_header h = {.vci = vci};
        aal5_cell_header_encode(c, &h);
        c[AAL5_HEADER_BYTES] = (uint8_t)(seq + i);
    }
}

static void send_cells(struct an2_switch *sw, unsigned port, uint16_t vci, uint32_t n,
                       uint8_t *seq)
{
    static uint8_t cells[256 * AAL5_CELL_BYTES];
    make_cells(cells, n, vci, *seq);
    struct cell_run run = {.ncells = n, .cells = cells};
    an2_switch_send(sw, port, 0, vci, &run, 1);
    *seq = (uint8_t)(*seq + n);
}

static void route_grows_with_cells_held(void)
{
    struct an2_switch_config sc = {.nports = 2, .vc_credit_cells = 64};
    struct an2_switch *sw = an2_switch_create(&sc);
    struct sink sink = {0};
    struct an2_port_device dev = {.receive = sink_receive, .ctx = &sink};
    CHECK(an2_switch_port_attach(sw, 1, &dev) == 0, "attach");
    CHECK(an2_switch_route_add(sw, 0, 0, 40, 1, 0, 41) == 0, "route");
    uint8_t seq = 0;
    send_cells(sw, 0, 40, 50, &seq);         /* held: the sink is closed */
    /* let them out, then close again: the ring's head has moved to 50 */
    sink.open = true;
    an2_switch_poll(sw, 2);
    CHECK(sink.n == 50, "all 50 out once open (%u)", sink.n);
    sink.open = false;
    send_cells(sw, 0, 40, 40, &seq);         /* 40 held, from ring position 50: they wrap */
    CHECK(an2_switch_tx_credit(sw, 0, 0, 40) == 24, "credit 64 - 40 (%u)",
          an2_switch_tx_credit(sw, 0, 0, 40));
    CHECK(an2_switch_port_set_window(sw, 0, 32) == 0 && an2_switch_tx_credit(sw, 0, 0, 40) == 24,
          "a smaller window is ignored");
    CHECK(an2_switch_port_set_window(sw, 0, 200) == 0, "grow to 200");
    CHECK(an2_switch_tx_credit(sw, 0, 0, 40) == 160, "credit 200 - 40 (%u)",
          an2_switch_tx_credit(sw, 0, 0, 40));
    send_cells(sw, 0, 40, 160, &seq);        /* the whole new window */
    CHECK(an2_switch_tx_credit(sw, 0, 0, 40) == 0, "no credit left");
    struct an2_vc_switch_counters c;
    CHECK(an2_switch_vc_counters(sw, 0, 0, 40, &c) == 0 && c.cells_buffered == 200,
          "200 held (%u)", c.cells_buffered);
    sink.open = true;
    for (int i = 0; i < 4; i++)
        an2_switch_poll(sw, 3 + (uint64_t)i);
    CHECK(sink.n == 250, "all out (%u)", sink.n);
    bool ordered = true;
    for (uint32_t i = 0; i < sink.n; i++)
        ordered &= sink.seen[i] == (uint8_t)i;
    CHECK(ordered, "in the order sent");
    CHECK(an2_switch_route_add(sw, 0, 0, 50, 1, 0, 51) == 0 &&
              an2_switch_tx_credit(sw, 0, 0, 50) == 200, "a new route from the port: 200");
    an2_switch_port_detach(sw, 0);
    CHECK(an2_switch_route_add(sw, 0, 0, 60, 1, 0, 61) == 0 &&
              an2_switch_tx_credit(sw, 0, 0, 60) == 64, "after detach: the switch's 64 again");
    an2_switch_destroy(sw);
}

struct end {
    struct an2_switch *sw;
    struct an2_link *link;
    struct sink sink;
};

static bool service(struct end *a, struct end *b, uint64_t *now)
{
    *now += 1000000; /* 1 ms a round: keepalives go, no link is silent for long */
    an2_link_service(a->link, *now);
    an2_link_service(b->link, *now);
    an2_switch_poll(a->sw, *now);
    an2_switch_poll(b->sw, *now);
    return an2_link_is_up(a->link) && an2_link_is_up(b->link);
}

/* Sends from A's port 0 as long as credit allows, for a while. */
static void pump(struct end *a, struct end *b, uint64_t *now, uint8_t *seq)
{
    for (int round = 0; round < 50; round++) {
        uint32_t credit = an2_switch_tx_credit(a->sw, 0, 0, 40);
        if (credit > 256)
            credit = 256;
        if (credit)
            send_cells(a->sw, 0, 40, credit, seq);
        if (!service(a, b, now))
            return;
    }
}

/* What ends_up made, also when it failed part way. */
static void ends_down(struct end *a, struct end *b)
{
    an2_link_destroy(a->link);
    an2_link_destroy(b->link);
    an2_switch_destroy(a->sw);
    an2_switch_destroy(b->sw);
}

/* Two switches joined by a link over a socketpair, VC 40 from A's port 0 to B's sink; B's
 * link may buffer up to b_window cells per VC and starts with b_start (0: all of it). */
static bool ends_up(struct end *a, struct end *b, uint64_t now, uint32_t b_window,
                    uint32_t b_start)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return false;
    struct an2_switch_config sc = {.nports = 2, .vc_credit_cells = 64};
    a->sw = an2_switch_create(&sc);
    b->sw = an2_switch_create(&sc);
    struct an2_port_device dev = {.receive = sink_receive, .ctx = &b->sink};
    if (!a->sw || !b->sw || an2_switch_port_attach(b->sw, 0, &dev) != 0)
        return false;
    struct an2_link_config ca = {.carrier = an2_carrier_stream(sv[0]), .sw = a->sw, .port = 1,
                                 .role = AN2_FIBER_ROLE_SWITCH, .switch_id = 1, .window = 64};
    struct an2_link_config cb = {.carrier = an2_carrier_stream(sv[1]), .sw = b->sw, .port = 1,
                                 .role = AN2_FIBER_ROLE_SWITCH, .switch_id = 2,
                                 .window = b_window, .window_start = b_start};
    a->link = an2_link_create(&ca, now);
    b->link = an2_link_create(&cb, now);
    return a->link && b->link && an2_switch_route_add(a->sw, 0, 0, 40, 1, 0, 40) == 0 &&
           an2_switch_route_add(b->sw, 1, 0, 40, 0, 0, 41) == 0 &&
           an2_link_vc_add(a->link, 40, 1) == 0 && an2_link_vc_add(b->link, 40, 1) == 0;
}

/* ends_up, checked; on failure what it made is gone again. */
static bool ends_joined(struct end *a, struct end *b, uint64_t now, uint32_t b_window,
                        uint32_t b_start)
{
    bool made = ends_up(a, b, now, b_window, b_start);
    CHECK(made, "two ends joined");
    if (!made)
        ends_down(a, b);
    return made;
}

static void links_grow_mid_stream(void)
{
    struct end a = {0}, b = {0};
    uint64_t now = 1000000;
    if (!ends_joined(&a, &b, now, 1024, 64))
        return;
    uint8_t seq = 0;
    pump(&a, &b, &now, &seq);
    struct an2_vc_switch_counters c;
    CHECK(an2_switch_vc_counters(b.sw, 1, 0, 40, &c) == 0 && c.cells_buffered == 64,
          "B holds its window of 64 (%u)", c.cells_buffered);
    CHECK(an2_link_set_window(b.link, 2000) == 0, "above the HELLO's: ignored");
    CHECK(an2_link_set_window(b.link, 640) == 0, "grow to 640");
    pump(&a, &b, &now, &seq);
    CHECK(an2_link_is_up(a.link) && an2_link_is_up(b.link), "both up (A: '%s', B: '%s')",
          an2_link_why(a.link), an2_link_why(b.link));
    CHECK(an2_switch_vc_counters(b.sw, 1, 0, 40, &c) == 0 && c.cells_buffered == 640,
          "B holds its new window of 640 (%u)", c.cells_buffered);
    struct an2_link_info li;
    an2_link_info(b.link, &li);
    CHECK(li.window == 640 && li.cells_in == 640 && li.dropped_unrouted == 0,
          "B's link: window %u, %llu cells in, %llu dropped", li.window,
          (unsigned long long)li.cells_in, (unsigned long long)li.dropped_unrouted);
    b.sink.open = true;
    pump(&a, &b, &now, &seq);
    CHECK(b.sink.n >= 640 && an2_link_is_up(b.link), "the cells flow on (%u)", b.sink.n);
    ends_down(&a, &b);
}

static void credit_stands_after_route_goes(void)
{
    struct end a = {0}, b = {0};
    uint64_t now = 1000000;
    if (!ends_joined(&a, &b, now, 64, 0))
        return;
    b.sink.open = true;
    uint8_t seq = 0;
    pump(&a, &b, &now, &seq);
    for (int i = 0; i < 100 && service(&a, &b, &now); i++)
        ; /* the stream drained: A holds B's whole window as credit */
    uint32_t before = b.sink.n;
    CHECK(before > 64 && an2_switch_tx_credit(a.sw, 0, 0, 40) > 0, "cells flow (%u)", before);
    CHECK(an2_switch_route_del(b.sw, 1, 0, 40) == 0, "B's route goes");
    /* keepalives both ways, with their repeated credits, and no cell on the way */
    for (int i = 0; i < 1000 && service(&a, &b, &now); i++)
        ;
    struct an2_link_info li;
    an2_link_info(b.link, &li);
    uint64_t dropped = li.dropped_unrouted;
    pump(&a, &b, &now, &seq); /* A sends against the credit it still holds */
    CHECK(an2_link_is_up(a.link) && an2_link_is_up(b.link), "both up (A: '%s', B: '%s')",
          an2_link_why(a.link), an2_link_why(b.link));
    an2_link_info(b.link, &li);
    CHECK(li.dropped_unrouted > dropped && b.sink.n == before,
          "B dropped the late cells as unrouted (%llu), delivered none (%u)",
          (unsigned long long)(li.dropped_unrouted - dropped), b.sink.n - before);
    ends_down(&a, &b);
}

/* A daemon reads its clock, handles an event that reads a link with a fresher clock, then
 * services the link with the first: the link heard its peer after that "now", not centuries
 * before it. */
static void clock_behind_a_stamp(void)
{
    struct end a = {0}, b = {0};
    uint64_t now = 1000000;
    if (!ends_joined(&a, &b, now, 64, 0))
        return;
    for (int i = 0; i < 10; i++)
        service(&a, &b, &now);
    CHECK(an2_link_is_up(a.link) && an2_link_is_up(b.link), "both up");
    uint64_t later = now + 250000000; /* past A's keepalive period (200 ms): A sends one */
    an2_link_service(a.link, later);
    an2_link_service(b.link, later); /* B reads it, stamped later */
    an2_link_service(b.link, now);
    an2_link_service(a.link, now);
    CHECK(an2_link_is_up(a.link) && an2_link_is_up(b.link),
          "both still up after a look with the earlier clock (A: '%s', B: '%s')",
          an2_link_why(a.link), an2_link_why(b.link));
    ends_down(&a, &b);
}

int main(void)
{
    derived_window();
    route_grows_with_cells_held();
    links_grow_mid_stream();
    credit_stands_after_route_goes();
    clock_behind_a_stamp();
    return check_exit("test_link_window");
}
