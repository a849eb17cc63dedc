/* test_otto_faults.c — injected bit errors and cell loss: every PDU the fault touched is
 * reported as a CRC or length error, and nothing wrong is ever delivered as good. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

#define NPDUS 600
#define SLOT 8192u

static uint8_t pattern(uint32_t seq, uint32_t i)
{
    return (uint8_t)(seq * 2654435761u >> 13 ^ i * 31 ^ i >> 7);
}

/* Writes PDU seq: 4 bytes seq, 4 bytes length, then the pattern. */
static uint32_t make_pdu(uint8_t *p, uint32_t seq, uint32_t len)
{
    memcpy(p, &seq, 4);
    memcpy(p + 4, &len, 4);
    for (uint32_t i = 8; i < len; i++)
        p[i] = pattern(seq, i);
    return len;
}

static bool pdu_intact(const uint8_t *p, uint32_t len)
{
    uint32_t seq, want;
    if (len < 8)
        return false;
    memcpy(&seq, p, 4);
    memcpy(&want, p + 4, 4);
    if (want != len || seq >= NPDUS)
        return false;
    for (uint32_t i = 8; i < len; i++)
        if (p[i] != pattern(seq, i))
            return false;
    return true;
}

struct outcome {
    unsigned ok, crc, length, reports;
};

static struct outcome run(double ber, double clr, uint64_t seed)
{
    struct outcome out = { 0 };
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 32 };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { .bit_error_rate = ber, .cell_loss_rate = clr, .fault_seed = seed };
    struct otto *o = otto_create(&oc, sw, 0);
    struct host a, b;
    CHECK(host_create(&a, 1, 1, 16, 16, 16 * SLOT) == 0 && host_create(&b, 2, 1, 16, 16, 16 * SLOT) == 0,
          "hosts");
    otto_attach(o, 1, a.base, a.size);
    otto_attach(o, 2, b.base, b.size);
    otto_vc_bind(o, 1, 0, 0, 100);
    otto_vc_bind(o, 2, 0, 0, 101);
    an2_switch_route_add(sw, 0, 0, 100, 0, 0, 101);
    uint64_t now = 0, rng = seed;
    for (uint32_t seq = 0; seq < NPDUS; seq++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t len = 8 + (uint32_t)(rng >> 33) % (SLOT - 8);
        uint32_t slot = seq % 16;
        make_pdu(a.buf + slot * SLOT, seq, len);
        struct otto_frag f = { slot * SLOT, len }, rf = { slot * SLOT, SLOT };
        host_post_rx(&b, 0, seq, &rf, 1);
        host_send(&a, 0, seq, &f, 1, 0);
        fabric_run(&o, 1, &now, 0, 1000);
        struct otto_report r;
        while (host_report(&a, &r))
            CHECK(r.status == OTTO_STATUS_OK, "tx status %u", r.status);
        while (host_report(&b, &r)) {
            out.reports++;
            if (r.status == OTTO_STATUS_OK) {
                out.ok++;
                /* Delivered as good: it must be exactly a PDU that was sent. */
                const uint8_t *p = b.buf + (r.cookie % 16) * SLOT;
                CHECK(pdu_intact(p, r.length), "corrupted PDU delivered as good (report %llu)",
                      (unsigned long long)r.cookie);
            } else if (r.status == OTTO_STATUS_CRC_ERROR) {
                out.crc++;
            } else if (r.status == OTTO_STATUS_LENGTH_ERROR) {
                out.length++;
            } else {
                CHECK(0, "unexpected status %u", r.status);
            }
        }
    }
    struct otto_vc_counters c;
    otto_vc_counters(o, 2, 0, &c);
    CHECK(c.crc_errors == out.crc && c.length_errors == out.length && c.rx_pdus == out.ok,
          "counters agree with the reports");
    struct an2_port_counters pc;
    an2_switch_port_counters(sw, 0, &pc);
    CHECK(pc.drops == 0, "the switch dropped nothing itself");
    struct otto_counters occ;
    CHECK(otto_get_counters(o, &occ) == 0, "controller counters");
    CHECK((ber > 0) == (occ.bits_flipped > 0) && (clr > 0) == (occ.cells_lost > 0) &&
              occ.unknown_vc_cells == 0 && occ.hec_errors == 0,
          "injector counters: %llu bits flipped, %llu cells lost",
          (unsigned long long)occ.bits_flipped, (unsigned long long)occ.cells_lost);
    otto_destroy(o);
    an2_switch_destroy(sw);
    host_destroy(&a);
    host_destroy(&b);
    printf("ber %g clr %g: %u reports, %u ok, %u crc errors, %u length errors\n", ber, clr,
           out.reports, out.ok, out.crc, out.length);
    return out;
}

int main(void)
{
    /* Bit errors alone: one report per PDU; every damaged one is a CRC error. */
    struct outcome o = run(2e-6, 0, 1);
    CHECK(o.reports == NPDUS, "bit errors: %u reports for %u PDUs", o.reports, NPDUS);
    CHECK(o.crc > 20 && o.ok > 20 && o.length == 0, "bit errors: %u crc, %u ok, %u length", o.crc,
          o.ok, o.length);
    /* Cell loss alone: a lost last cell merges two PDUs into one bad one. */
    o = run(0, 2e-3, 2);
    CHECK(o.crc + o.length > 20 && o.ok > 20, "cell loss: %u crc, %u length, %u ok", o.crc,
          o.length, o.ok);
    /* Both, heavily. */
    o = run(1e-4, 1e-2, 3);
    CHECK(o.crc + o.length > 100, "both: %u errors", o.crc + o.length);
    /* No faults configured: nothing goes wrong. */
    o = run(0, 0, 4);
    CHECK(o.ok == NPDUS && o.crc + o.length == 0, "clean: %u ok", o.ok);
    return check_exit("test_otto_faults");
}
