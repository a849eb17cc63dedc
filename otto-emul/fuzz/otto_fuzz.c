/* otto_fuzz.c — libFuzzer target: AAL5 reassembly of arbitrary cells, and the controller
 * facing arbitrary descriptor memory (rings, indices, descriptors) of a portion. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aal5_cell.h"
#include "aal5_crc32.h"
#include "aal5_pdu.h"
#include "aal5_reasm.h"
#include "an2_switch.h"
#include "otto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CANARY 4096u

/* Arbitrary cells into the reassembler; whatever it calls good must be self-consistent. */
static void fuzz_reassembly(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    uint32_t cap = (uint32_t)data[0] << 8 | data[1];
    data += 2;
    size -= 2;
    uint8_t *mem = malloc(cap + 2 * CANARY);
    memset(mem, 0xA5, cap + 2 * CANARY);
    struct aal5_dest d = { mem + CANARY, cap };
    static uint8_t stream[(AAL5_MAX_CELLS + 1) * AAL5_CELL_PAYLOAD];
    uint32_t stream_len = 0;
    struct aal5_reasm r;
    aal5_reasm_start(&r, &d, 1);
    for (; size >= AAL5_CELL_BYTES; data += AAL5_CELL_BYTES, size -= AAL5_CELL_BYTES) {
        struct aal5_cell_header h;
        if (aal5_cell_header_decode(data, &h) != 0)
            continue;
        aal5_reasm_bytes(&r, data + AAL5_HEADER_BYTES, AAL5_CELL_PAYLOAD);
        if (stream_len + AAL5_CELL_PAYLOAD <= sizeof stream) {
            memcpy(stream + stream_len, data + AAL5_HEADER_BYTES, AAL5_CELL_PAYLOAD);
            stream_len += AAL5_CELL_PAYLOAD;
        }
        if (!aal5_pti_is_eop(h.pti))
            continue;
        struct aal5_rx_result res;
        aal5_reasm_finish(&r, &res);
        if (res.status == AAL5_OK) {
            /* Good means: Length fits the buffer and the cells, and the CRC is right. */
            if (res.length > cap || aal5_cells_for(res.length) * AAL5_CELL_PAYLOAD != stream_len ||
                aal5_crc32_update(AAL5_CRC32_INIT, stream, stream_len) != AAL5_CRC32_RESIDUE ||
                memcmp(d.ptr, stream, res.length))
                abort();
        }
        stream_len = 0;
        aal5_reasm_start(&r, &d, 1);
    }
    for (uint32_t i = 0; i < CANARY; i++)
        if (mem[i] != 0xA5 || mem[CANARY + cap + i] != 0xA5)
            abort();
    free(mem);

    /* And a round trip of the same bytes as a payload. */
    static uint8_t cells[(AAL5_MAX_CELLS + 1) * AAL5_CELL_BYTES], out[AAL5_MAX_PAYLOAD];
    size_t len = size > AAL5_MAX_PAYLOAD ? AAL5_MAX_PAYLOAD : size;
    int n = aal5_segment(data, len, 1, 0, 0, 32, cells, AAL5_MAX_CELLS + 1);
    if (n <= 0)
        abort();
    struct aal5_dest od = { out, (uint32_t)len };
    aal5_reasm_start(&r, &od, 1);
    for (int i = 0; i < n; i++)
        aal5_reasm_bytes(&r, cells + i * AAL5_CELL_BYTES + AAL5_HEADER_BYTES, AAL5_CELL_PAYLOAD);
    struct aal5_rx_result res;
    aal5_reasm_finish(&r, &res);
    if (res.status != AAL5_OK || res.length != len || memcmp(out, data, len))
        abort();
}

/* Arbitrary bytes as a portion's descriptor memory: rings, indices and descriptors. */
static void fuzz_controller(const uint8_t *data, size_t size)
{
    if (size < 4)
        return;
    struct otto_portion_params params = { .max_vcs = 1u + (data[0] & 3),
                                          .tx_slots = 1u << (data[1] & 3),
                                          .rx_slots = 1u << (data[2] & 3),
                                          .buf_size = 4096u * (1u + (data[3] & 3)) };
    struct otto_geometry geo;
    if (otto_portion_geometry(&params, &geo))
        abort();
    size_t total = geo.portion_size + 2 * CANARY;
    uint8_t *mem = malloc(total);
    memset(mem, 0xA5, total);
    uint8_t *base = mem + CANARY;
    memset(base, 0, geo.portion_size);
    otto_portion_format(base, &geo);

    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 8 };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { .cell_loss_rate = (data[0] & 0x80) ? 0.05 : 0,
                              .bit_error_rate = (data[0] & 0x40) ? 1e-3 : 0, .fault_seed = 7 };
    struct otto *o = otto_create(&oc, sw, 0);
    if (otto_attach(o, 1, base, geo.portion_size))
        abort();
    for (uint16_t vc = 0; vc < geo.max_vcs; vc++) {
        otto_vc_bind(o, 1, vc, 0, (uint16_t)(100 + vc));
        an2_switch_route_add(sw, 0, 0, (uint16_t)(100 + vc), 0, 0,
                             (uint16_t)(100 + (vc + 1) % geo.max_vcs));
    }
    data += 4;
    size -= 4;
    /* The input is poured over descriptor memory (header geometry excepted: the controller
     * keeps its own copy) in rounds, with polls in between. */
    size_t desc_bytes = geo.buf_off - sizeof geo;
    uint64_t now = 0;
    while (size > 0) {
        size_t n = size < 512 ? size : 512;
        uint32_t at = (uint32_t)(data[0] | data[1 % n] << 8) % desc_bytes;
        for (size_t i = 0; i < n && at + i < desc_bytes; i++)
            base[sizeof geo + at + i] = data[i];
        if (data[0] & 1)
            otto_vc_unbind(o, 1, (uint16_t)(data[0] >> 1) % (uint16_t)geo.max_vcs);
        if (data[0] & 2)
            otto_vc_peer_gone(o, 1, (uint16_t)(data[0] >> 2) % (uint16_t)geo.max_vcs);
        for (int i = 0; i < 4; i++)
            otto_poll(o, now += 1000);
        data += n;
        size -= n;
    }
    otto_detach(o, 1);
    for (uint32_t i = 0; i < CANARY; i++)
        if (mem[i] != 0xA5 || mem[CANARY + geo.portion_size + i] != 0xA5)
            abort();
    otto_destroy(o);
    an2_switch_destroy(sw);
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        fuzz_controller(data + 1, size - 1);
    else
        fuzz_reassembly(data + 1, size - 1);
    return 0;
}
