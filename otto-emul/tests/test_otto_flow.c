/* test_otto_flow.c — credit flow control and pacing: several senders to one slow receiver lose
 * no cell, credits are conserved, a second VC on the same links keeps flowing; the link clock
 * holds the configured rate (on a simulated clock: a check of the model, not a timing); the
 * controllers say while cells wait in the switch (the holding hint). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an2_switch_port.h"
#include "check.h"
#include "harness.h"

#define WINDOW 8u
#define NSLOW 3
#define SLOW_PDUS 20
#define SLOW_LEN 5000u
#define FAST_PDUS 50
#define FAST_LEN 2000u
#define SLOT 8192u

static uint8_t pattern(unsigned stream, unsigned pdu, uint32_t i)
{
    return (uint8_t)(stream * 131 + pdu * 17 + i * 7 + (i >> 8));
}

static void several_senders_one_slow_receiver(void)
{
    struct an2_switch_config sc = { .nports = NSLOW + 1, .vc_credit_cells = WINDOW };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { 0 };
    struct otto *ottos[NSLOW + 1];
    struct host snd[NSLOW], r;
    for (unsigned i = 0; i < NSLOW; i++) {
        ottos[i] = otto_create(&oc, sw, i);
        CHECK(host_create(&snd[i], 10 + i, 2, 64, 4, 64 * SLOT) == 0, "sender %u", i);
        CHECK(otto_attach(ottos[i], 10 + i, snd[i].base, snd[i].size) == 0, "attach %u", i);
        CHECK(otto_vc_bind(ottos[i], 10 + i, 0, 0, (uint16_t)(100 + i)) == 0, "bind %u", i);
        CHECK(an2_switch_route_add(sw, i, 0, (uint16_t)(100 + i), NSLOW, 0,
                                   (uint16_t)(300 + i)) == 0, "route %u", i);
    }
    ottos[NSLOW] = otto_create(&oc, sw, NSLOW);
    CHECK(host_create(&r, 1, NSLOW + 1, 16, 64, (NSLOW + 1) * 64 * SLOT) == 0, "receiver");
    CHECK(otto_attach(ottos[NSLOW], 1, r.base, r.size) == 0, "attach receiver");
    for (unsigned i = 0; i < NSLOW; i++)
        CHECK(otto_vc_bind(ottos[NSLOW], 1, (uint16_t)i, 0, (uint16_t)(300 + i)) == 0, "rbind");
    /* The fast VC: sender 0's second VC to the receiver's last VC, same links as slow VC 0. */
    CHECK(otto_vc_bind(ottos[0], 10, 1, 0, 150) == 0, "bind fast");
    CHECK(otto_vc_bind(ottos[NSLOW], 1, NSLOW, 0, 303) == 0, "rbind fast");
    CHECK(an2_switch_route_add(sw, 0, 0, 150, NSLOW, 0, 303) == 0, "route fast");

    for (unsigned i = 0; i < NSLOW; i++)
        for (unsigned k = 0; k < SLOW_PDUS; k++) {
            uint32_t off = k * SLOT;
            for (uint32_t j = 0; j < SLOW_LEN; j++)
                snd[i].buf[off + j] = pattern(i, k, j);
            struct otto_frag f = { off, SLOW_LEN };
            CHECK(host_send(&snd[i], 0, k, &f, 1, 0), "queue slow %u/%u", i, k);
        }
    for (unsigned k = 0; k < FAST_PDUS; k++) {
        uint32_t off = (SLOW_PDUS + (k % 40)) * SLOT;
        for (uint32_t j = 0; j < FAST_LEN; j++)
            snd[0].buf[off + j] = pattern(9, k, j);
        /* The ring holds 64: queue what fits now, the rest as it frees up (below). */
    }
    for (unsigned k = 0; k < FAST_PDUS; k++) {
        struct otto_frag f = { (NSLOW * 64 + k) * SLOT, SLOT };
        CHECK(host_post_rx(&r, NSLOW, 1000 + k, &f, 1), "post fast %u", k);
    }

    unsigned fast_sent = 0, fast_done = 0, slow_done[NSLOW] = { 0 }, slow_posted[NSLOW] = { 0 };
    unsigned slow_done_when_fast_finished = ~0u;
    uint64_t now = 0;
    for (unsigned round = 0; round < 200000; round++) {
        while (fast_sent < FAST_PDUS) {
            uint32_t off = (SLOW_PDUS + (fast_sent % 40)) * SLOT;
            for (uint32_t j = 0; j < FAST_LEN; j++)
                snd[0].buf[off + j] = pattern(9, fast_sent, j);
            struct otto_frag f = { off, FAST_LEN };
            if (!host_send(&snd[0], 1, 500 + fast_sent, &f, 1, 0))
                break;
            fast_sent++;
            break; /* one per round: the sender's buffers are reused only after their report */
        }
        for (unsigned i = 0; i <= NSLOW; i++)
            otto_poll(ottos[i], now);
        /* The slow receiver posts one buffer per slow VC every 50 rounds. */
        if (round % 50 == 0)
            for (unsigned i = 0; i < NSLOW; i++)
                if (slow_posted[i] < SLOW_PDUS) {
                    struct otto_frag f = { (i * 64 + slow_posted[i] % 64) * SLOT, SLOT };
                    host_post_rx(&r, (uint16_t)i, slow_posted[i], &f, 1);
                    slow_posted[i]++;
                }
        struct otto_report rep;
        while (host_report(&r, &rep)) {
            CHECK(rep.kind == OTTO_REPORT_RX && rep.status == OTTO_STATUS_OK, "rx status %u vc %u",
                  rep.status, rep.vc);
            if (rep.vc == NSLOW) {
                unsigned k = (unsigned)(rep.cookie - 1000);
                CHECK(k == fast_done && rep.length == FAST_LEN, "fast order %u/%u", k, fast_done);
                const uint8_t *p = r.buf + (NSLOW * 64 + k) * SLOT;
                bool same = true;
                for (uint32_t j = 0; j < FAST_LEN && same; j++)
                    same = p[j] == pattern(9, k, j);
                CHECK(same, "fast payload %u", k);
                if (++fast_done == FAST_PDUS) {
                    slow_done_when_fast_finished = 0;
                    for (unsigned i = 0; i < NSLOW; i++)
                        slow_done_when_fast_finished += slow_done[i];
                }
            } else {
                unsigned i = rep.vc, k = (unsigned)rep.cookie;
                CHECK(i < NSLOW && k == slow_done[i] && rep.length == SLOW_LEN, "slow order");
                const uint8_t *p = r.buf + (i * 64 + k % 64) * SLOT;
                bool same = true;
                for (uint32_t j = 0; j < SLOW_LEN && same; j++)
                    same = p[j] == pattern(i, k, j);
                CHECK(same, "slow payload %u/%u", i, k);
                slow_done[i]++;
            }
        }
        for (unsigned i = 0; i < NSLOW; i++)
            while (host_report(&snd[i], &rep))
                CHECK(rep.status == OTTO_STATUS_OK, "tx status %u", rep.status);
        /* Credits are conserved on every link, at every step: the sender's credit plus the
         * cells the switch holds is the window. */
        for (unsigned i = 0; i < NSLOW; i++) {
            struct an2_vc_switch_counters c;
            an2_switch_vc_counters(sw, i, 0, (uint16_t)(100 + i), &c);
            uint32_t credit = an2_switch_tx_credit(sw, i, 0, (uint16_t)(100 + i));
            CHECK(credit + c.cells_buffered == WINDOW, "credit %u + buffered %u", credit,
                  c.cells_buffered);
            CHECK(c.cells_in == c.cells_out + c.cells_buffered, "cells conserved");
        }
        bool all = fast_done == FAST_PDUS;
        for (unsigned i = 0; i < NSLOW; i++)
            all &= slow_done[i] == SLOW_PDUS;
        if (all)
            break;
    }
    CHECK(fast_done == FAST_PDUS, "fast VC done: %u", fast_done);
    for (unsigned i = 0; i < NSLOW; i++)
        CHECK(slow_done[i] == SLOW_PDUS, "slow VC %u done: %u", i, slow_done[i]);
    CHECK(slow_done_when_fast_finished < NSLOW * SLOW_PDUS / 2,
          "the fast VC was held up by the slow ones (%u slow PDUs were done)",
          slow_done_when_fast_finished);

    uint64_t stalls = 0;
    for (unsigned i = 0; i < NSLOW; i++) {
        struct an2_vc_switch_counters c;
        an2_switch_vc_counters(sw, i, 0, (uint16_t)(100 + i), &c);
        uint64_t cells = SLOW_PDUS * ((SLOW_LEN + 8 + 47) / 48);
        CHECK(c.cells_in == cells && c.cells_out == cells && c.credits_granted == cells &&
                  c.drops == 0 && c.cells_buffered == 0, "slow VC %u counters", i);
        stalls += c.stalls;
    }
    printf("slow receiver: %llu stalls; %u slow PDUs done when the fast VC finished\n",
           (unsigned long long)stalls, slow_done_when_fast_finished);
    CHECK(stalls > 0, "the slow receiver never stalled anyone: the test tests nothing");
    for (unsigned p = 0; p <= NSLOW; p++) {
        struct an2_port_counters pc;
        an2_switch_port_counters(sw, p, &pc);
        CHECK(pc.drops == 0, "port %u drops %llu", p, (unsigned long long)pc.drops);
    }
    CHECK(host_canaries_intact(&r), "receiver canaries");
    for (unsigned i = 0; i <= NSLOW; i++)
        otto_destroy(ottos[i]);
    an2_switch_destroy(sw);
    for (unsigned i = 0; i < NSLOW; i++)
        host_destroy(&snd[i]);
    host_destroy(&r);
}

/* Streams PDUs of len bytes for sim_ns of simulated time, the clock moving by steps drawn
 * from [0, max_step_ns]; returns the cells that reached the receiver. */
static uint64_t paced_stream(double rate, uint32_t len, uint64_t sim_ns, uint64_t max_step_ns,
                             uint64_t stall_ns, unsigned nvcs, uint64_t *max_burst)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 64, .cells_per_second = rate };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { .cells_per_second = rate };
    struct otto *o = otto_create(&oc, sw, 0);
    struct host a, b;
    host_create(&a, 1, nvcs, 64, 64, 64 * 65536);
    host_create(&b, 2, nvcs, 64, 64, 64 * 65536);
    otto_attach(o, 1, a.base, a.size);
    otto_attach(o, 2, b.base, b.size);
    for (unsigned v = 0; v < nvcs; v++) {
        otto_vc_bind(o, 1, (uint16_t)v, 0, (uint16_t)(100 + v));
        otto_vc_bind(o, 2, (uint16_t)v, 0, (uint16_t)(200 + v));
        an2_switch_route_add(sw, 0, 0, (uint16_t)(100 + v), 0, 0, (uint16_t)(200 + v));
    }
    uint64_t now = 1000000000ull, end = now + sim_ns, rng = 42, last_cells = 0;
    *max_burst = 0;
    uint64_t cells = 0;
    while (now < end) {
        for (unsigned v = 0; v < nvcs; v++) {
            struct otto_frag f = { v * 65536, len };
            while (host_send(&a, (uint16_t)v, 0, &f, 1, 0))
                ;
            while (host_post_rx(&b, (uint16_t)v, 0, &f, 1))
                ;
        }
        otto_poll(o, now);
        struct otto_report rep;
        while (host_report(&a, &rep))
            ;
        while (host_report(&b, &rep))
            ;
        struct an2_port_counters pc;
        an2_switch_port_counters(sw, 0, &pc);
        cells = pc.cells_out;
        if (cells - last_cells > *max_burst)
            *max_burst = cells - last_cells;
        last_cells = cells;
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        now += max_step_ns ? (rng >> 33) % (max_step_ns + 1) : 1000;
        if (stall_ns && (rng >> 20) % 1000 == 0)
            now += stall_ns; /* the emulator descheduled: the link owes what it could send */
    }
    otto_destroy(o);
    an2_switch_destroy(sw);
    host_destroy(&a);
    host_destroy(&b);
    return cells;
}

static void pacing(void)
{
    const double oc3 = 353207.5; /* OC-3c: 149.76 Mb/s of SONET payload / 424 bits */
    const uint64_t sim = 200000000ull; /* 200 ms */
    double want = oc3 * sim / 1e9;
    uint64_t burst;
    uint64_t got = paced_stream(oc3, 9180, sim, 20000, 0, 1, &burst);
    printf("pacing: %llu cells of %.0f, largest burst %llu\n", (unsigned long long)got, want,
           (unsigned long long)burst);
    CHECK(got >= want * 0.99 && got <= want * 1.01, "OC-3c, steps <= 20 us: %llu cells, want %.0f",
          (unsigned long long)got, want);
    CHECK(burst <= 32 + 8, "burst %llu cells", (unsigned long long)burst);
    /* Polls that come as late as 80 us lose nothing: the burst allowance covers them. */
    got = paced_stream(oc3, 65535, sim, 80000, 0, 2, &burst);
    CHECK(got >= want * 0.99 && got <= want * 1.01, "OC-3c, 2 VCs, steps <= 80 us: %llu, want %.0f",
          (unsigned long long)got, want);
    got = paced_stream(4 * oc3, 1000, sim / 4, 5000, 0, 3, &burst);
    CHECK(got >= want * 0.99 && got <= want * 1.01, "OC-12c, 3 VCs: %llu cells, want %.0f",
          (unsigned long long)got, want);
    got = paced_stream(oc3, 256, sim, 10000, 0, 1, &burst);
    printf("pacing 256 B: %llu cells of %.0f, largest burst %llu\n",
           (unsigned long long)got, want, (unsigned long long)burst);
    CHECK(got >= want * 0.99 && got <= want * 1.01, "OC-3c, 256 B PDUs: %llu, want %.0f",
          (unsigned long long)got, want);
    /* Now and then a poll comes 1.5 ms late: a backlogged link catches up (within its
     * LINK_PACER_CATCHUP_NS); the burst is what it owed, 1.5 ms of cells and a step. */
    got = paced_stream(oc3, 1000, sim, 10000, 1500000, 1, &burst);
    printf("pacing with stalls: %llu cells of %.0f, largest burst %llu\n",
           (unsigned long long)got, want, (unsigned long long)burst);
    CHECK(got >= want * 0.99 && got <= want * 1.01, "OC-3c with stalls: %llu, want %.0f",
          (unsigned long long)got, want);
    CHECK(burst <= 1.5e-3 * oc3 + 40, "catch-up burst %llu cells", (unsigned long long)burst);
    /* A link that was idle sends at most its small burst at once. */
    got = paced_stream(oc3, 65535, 1000, 0, 0, 1, &burst);
    CHECK(got <= 32 + 1, "after idling: %llu cells at once", (unsigned long long)got);
}

/* Both controllers until nothing moves, then each publishes its holding hint (as an2d does
 * after every pass). */
static void run_and_publish(struct otto **ottos, uint64_t *now)
{
    fabric_run(ottos, 2, now, 0, 1000);
    for (unsigned i = 0; i < 2; i++)
        otto_publish_holding(ottos[i]);
}

/* The holding hint (otto_hw.h): while cells a controller sent wait in the switch for a
 * receiver's buffers, every portion on the switch says so; once delivered, none does. */
static void holding_hint(void)
{
    struct an2_switch_config sc = { .nports = 2, .vc_credit_cells = WINDOW };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { 0 };
    struct otto *ottos[2] = { otto_create(&oc, sw, 0), otto_create(&oc, sw, 1) };
    struct host s, r;
    CHECK(host_create(&s, 10, 1, 8, 4, 4 * SLOT) == 0, "sender");
    CHECK(host_create(&r, 11, 1, 8, 4, 4 * SLOT) == 0, "receiver");
    CHECK(otto_attach(ottos[0], 10, s.base, s.size) == 0 &&
          otto_attach(ottos[1], 11, r.base, r.size) == 0, "attach");
    CHECK(otto_vc_bind(ottos[0], 10, 0, 0, 100) == 0 && otto_vc_bind(ottos[1], 11, 0, 0, 200) == 0,
          "bind");
    CHECK(an2_switch_route_add(sw, 0, 0, 100, 1, 0, 200) == 0, "route");
    uint64_t now = 0;
    run_and_publish(ottos, &now);
    CHECK(!s.hdr->controller_holds_cells && !r.hdr->controller_holds_cells, "idle: nothing held");
    struct otto_frag f = { 0, FAST_LEN };
    memset(s.buf, 0x5a, FAST_LEN);
    CHECK(host_send(&s, 0, 1, &f, 1, 0), "send");
    run_and_publish(ottos, &now);   /* no receive buffer: the cells wait in the switch */
    CHECK(s.hdr->controller_holds_cells == 1 && r.hdr->controller_holds_cells == 1,
          "cells waiting for a receive buffer: held %u/%u", s.hdr->controller_holds_cells,
          r.hdr->controller_holds_cells);
    struct otto_frag rf = { SLOT, SLOT };
    CHECK(host_post_rx(&r, 0, 7, &rf, 1), "post");
    run_and_publish(ottos, &now);
    struct otto_report rep;
    bool received = false;
    while (host_report(&r, &rep))
        received |= rep.kind == OTTO_REPORT_RX && rep.length == FAST_LEN;
    CHECK(received, "the PDU arrived");
    CHECK(!s.hdr->controller_holds_cells && !r.hdr->controller_holds_cells,
          "delivered: nothing held (%u/%u)", s.hdr->controller_holds_cells,
          r.hdr->controller_holds_cells);
    for (unsigned i = 0; i < 2; i++)
        otto_destroy(ottos[i]);
    host_destroy(&s);
    host_destroy(&r);
    an2_switch_destroy(sw);
}

int main(void)
{
    several_senders_one_slow_receiver();
    holding_hint();
    pacing();
    return check_exit("test_otto_flow");
}
