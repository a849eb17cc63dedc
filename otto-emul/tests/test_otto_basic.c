/* test_otto_basic.c — controller + switch, the plain path: PDUs of every size cross from one
 * task's portion to another's (two controllers, and loopback on one), reports, length
 * errors, unbind, peer gone, counters and credits; the interrupt and the polling hint. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

#define WINDOW 16u

static uint64_t rng_state = 12345;
static uint8_t rnd8(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint8_t)(rng_state >> 56);
}

static void expect_report(struct host *h, uint8_t kind, uint8_t status, uint64_t cookie,
                          uint32_t length, const char *what)
{
    struct otto_report r;
    bool got = host_report(h, &r);
    CHECK(got, "%s: no report", what);
    if (!got)
        return;
    CHECK(r.kind == kind && r.status == status && r.cookie == cookie && r.length == length,
          "%s: report kind %u status %u cookie %llu length %u (want %u %u %llu %u)", what,
          r.kind, r.status, (unsigned long long)r.cookie, r.length, kind, status,
          (unsigned long long)cookie, length);
}

/* a (vc 0 = vpi.vci_a) sends to b (vc 0 = vpi.vci_b) through the switch. */
static void exchange(struct otto **ottos, unsigned nottos, struct host *a, struct host *b,
                     struct an2_switch *sw, unsigned port_a, uint16_t vci_a)
{
    static const uint32_t sizes[] = { 0, 1, 39, 40, 41, 47, 48, 49, 95, 96, 1000, 65534, 65535 };
    enum { N = sizeof sizes / sizeof sizes[0], SLOT = 65536 };
    uint64_t now = 1000;
    for (unsigned i = 0; i < N; i++) {
        struct otto_frag f = { i * SLOT, SLOT };
        CHECK(host_post_rx(b, 0, 100 + i, &f, 1), "post rx %u", i);
    }
    for (unsigned i = 0; i < N; i++) {
        for (uint32_t j = 0; j < sizes[i]; j++)
            a->buf[i * SLOT + j] = rnd8();
        struct otto_frag f = { i * SLOT, sizes[i] };
        CHECK(host_send(a, 0, 200 + i, &f, 1, (uint8_t)i), "send %u", i);
        fabric_run(ottos, nottos, &now, 0, 100000);
    }
    for (unsigned i = 0; i < N; i++) {
        expect_report(a, OTTO_REPORT_TX, OTTO_STATUS_OK, 200 + i, sizes[i], "tx");
        struct otto_report r;
        CHECK(host_report(b, &r), "rx report %u", i);
        CHECK(r.kind == OTTO_REPORT_RX && r.status == OTTO_STATUS_OK && r.cookie == 100 + i &&
                  r.length == sizes[i] && r.uu == i && r.vc == 0,
              "rx %u: kind %u status %u cookie %llu len %u uu %u", i, r.kind, r.status,
              (unsigned long long)r.cookie, r.length, r.uu);
        CHECK(!memcmp(a->buf + i * SLOT, b->buf + i * SLOT, sizes[i]), "payload %u", i);
    }
    struct otto_report r;
    CHECK(!host_report(a, &r) && !host_report(b, &r), "no extra reports");

    struct an2_vc_switch_counters vcc;
    CHECK(an2_switch_vc_counters(sw, port_a, 0, vci_a, &vcc) == 0, "vc counters");
    uint64_t cells = 0;
    for (unsigned i = 0; i < N; i++)
        cells += (sizes[i] + 8 + 47) / 48;
    CHECK(vcc.cells_in == cells && vcc.cells_out == cells && vcc.credits_granted == cells &&
              vcc.cells_buffered == 0 && vcc.drops == 0,
          "switch VC: in %llu out %llu credits %llu buffered %u (want %llu)",
          (unsigned long long)vcc.cells_in, (unsigned long long)vcc.cells_out,
          (unsigned long long)vcc.credits_granted, vcc.cells_buffered, (unsigned long long)cells);
    struct otto_vc_counters oc;
    CHECK(otto_vc_counters(ottos[0], a->id, 0, &oc) == 0 && oc.tx_pdus == N && oc.tx_cells == cells,
          "sender counters %llu pdus %llu cells", (unsigned long long)oc.tx_pdus,
          (unsigned long long)oc.tx_cells);
    CHECK(host_canaries_intact(a) && host_canaries_intact(b), "canaries");
}

static void two_controllers(void)
{
    struct an2_switch_config sc = { .nports = 2, .vc_credit_cells = WINDOW };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { 0 };
    struct otto *A = otto_create(&oc, sw, 0), *B = otto_create(&oc, sw, 1);
    CHECK(A && B, "create");
    CHECK(otto_create(&oc, sw, 1) == NULL && errno == EBUSY, "port taken");
    struct host a, b;
    CHECK(host_create(&a, 1, 4, 16, 16, 16 * 65536) == 0, "host a");
    CHECK(host_create(&b, 2, 4, 16, 16, 16 * 65536) == 0, "host b");
    CHECK(otto_attach(A, 1, a.base, a.size) == 0, "attach a");
    CHECK(otto_attach(A, 1, a.base, a.size) == -EEXIST, "attach twice");
    CHECK(otto_attach(B, 2, b.base, b.size - 1) == -EINVAL, "attach short");
    CHECK(otto_attach(B, 2, b.base, b.size) == 0, "attach b");
    CHECK(otto_vc_bind(A, 1, 0, 0, 100) == 0 && otto_vc_bind(B, 2, 0, 0, 200) == 0, "bind");
    CHECK(otto_vc_bind(A, 1, 0, 0, 101) == -EBUSY, "bind bound VC");
    CHECK(otto_vc_bind(A, 1, 1, 0, 100) == -EBUSY, "bind used VCI");
    CHECK(otto_vc_bind(A, 1, 9, 0, 102) == -EINVAL, "bind VC out of range");
    CHECK(otto_vc_bind(A, 7, 1, 0, 102) == -ENOENT, "bind unknown portion");
    CHECK(an2_switch_route_add(sw, 0, 0, 100, 1, 0, 200) == 0, "route a->b");
    CHECK(an2_switch_route_add(sw, 1, 0, 200, 0, 0, 100) == 0, "route b->a");
    CHECK(an2_switch_route_add(sw, 1, 0, 200, 0, 0, 100) == -EEXIST, "route twice");
    CHECK(an2_switch_route_add(sw, 2, 0, 200, 0, 0, 100) == -EINVAL, "route bad port");
    struct otto *ottos[2] = { A, B };
    exchange(ottos, 2, &a, &b, sw, 0, 100);

    /* A PDU larger than the posted buffer: LENGTH_ERROR, the sender's report is OK. */
    uint64_t now = 0;
    struct otto_frag small = { 0, 100 }, big = { 0, 1000 };
    host_post_rx(&b, 0, 7, &small, 1);
    host_send(&a, 0, 8, &big, 1, 0);
    fabric_run(ottos, 2, &now, 0, 1000);
    expect_report(&a, OTTO_REPORT_TX, OTTO_STATUS_OK, 8, 1000, "tx of too big");
    struct otto_report r;
    CHECK(host_report(&b, &r) && r.status == OTTO_STATUS_LENGTH_ERROR && r.cookie == 7,
          "too big: status %u", r.status);

    /* Unbind with buffers posted: they come back ABORTED. */
    host_post_rx(&b, 0, 11, &small, 1);
    host_post_rx(&b, 0, 12, &small, 1);
    CHECK(otto_vc_unbind(B, 2, 0) == 0, "unbind");
    CHECK(otto_vc_unbind(B, 2, 0) == -ENOENT, "unbind twice");
    CHECK(otto_vc_bind(B, 2, 0, 0, 200) == 0, "rebind at once");
    fabric_run(ottos, 2, &now, 0, 1000);
    expect_report(&b, OTTO_REPORT_RX, OTTO_STATUS_ABORTED, 11, 0, "abort 11");
    expect_report(&b, OTTO_REPORT_RX, OTTO_STATUS_ABORTED, 12, 0, "abort 12");

    /* Peer gone: an event, then transmits are refused with PEER_GONE. */
    CHECK(otto_vc_peer_gone(A, 1, 0) == 0, "peer gone");
    fabric_run(ottos, 2, &now, 0, 1000);
    expect_report(&a, OTTO_REPORT_VC, OTTO_STATUS_PEER_GONE, 0, 0, "peer gone event");
    host_send(&a, 0, 21, &small, 1, 0);
    fabric_run(ottos, 2, &now, 0, 1000);
    expect_report(&a, OTTO_REPORT_TX, OTTO_STATUS_PEER_GONE, 21, 0, "send after peer gone");

    struct an2_port_counters pc;
    for (unsigned p = 0; p < 2; p++) {
        CHECK(an2_switch_port_counters(sw, p, &pc) == 0 && pc.drops == 0, "port %u drops", p);
    }
    CHECK(host_canaries_intact(&a) && host_canaries_intact(&b), "canaries");
    otto_detach(A, 1);
    otto_detach(B, 2);
    otto_destroy(A);
    otto_destroy(B);
    an2_switch_destroy(sw);
    host_destroy(&a);
    host_destroy(&b);
}

/* an2d's shape: one controller on port 0, two portions, the switch loops the VC back. */
static void loopback(void)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = WINDOW };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { 0 };
    struct otto *A = otto_create(&oc, sw, 0);
    struct host a, b;
    CHECK(host_create(&a, 1, 2, 16, 16, 16 * 65536) == 0, "host a");
    CHECK(host_create(&b, 2, 2, 16, 16, 16 * 65536) == 0, "host b");
    CHECK(otto_attach(A, 1, a.base, a.size) == 0 && otto_attach(A, 2, b.base, b.size) == 0,
          "attach");
    CHECK(otto_vc_bind(A, 1, 0, 0, 100) == 0 && otto_vc_bind(A, 2, 0, 0, 101) == 0, "bind");
    CHECK(an2_switch_route_add(sw, 0, 0, 100, 0, 0, 101) == 0 &&
              an2_switch_route_add(sw, 0, 0, 101, 0, 0, 100) == 0, "routes");
    exchange(&A, 1, &a, &b, sw, 0, 100);
    otto_destroy(A); /* detaches what is still attached */
    an2_switch_destroy(sw);
    host_destroy(&a);
    host_destroy(&b);
}

/* One controller on port 0 with two portions, a (VC 0 = VCI 100) and b (VC 0 = VCI 101); the
 * switch routes a's VC to b's. */
struct pair {
    struct an2_switch *sw;
    struct otto *otto;
    struct host a, b;
};

static void pair_create(struct pair *P, const struct otto_config *oc)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = WINDOW };
    P->sw = an2_switch_create(&sc);
    P->otto = otto_create(oc, P->sw, 0);
    CHECK(P->sw && P->otto && host_create(&P->a, 1, 1, 16, 16, 65536) == 0 &&
              host_create(&P->b, 2, 1, 16, 16, 65536) == 0, "pair");
    otto_attach(P->otto, 1, P->a.base, P->a.size);
    otto_attach(P->otto, 2, P->b.base, P->b.size);
    otto_vc_bind(P->otto, 1, 0, 0, 100);
    otto_vc_bind(P->otto, 2, 0, 0, 101);
    an2_switch_route_add(P->sw, 0, 0, 100, 0, 0, 101);
}

static void pair_destroy(struct pair *P)
{
    otto_destroy(P->otto);
    an2_switch_destroy(P->sw);
    host_destroy(&P->a);
    host_destroy(&P->b);
}

static unsigned irq_count[4];
static void on_interrupt(void *ctx, uint32_t portion_id)
{
    CHECK(ctx == (void *)irq_count, "interrupt context");
    if (portion_id < 4)
        irq_count[portion_id]++;
}

/* The emulated interrupt is raised only for a portion whose host asked for it. */
static void interrupts(void)
{
    struct otto_config oc = { .interrupt = on_interrupt, .interrupt_ctx = irq_count };
    struct pair P;
    pair_create(&P, &oc);
    struct otto *A = P.otto;
    struct host *a = &P.a, *b = &P.b;
    uint64_t now = 0;
    struct otto_frag f = { 0, 500 };
    host_post_rx(b, 0, 1, &f, 1);
    host_send(a, 0, 2, &f, 1, 0);
    fabric_run(&A, 1, &now, 0, 100);
    CHECK(irq_count[1] == 0 && irq_count[2] == 0, "interrupts nobody asked for: %u %u",
          irq_count[1], irq_count[2]);
    b->hdr->host_wants_irq = 1; /* b sleeps; a polls */
    host_post_rx(b, 0, 3, &f, 1);
    host_send(a, 0, 4, &f, 1, 0);
    fabric_run(&A, 1, &now, 0, 100);
    CHECK(irq_count[2] >= 1 && irq_count[1] == 0, "interrupt for the sleeper only: %u %u",
          irq_count[2], irq_count[1]);
    b->hdr->host_wants_irq = 0;
    unsigned before = irq_count[2];
    fabric_run(&A, 1, &now, 0, 100);
    CHECK(irq_count[2] == before, "no interrupt without a report");
    struct otto_report r;
    unsigned nb = 0;
    while (host_report(b, &r))
        nb++;
    CHECK(nb == 2, "receiver reports %u", nb);
    pair_destroy(&P);
}

static void set_hint(struct host *h, uint32_t cpu, uint32_t polls_for, uint64_t until_ns)
{
    h->hdr->host_polls_cpu = cpu;
    h->hdr->host_polls_for = polls_for;
    h->hdr->host_polls_until_ns = until_ns;
}

/* The polling hint: the controller keeps a CPU only while a host polls there under a live
 * lease for reports not yet published (TX reports do not count for an RX-only poller). */
static void polling_hint(void)
{
    struct otto_config oc = { 0 };
    struct pair P;
    pair_create(&P, &oc);
    struct otto *A = P.otto;
    struct host *a = &P.a, *b = &P.b;
    const uint64_t t = 5000000;   /* fake clock, ns */
    CHECK(!otto_hosts_only_poll_on(A, 1, t), "no hint: yield");
    set_hint(b, 1, OTTO_POLLS_RX, t + 50000);
    CHECK(otto_hosts_only_poll_on(A, 1, t), "b polls on CPU 1 for nothing yet: keep it");
    CHECK(!otto_hosts_only_poll_on(A, 0, t), "other CPU: yield");
    CHECK(!otto_hosts_only_poll_on(A, 1, t + 50000), "lease over: yield");
    set_hint(b, 1, OTTO_POLLS_RX, t + OTTO_POLL_LEASE_MAX_NS + 1);
    CHECK(!otto_hosts_only_poll_on(A, 1, t), "lease too far ahead: ignored");

    /* a sends to b: a gets a TX report, b an RX report */
    uint64_t now = t;
    struct otto_frag f = { 0, 100 };
    host_post_rx(b, 0, 1, &f, 1);
    host_send(a, 0, 2, &f, 1, 0);
    fabric_run(&A, 1, &now, 0, 100);
    set_hint(a, 1, OTTO_POLLS_RX, t + 50000);
    set_hint(b, 1, OTTO_POLLS_RX, t + 50000);
    CHECK(!otto_hosts_only_poll_on(A, 1, t), "b has its packet unread: yield");
    struct otto_report r;
    CHECK(host_report(b, &r) && r.kind == OTTO_REPORT_RX, "b's packet");
    CHECK(otto_hosts_only_poll_on(A, 1, t), "a's unread TX report does not end its RX wait");
    set_hint(a, 1, OTTO_POLLS_ANY, t + 50000);
    CHECK(!otto_hosts_only_poll_on(A, 1, t), "but it ends a wait for any report");
    CHECK(host_report(a, &r) && r.kind == OTTO_REPORT_TX, "a's TX report");
    CHECK(otto_hosts_only_poll_on(A, 1, t), "both consumed: keep the CPU");
    set_hint(a, 1, OTTO_POLLS_ANY, 0);
    set_hint(b, 1, OTTO_POLLS_RX, 0);
    CHECK(!otto_hosts_only_poll_on(A, 1, t), "hints withdrawn: yield");
    pair_destroy(&P);
}

int main(void)
{
    two_controllers();
    loopback();
    interrupts();
    polling_hint();
    return check_exit("test_otto_basic");
}
