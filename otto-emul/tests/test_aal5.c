/* test_aal5.c — AAL5 primitives: CRC-32 and HEC check values, a bit-by-bit CRC, cell headers,
 * segmentation and reassembly round trips (cell by cell and in stretches), and the 65,536-byte
 * refusal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aal5_cell.h"
#include "aal5_crc32.h"
#include "aal5_pdu.h"
#include "aal5_reasm.h"
#include "check.h"

/* The textbook definition, one bit at a time: nothing shared with the library. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t len)
{
    uint32_t reg = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++)
        for (int b = 7; b >= 0; b--) {
            uint32_t in = (uint32_t)(p[i] >> b) & 1;
            uint32_t top = reg >> 31;
            reg <<= 1;
            if (top ^ in)
                reg ^= 0x04C11DB7u;
        }
    return ~reg;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static void test_crc32(void)
{
    const char *check = "123456789";
    CHECK(aal5_crc32(check, 9) == 0xFC891918u, "crc32 check %08x", aal5_crc32(check, 9));
    CHECK(~aal5_crc32_update_table(AAL5_CRC32_INIT, check, 9) == 0xFC891918u, "table check");
    CHECK(crc32_bitwise((const uint8_t *)check, 9) == 0xFC891918u, "bitwise reference check");
    printf("crc32: engine %s\n", aal5_crc32_engine());

    /* Both engines against the bit-by-bit reference, every length up to 300 and at random
     * offsets, and split at random points (the register carries across calls). */
    static uint8_t buf[4096 + 16];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)rng();
    for (size_t len = 0; len <= 4096; len += len < 600 ? 1 : 97) {
        size_t off = rng() % 16;
        uint32_t want = crc32_bitwise(buf + off, len);
        uint32_t t = ~aal5_crc32_update_table(AAL5_CRC32_INIT, buf + off, len);
        uint32_t c = ~aal5_crc32_update_clmul(AAL5_CRC32_INIT, buf + off, len);
        uint32_t v = ~aal5_crc32_update_vpclmul(AAL5_CRC32_INIT, buf + off, len);
        CHECK(t == want, "table len %zu: %08x want %08x", len, t, want);
        CHECK(c == want, "clmul len %zu: %08x want %08x", len, c, want);
        CHECK(v == want, "vpclmul len %zu: %08x want %08x", len, v, want);
        static uint8_t copy_out[4096 + 16];
        memset(copy_out, 0, sizeof copy_out);
        uint32_t vc = ~aal5_crc32_copy_vpclmul(AAL5_CRC32_INIT, copy_out + 3, buf + off, len);
        CHECK(vc == want && !memcmp(copy_out + 3, buf + off, len) && copy_out[3 + len] == 0 &&
                  copy_out[2] == 0, "vpclmul copy len %zu", len);
        size_t cut = len ? rng() % len : 0;
        uint32_t reg = aal5_crc32_update(AAL5_CRC32_INIT, buf + off, cut);
        reg = aal5_crc32_update(reg, buf + off + cut, len - cut);
        CHECK(~reg == want, "split len %zu at %zu", len, cut);
    }
    uint8_t copy[4096];
    uint32_t reg = aal5_crc32_copy(AAL5_CRC32_INIT, copy, buf, sizeof copy);
    CHECK(~reg == crc32_bitwise(buf, sizeof copy) && !memcmp(copy, buf, sizeof copy),
          "fused copy + crc");

    /* The residue: a message followed by its own CRC (big-endian). */
    uint8_t msg[13];
    memcpy(msg, check, 9);
    uint32_t crc = 0xFC891918u;
    msg[9] = (uint8_t)(crc >> 24), msg[10] = (uint8_t)(crc >> 16);
    msg[11] = (uint8_t)(crc >> 8), msg[12] = (uint8_t)crc;
    CHECK(aal5_crc32_update(AAL5_CRC32_INIT, msg, 13) == AAL5_CRC32_RESIDUE, "residue %08x",
          aal5_crc32_update(AAL5_CRC32_INIT, msg, 13));
}

static void test_hec(void)
{
    CHECK(aal5_crc8("123456789", 9) == 0xF4, "CRC-8 check value %02x", aal5_crc8("123456789", 9));
    CHECK((aal5_crc8("123456789", 9) ^ 0x55) == 0xA1, "CRC-8/I-432-1 check value");
    const uint8_t idle[4] = { 0, 0, 0, 1 }; /* the idle cell header of I.432: HEC 0x52 */
    CHECK(aal5_hec(idle) == 0x52, "idle cell HEC %02x", aal5_hec(idle));

    struct aal5_cell_header h = { .gfc = 0, .vpi = 0xA5, .vci = 0xBEEF, .pti = 1, .clp = 1 }, g;
    uint8_t raw[5];
    aal5_cell_header_encode(raw, &h);
    CHECK(aal5_cell_header_decode(raw, &g) == 0, "decode");
    CHECK(g.vpi == 0xA5 && g.vci == 0xBEEF && g.pti == 1 && g.clp == 1 && g.gfc == 0,
          "header round trip");
    CHECK(raw[0] == 0x0A && raw[1] == 0x5B && raw[2] == 0xEE && raw[3] == 0xF3,
          "header bytes %02x %02x %02x %02x", raw[0], raw[1], raw[2], raw[3]);
    for (int bit = 0; bit < 40; bit++) {
        uint8_t bad[5];
        memcpy(bad, raw, 5);
        bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        CHECK(aal5_cell_header_decode(bad, &g) == -EBADMSG, "single-bit header error %d", bit);
    }
}

/* Segments len bytes, checks every cell, reassembles into an exact-size buffer. */
static void sar_round_trip(size_t len)
{
    static uint8_t payload[AAL5_MAX_PAYLOAD + 1], out[AAL5_MAX_PAYLOAD + 64];
    static uint8_t cells[(AAL5_MAX_CELLS + 1) * AAL5_CELL_BYTES];
    for (size_t i = 0; i < len; i++)
        payload[i] = (uint8_t)rng();
    int n = aal5_segment(payload, len, 0x5a, 0, 7, 1234, cells, AAL5_MAX_CELLS + 1);
    CHECK(n == (int)((len + 8 + 47) / 48), "len %zu: %d cells", len, n);
    if (n <= 0)
        return;

    /* Trailer and CRC as computed by the bit-by-bit reference over the whole CPCS-PDU. */
    static uint8_t cpcs[(AAL5_MAX_CELLS + 1) * AAL5_CELL_PAYLOAD];
    for (int i = 0; i < n; i++)
        memcpy(cpcs + i * 48, cells + i * 53 + 5, 48);
    size_t total = (size_t)n * 48;
    uint32_t crc_field = (uint32_t)cpcs[total - 4] << 24 | (uint32_t)cpcs[total - 3] << 16 |
                         (uint32_t)cpcs[total - 2] << 8 | cpcs[total - 1];
    CHECK(crc_field == crc32_bitwise(cpcs, total - 4), "len %zu: PDU CRC vs bitwise", len);
    CHECK((cpcs[total - 6] << 8 | cpcs[total - 5]) == (int)len, "len %zu: Length field", len);
    CHECK(cpcs[total - 8] == 0x5a && cpcs[total - 7] == 0, "len %zu: UU, CPI", len);
    for (size_t i = len; i < total - 8; i++)
        CHECK(cpcs[i] == 0, "len %zu: pad byte %zu", len, i);
    CHECK(!memcmp(cpcs, payload, len), "len %zu: payload in cells", len);

    struct aal5_reasm r;
    struct aal5_dest d = { out, (uint32_t)len };
    aal5_reasm_start(&r, &d, 1);
    for (int i = 0; i < n; i++) {
        struct aal5_cell_header h;
        CHECK(aal5_cell_header_decode(cells + i * 53, &h) == 0, "HEC of cell %d", i);
        CHECK(h.vpi == 7 && h.vci == 1234, "VPI/VCI of cell %d", i);
        CHECK(aal5_pti_is_eop(h.pti) == (i == n - 1), "len %zu: EOP bit on cell %d", len, i);
        aal5_reasm_bytes(&r, cells + i * 53 + 5, 48);
    }
    struct aal5_rx_result res;
    aal5_reasm_finish(&r, &res);
    CHECK(res.status == AAL5_OK && res.length == len && res.uu == 0x5a,
          "len %zu: reassembly status %d length %u", len, res.status, res.length);
    CHECK(!memcmp(out, payload, len), "len %zu: reassembled payload", len);

    /* One byte of buffer too few: a length error, not a truncated good PDU. */
    if (len) {
        d.len = (uint32_t)len - 1;
        aal5_reasm_start(&r, &d, 1);
        for (int i = 0; i < n; i++)
            aal5_reasm_bytes(&r, cells + i * 53 + 5, 48);
        aal5_reasm_finish(&r, &res);
        CHECK(res.status == AAL5_LENGTH_ERROR, "len %zu: short buffer gives %d", len, res.status);
    }
    /* Any flipped payload bit: a CRC error. */
    size_t bit = rng() % (total * 8);
    cells[(bit / 8 / 48) * 53 + 5 + (bit / 8) % 48] ^= (uint8_t)(1u << (bit % 8));
    d.len = (uint32_t)len;
    aal5_reasm_start(&r, &d, 1);
    for (int i = 0; i < n; i++)
        aal5_reasm_bytes(&r, cells + i * 53 + 5, 48);
    aal5_reasm_finish(&r, &res);
    CHECK(res.status != AAL5_OK, "len %zu: corrupted bit %zu accepted", len, bit);
}

static void test_sar(void)
{
    static const size_t sizes[] = { 0, 1, 39, 40, 41, 47, 48, 49, 95, 96, 1000, 65534, 65535 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        sar_round_trip(sizes[i]);

    static uint8_t big[65536];
    static uint8_t cells[(AAL5_MAX_CELLS + 2) * AAL5_CELL_BYTES];
    CHECK(aal5_segment(big, 65536, 0, 0, 0, 40, cells, AAL5_MAX_CELLS + 2) == -EMSGSIZE,
          "65,536 bytes refused with -EMSGSIZE");
    struct aal5_tx_pdu pdu;
    struct aal5_span two[2] = { { big, 40000 }, { big, 25536 } };
    CHECK(aal5_tx_pdu_init(&pdu, two, 2, 0, 0) == -EMSGSIZE, "65,536 in two fragments refused");

    /* Fragments at odd boundaries reassemble to their concatenation. */
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)rng();
    struct aal5_span frags[8];
    uint32_t off = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t len = rng() % 700;
        frags[i] = (struct aal5_span){ big + off, len };
        off += len;
    }
    CHECK(aal5_tx_pdu_init(&pdu, frags, 8, 1, 0) == 0, "fragmented init");
    aal5_tx_pdu_crc_through(&pdu, pdu.ncells);
    static uint8_t out[8192];
    struct aal5_reasm r;
    struct aal5_dest dests[3] = { { out, 5 }, { out + 100, 1000 }, { out + 2000, 6000 } };
    aal5_reasm_start(&r, dests, 3);
    for (uint32_t i = 0; i < pdu.ncells; i++) {
        uint8_t cell[53];
        aal5_tx_pdu_cell(&pdu, i, 0, 99, cell);
        aal5_reasm_bytes(&r, cell + 5, 48);
    }
    struct aal5_rx_result res;
    aal5_reasm_finish(&r, &res);
    CHECK(res.status == AAL5_OK && res.length == off, "fragmented status %d len %u/%u",
          res.status, res.length, off);
    CHECK(!memcmp(out, big, 5) && !memcmp(out + 100, big + 5, off > 1005 ? 1000 : off - 5),
          "scattered payload");

    /* A lost cell: never OK. */
    int n = aal5_segment(big, 5000, 0, 0, 0, 40, cells, AAL5_MAX_CELLS + 2);
    for (int lost = 0; lost < n; lost++) {
        aal5_reasm_start(&r, &(struct aal5_dest){ out, sizeof out }, 1);
        for (int i = 0; i < n; i++)
            if (i != lost)
                aal5_reasm_bytes(&r, cells + i * 53 + 5, 48);
        aal5_reasm_finish(&r, &res);
        CHECK(res.status != AAL5_OK, "lost cell %d accepted", lost);
    }
}

/* Cells in stretches (aal5_tx_pdu_cells, aal5_reasm_cells) are the cells one at a time. */
static void test_stretches(void)
{
    static uint8_t big[65535];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)rng();
    static uint8_t one[AAL5_MAX_CELLS * AAL5_CELL_BYTES], many[AAL5_MAX_CELLS * AAL5_CELL_BYTES];
    static uint8_t out1[65536], out2[65536];
    for (int trial = 0; trial < 20; trial++) {
        struct aal5_span frags[8];
        uint32_t off = 0;
        for (int i = 0; i < 8; i++) {
            uint32_t len = trial ? rng() % 8192 : (i ? 0 : 65535);
            frags[i] = (struct aal5_span){ big + off, len };
            off += len;
        }
        struct aal5_tx_pdu pdu;
        CHECK(aal5_tx_pdu_init(&pdu, frags, 8, 7, 0) == 0, "trial %d: init", trial);
        aal5_tx_pdu_crc_through(&pdu, pdu.ncells);
        for (uint32_t i = 0; i < pdu.ncells; i++)
            aal5_tx_pdu_cell(&pdu, i, 3, 1234, one + (size_t)i * AAL5_CELL_BYTES);
        for (uint32_t i = 0; i < pdu.ncells;) { /* stretches of uneven length */
            uint32_t n = 1 + rng() % 100;
            if (n > pdu.ncells - i)
                n = pdu.ncells - i;
            aal5_tx_pdu_cells(&pdu, i, n, 3, 1234, many + (size_t)i * AAL5_CELL_BYTES);
            i += n;
        }
        CHECK(!memcmp(one, many, (size_t)pdu.ncells * AAL5_CELL_BYTES),
              "trial %d: %u cells in stretches differ", trial, pdu.ncells);

        /* reassembled in stretches, into scattered buffers that may be too short */
        uint32_t cap = trial % 3 ? 65535 : off / 2;
        struct aal5_dest d1[2] = { { out1, 100 }, { out1 + 200, cap } };
        struct aal5_dest d2[2] = { { out2, 100 }, { out2 + 200, cap } };
        struct aal5_reasm r1, r2;
        aal5_reasm_start(&r1, d1, 2);
        aal5_reasm_start(&r2, d2, 2);
        for (uint32_t i = 0; i < pdu.ncells; i++)
            aal5_reasm_bytes(&r1, one + (size_t)i * AAL5_CELL_BYTES + 5, 48);
        for (uint32_t i = 0; i < pdu.ncells;) {
            uint32_t n = 1 + rng() % 200;
            if (n > pdu.ncells - i)
                n = pdu.ncells - i;
            aal5_reasm_cells(&r2, many + (size_t)i * AAL5_CELL_BYTES, n);
            i += n;
        }
        struct aal5_rx_result a, b;
        aal5_reasm_finish(&r1, &a);
        aal5_reasm_finish(&r2, &b);
        CHECK(a.status == b.status && a.length == b.length && a.uu == b.uu &&
                  a.ncells == b.ncells && !memcmp(out1, out2, sizeof out1),
              "trial %d: reassembled in stretches: status %d/%d length %u/%u", trial, a.status,
              b.status, a.length, b.length);
        CHECK(trial % 3 == 0 || (b.status == AAL5_OK && b.length == off),
              "trial %d: status %d length %u/%u", trial, b.status, b.length, off);
    }
}

int main(void)
{
    test_crc32();
    test_hec();
    test_sar();
    test_stretches();
    return check_exit("test_aal5");
}
