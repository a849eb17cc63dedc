/* test_otto_protection.c — descriptors as untrusted input: every bad one gets a PROTECTION
 * report and touches no memory; nothing outside a portion (canaries) or outside the posted
 * buffers is written; garbage ring indices and a host that stops reading reports harm only
 * that host; bad geometry is refused at attach; a sender detached mid-PDU leaves no debris. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an2_switch_port.h"
#include "check.h"
#include "harness.h"

#define BUF (128u * 1024u)

struct rig {
    struct an2_switch *sw;
    struct otto *o;
    struct host a, b;
};

static void rig_up(struct rig *r, double rate)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 16, .cells_per_second = rate };
    r->sw = an2_switch_create(&sc);
    struct otto_config oc = { .cells_per_second = rate };
    r->o = otto_create(&oc, r->sw, 0);
    CHECK(host_create(&r->a, 1, 2, 16, 16, BUF) == 0 && host_create(&r->b, 2, 2, 16, 16, BUF) == 0,
          "hosts");
    CHECK(otto_attach(r->o, 1, r->a.base, r->a.size) == 0, "attach a");
    CHECK(otto_attach(r->o, 2, r->b.base, r->b.size) == 0, "attach b");
    otto_vc_bind(r->o, 1, 0, 0, 100);
    otto_vc_bind(r->o, 2, 0, 0, 101);
    an2_switch_route_add(r->sw, 0, 0, 100, 0, 0, 101);
    an2_switch_route_add(r->sw, 0, 0, 101, 0, 0, 100);
}

static void rig_down(struct rig *r)
{
    CHECK(host_canaries_intact(&r->a) && host_canaries_intact(&r->b), "canaries");
    otto_destroy(r->o);
    an2_switch_destroy(r->sw);
    host_destroy(&r->a);
    host_destroy(&r->b);
}

static void run(struct rig *r)
{
    uint64_t now = 0;
    fabric_run(&r->o, 1, &now, 0, 10000);
}

static void bad_descriptors(void)
{
    struct rig r;
    rig_up(&r, 0);
    memset(r.b.buf, 0x3C, BUF);
    const uint32_t buf_size = (uint32_t)r.a.geo.buf_size;
    struct otto_tx_desc bad[] = {
        { .cookie = 1, .vc = 0, .nfrags = 1, .frag = { { buf_size, 1 } } },
        { .cookie = 2, .vc = 0, .nfrags = 1, .frag = { { 0, buf_size + 1 } } },
        { .cookie = 3, .vc = 0, .nfrags = 1, .frag = { { 0xFFFFFFF0u, 0x20 } } },
        { .cookie = 4, .vc = 0, .nfrags = 9 },
        { .cookie = 5, .vc = 0, .nfrags = 255 },
        { .cookie = 6, .vc = 999, .nfrags = 1, .frag = { { 0, 10 } } },
        { .cookie = 7, .vc = 1, .nfrags = 1, .frag = { { 0, 10 } } }, /* not bound */
        { .cookie = 8, .vc = 0, .nfrags = 1, .cpi = 1, .frag = { { 0, 10 } } },
        { .cookie = 9, .vc = 0, .nfrags = 2, .frag = { { 0, 40000 }, { 40000, 40000 } } },
        { .cookie = 10, .vc = 0, .nfrags = 2, .frag = { { 10, 5 }, { buf_size - 4, 5 } } },
    };
    enum { NBAD = sizeof bad / sizeof bad[0] };
    /* The receiver's posted descriptors: three bad, then a good one. */
    struct otto_rx_desc rbad[] = {
        { .cookie = 51, .nfrags = 0 },
        { .cookie = 52, .nfrags = 9, .frag = { { 0, 100 } } },
        { .cookie = 53, .nfrags = 2, .frag = { { 0, 100 }, { buf_size - 10, 11 } } },
    };
    for (unsigned i = 0; i < 3; i++)
        CHECK(host_post_rx_raw(&r.b, 0, &rbad[i]), "post bad rx");
    struct otto_frag good_rx = { 1000, 200 };
    host_post_rx(&r.b, 0, 54, &good_rx, 1);

    for (unsigned i = 0; i < NBAD; i++) {
        CHECK(host_send_raw(&r.a, &bad[i]), "queue bad %u", i);
        if (i % 4 == 3)
            run(&r);
    }
    struct otto_frag good = { 0, 150 };
    memset(r.a.buf, 0x77, 150);
    host_send(&r.a, 0, 99, &good, 1, 0);
    run(&r);
    struct otto_report rep;
    for (unsigned i = 0; i < NBAD; i++) {
        CHECK(host_report(&r.a, &rep), "report %u", i);
        CHECK(rep.kind == OTTO_REPORT_TX && rep.status == OTTO_STATUS_PROTECTION &&
                  rep.cookie == bad[i].cookie, "bad tx %u: kind %u status %u cookie %llu", i,
              rep.kind, rep.status, (unsigned long long)rep.cookie);
    }
    CHECK(host_report(&r.a, &rep) && rep.status == OTTO_STATUS_OK && rep.cookie == 99,
          "the good one after the bad ones");
    for (unsigned i = 0; i < 3; i++)
        CHECK(host_report(&r.b, &rep) && rep.kind == OTTO_REPORT_RX &&
                  rep.status == OTTO_STATUS_PROTECTION && rep.cookie == rbad[i].cookie,
              "bad rx %u: status %u cookie %llu", i, rep.status, (unsigned long long)rep.cookie);
    CHECK(host_report(&r.b, &rep) && rep.status == OTTO_STATUS_OK && rep.cookie == 54 &&
              rep.length == 150, "good rx");
    /* Only the good buffer was written (150 bytes of payload, then at most pad and trailer). */
    bool outside_clean = true;
    for (uint32_t i = 0; i < BUF; i++)
        if ((i < 1000 || i >= 1200) && r.b.buf[i] != 0x3C)
            outside_clean = false;
    CHECK(outside_clean, "bytes outside the posted buffer were written");
    CHECK(r.b.buf[1000] == 0x77 && r.b.buf[1149] == 0x77, "payload landed");
    struct otto_vc_counters c;
    otto_vc_counters(r.o, 1, 0, &c);
    CHECK(c.protection_errors >= 7, "protection counter %llu", (unsigned long long)c.protection_errors);
    rig_down(&r);
}

static void garbage_indices(void)
{
    struct rig r;
    rig_up(&r, 0);
    /* A prod no ring can have is ignored; so is a report cons ahead of prod. */
    r.a.hdr->tx.prod = 1000000;
    struct otto_ring_index *bix = (struct otto_ring_index *)(r.b.base + r.b.geo.rx_index_off);
    bix[0].prod = 0x80000000u;
    r.b.hdr->report.cons = 12345;
    run(&r);
    struct otto_report rep;
    r.a.hdr->tx.prod = 0;
    bix[0].prod = 0;
    r.b.hdr->report.cons = 0;
    r.b.report_cons = 0;
    CHECK(!host_report(&r.a, &rep) && !host_report(&r.b, &rep), "no reports from garbage");

    /* The host stops reading reports: the controller never has more unconsumed than slots,
     * and every report arrives once the host reads again. */
    otto_vc_unbind(r.o, 2, 0); /* the receiver's controller discards what arrives */
    struct otto_frag f = { 0, 100 };
    unsigned sent = 0;
    uint32_t slots = r.a.geo.report_slots;
    for (unsigned round = 0; round < 50; round++) {
        while (sent < 4 * slots && host_send(&r.a, 0, sent, &f, 1, 0))
            sent++;
        run(&r);
        uint32_t unconsumed = r.a.hdr->report.prod - r.a.hdr->report.cons;
        CHECK(unconsumed <= slots, "%u unconsumed reports in %u slots", unconsumed, slots);
    }
    CHECK(r.a.hdr->report.prod - r.a.hdr->report.cons >= slots - r.a.geo.max_vcs,
          "ring filled up to its VC-event reserve, not overwritten: %u",
          r.a.hdr->report.prod - r.a.hdr->report.cons);
    /* Held back by the full ring, the controller sets no deadline (a host that does not read
     * costs it nothing) and asks the host to ring when it frees slots (otto_hw.h). */
    uint64_t t = 5000000;
    otto_poll(r.o, t);
    CHECK(otto_next_deadline(r.o) == UINT64_MAX, "deadline while report-stalled: %llu",
          (unsigned long long)otto_next_deadline(r.o));
    CHECK(r.a.hdr->controller_wants_reports == 1, "no request for freed report slots");
    CHECK(r.b.hdr->controller_wants_reports == 0, "a portion that is not stalled is asked");
    unsigned got = 0;
    for (unsigned round = 0; round < 1000 && got < sent; round++) {
        while (host_report(&r.a, &rep)) {
            CHECK(rep.cookie == got && rep.status == OTTO_STATUS_OK, "report %u: cookie %llu",
                  got, (unsigned long long)rep.cookie);
            got++;
        }
        while (sent < 4 * slots && host_send(&r.a, 0, sent, &f, 1, 0))
            sent++;
        run(&r);
    }
    CHECK(got == 4 * slots, "%u of %u reports (sent %u)", got, 4 * slots, sent);
    otto_poll(r.o, t);
    CHECK(otto_next_deadline(r.o) == UINT64_MAX, "idle again: no deadline");
    CHECK(r.a.hdr->controller_wants_reports == 0, "request for slots not withdrawn");
    rig_down(&r);
}

static void bad_geometry(void)
{
    struct rig r;
    rig_up(&r, 0);
    struct host h;
    host_create(&h, 9, 1, 16, 16, BUF);
    h.hdr->geo.tx_ring_off += 64;
    CHECK(otto_attach(r.o, 9, h.base, h.size) == -EINVAL, "moved ring");
    h.hdr->geo.tx_ring_off -= 64;
    h.hdr->geo.magic ^= 1;
    CHECK(otto_attach(r.o, 9, h.base, h.size) == -EINVAL, "bad magic");
    h.hdr->geo.magic ^= 1;
    h.hdr->geo.buf_size *= 2;
    CHECK(otto_attach(r.o, 9, h.base, h.size) == -EINVAL, "buffer area past the mapping");
    h.hdr->geo.buf_size /= 2;
    h.hdr->geo.report_slots = 1u << 31;
    CHECK(otto_attach(r.o, 9, h.base, h.size) == -EINVAL, "huge report ring");
    h.hdr->geo.report_slots = r.a.geo.report_slots;
    CHECK(otto_attach(r.o, 9, h.base, h.size) == 0, "the repaired portion attaches");
    host_destroy(&h); /* detached by otto_destroy before anything reads it: keep order */
    otto_detach(r.o, 9);
    rig_down(&r);
}

/* A sender detached in the middle of a PDU: the receiver's partial reassembly is discarded,
 * so the next PDU on that VC from a new sender arrives intact. */
static void detach_mid_pdu(void)
{
    struct rig r;
    rig_up(&r, 353207.5);
    struct otto_frag rx = { 0, 65536 }, tx = { 0, 60000 };
    host_post_rx(&r.b, 0, 1, &rx, 1);
    memset(r.a.buf, 0xEE, 60000);
    host_send(&r.a, 0, 2, &tx, 1, 0);
    uint64_t now = 1000000000ull;
    for (int i = 0; i < 20; i++, now += 20000) /* 400 us: ~140 of the 1251 cells */
        otto_poll(r.o, now);
    struct otto_vc_counters c;
    otto_vc_counters(r.o, 2, 0, &c);
    CHECK(c.rx_cells > 0 && c.rx_cells < 1251, "receiver mid-PDU (%llu cells)",
          (unsigned long long)c.rx_cells);
    otto_detach(r.o, 1);
    CHECK(an2_switch_route_del(r.sw, 0, 0, 100) == 0, "route del");
    host_destroy(&r.a);
    CHECK(host_create(&r.a, 3, 2, 16, 16, BUF) == 0, "new sender");
    CHECK(otto_attach(r.o, 3, r.a.base, r.a.size) == 0 && otto_vc_bind(r.o, 3, 0, 0, 100) == 0 &&
              an2_switch_route_add(r.sw, 0, 0, 100, 0, 0, 101) == 0, "new sender up");
    memset(r.a.buf, 0x11, 500);
    struct otto_frag small = { 0, 500 };
    host_send(&r.a, 0, 3, &small, 1, 0);
    for (int i = 0; i < 200; i++, now += 20000)
        otto_poll(r.o, now);
    struct otto_report rep;
    CHECK(host_report(&r.b, &rep) && rep.status == OTTO_STATUS_OK && rep.length == 500 &&
              rep.cookie == 1, "after the detach: status %u length %u", rep.status, rep.length);
    CHECK(r.b.buf[0] == 0x11 && r.b.buf[499] == 0x11, "new PDU's payload");
    struct an2_vc_switch_counters sc;
    an2_switch_vc_counters(r.sw, 0, 0, 100, &sc);
    CHECK(sc.cells_buffered == 0, "nothing left in the switch");
    rig_down(&r);
}

int main(void)
{
    bad_descriptors();
    garbage_indices();
    bad_geometry();
    detach_mid_pdu();
    return check_exit("test_otto_protection");
}
