/* test_otto_capture.c — a capture of a short exchange, read back by tshark: every PDU on the
 * right VPI/VCI with the cells' content (payload, pad, trailer). Skips (77) without tshark. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an2_capture.h"
#include "check.h"
#include "harness.h"

struct sent {
    uint16_t vpi, vci;
    uint32_t len;
    uint8_t first;
};

int main(void)
{
    if (system("command -v tshark >/dev/null 2>&1") != 0) {
        printf("test_otto_capture: tshark not installed (scripts/deps.sh installs it): skipped\n");
        return 77;
    }
    const char *base = getenv("AN2_BUILD_DIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/otto-capture-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/exchange.pcap.gz", dir);

    struct an2_capture *cap = an2_capture_open(path);
    CHECK(cap != NULL, "capture open");
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 16 };
    struct an2_switch *sw = an2_switch_create(&sc);
    struct otto_config oc = { .capture = cap };
    struct otto *o = otto_create(&oc, sw, 0);
    struct host a, b;
    host_create(&a, 1, 2, 16, 16, 1 << 20);
    host_create(&b, 2, 2, 16, 16, 1 << 20);
    otto_attach(o, 1, a.base, a.size);
    otto_attach(o, 2, b.base, b.size);
    otto_vc_bind(o, 1, 0, 1, 42);
    otto_vc_bind(o, 2, 0, 1, 43);
    otto_vc_bind(o, 1, 1, 2, 777);
    otto_vc_bind(o, 2, 1, 3, 4000);
    an2_switch_route_add(sw, 0, 1, 42, 0, 1, 43);
    an2_switch_route_add(sw, 0, 1, 43, 0, 1, 42);
    an2_switch_route_add(sw, 0, 2, 777, 0, 3, 4000);

    const struct sent sent[] = { { 1, 42, 5, 'h' }, { 2, 777, 100, 'A' }, { 1, 43, 0, 0 },
                                 { 1, 42, 3000, 'z' } };
    enum { N = sizeof sent / sizeof sent[0] };
    uint64_t now = 1000000000ull;
    for (unsigned i = 0; i < N; i++) {
        struct host *from = sent[i].vci == 43 ? &b : &a;
        struct host *to = sent[i].vci == 43 ? &a : &b;
        uint16_t vc = sent[i].vpi == 2 ? 1 : 0;
        uint8_t *p = from->buf + i * 65536;
        for (uint32_t j = 0; j < sent[i].len; j++)
            p[j] = (uint8_t)(sent[i].first + j);
        struct otto_frag f = { i * 65536, sent[i].len }, rf = { i * 65536, 65536 };
        host_post_rx(to, vc, i, &rf, 1);
        host_send(from, vc, i, &f, 1, (uint8_t)i);
        fabric_run(&o, 1, &now, 1000, 50);
    }
    otto_destroy(o);
    an2_switch_destroy(sw);
    CHECK(an2_capture_close(cap) == 0, "capture close");

    /* tshark's ATM dissector guesses at AAL5 payloads of unknown traffic type (LANE,
     * IP...), so the bytes are read from its hex dump, VPI and VCI from its ATM fields. */
    char cmd[8600];
    snprintf(cmd, sizeof cmd, "tshark -r '%s' -V -x 2>/dev/null", path);
    FILE *t = popen(cmd, "r");
    CHECK(t != NULL, "popen tshark");
    struct packet {
        unsigned vpi, vci;
        size_t len;
        uint8_t bytes[4096];
    };
    static struct packet pk[N + 4];
    static char line[4096];
    int n = -1;
    while (t && fgets(line, sizeof line, t)) {
        unsigned x, y;
        if (!strncmp(line, "Frame ", 6)) {
            if (++n >= N + 4)
                break;
            memset(&pk[n], 0, sizeof pk[n]);
        } else if (n >= 0 && sscanf(line, "    VPI: %u", &x) == 1) {
            pk[n].vpi = x;
        } else if (n >= 0 && sscanf(line, "    VCI: %u", &x) == 1) {
            pk[n].vci = x;
        } else if (n >= 0 && sscanf(line, "%4x  %2x", &x, &y) == 2 && strlen(line) > 6 &&
                   line[4] == ' ' && line[5] == ' ') {
            for (const char *c = line + 6; pk[n].len < sizeof pk[n].bytes; c += 3) {
                if (sscanf(c, "%2x", &y) != 1 || c[2] != ' ')
                    break;
                pk[n].bytes[pk[n].len++] = (uint8_t)y;
                if (c[3] == ' ')
                    break; /* two spaces: the ASCII column follows */
            }
        }
    }
    n++;
    CHECK(n == N, "tshark showed %d of %d PDUs", n, N);
    for (int i = 0; i < n && i < N; i++) {
        /* The CPCS-PDU as it crossed the link: payload, zero pad, UU, CPI 0, Length, CRC. */
        const struct sent *s = &sent[i];
        uint8_t pdu[4096];
        uint32_t cells = (s->len + 8 + 47) / 48;
        for (uint32_t j = 0; j < s->len; j++)
            pdu[j] = (uint8_t)(s->first + j);
        memset(pdu + s->len, 0, cells * 48 - s->len);
        pdu[cells * 48 - 8] = (uint8_t)i;
        pdu[cells * 48 - 6] = (uint8_t)(s->len >> 8);
        pdu[cells * 48 - 5] = (uint8_t)s->len;
        printf("tshark: PDU %d on %u.%u, %zu bytes\n", i, pk[i].vpi, pk[i].vci, pk[i].len);
        CHECK(pk[i].vpi == s->vpi && pk[i].vci == s->vci, "packet %d on %u.%u, want %u.%u", i,
              pk[i].vpi, pk[i].vci, s->vpi, s->vci);
        /* The CRC itself is checked by the AAL5 tests; here the bytes before it. */
        CHECK(pk[i].len == cells * 48 && !memcmp(pk[i].bytes, pdu, cells * 48 - 4),
              "packet %d: %zu bytes, content %s", i, pk[i].len,
              memcmp(pk[i].bytes, pdu, cells * 48 - 4) ? "differs" : "matches");
    }
    int status = t ? pclose(t) : -1;
    CHECK(status == 0, "tshark exit status %d", status);
    host_destroy(&a);
    host_destroy(&b);
    unlink(path); /* also when a check failed: tests leave nothing behind */
    rmdir(dir);
    return check_exit("test_otto_capture");
}
