/* test_otto_random.c — random operations against the controller and switch (sends, posts,
 * binds, unbinds, peer gone, detach, reports left unread, faults) checking that nothing is
 * silently lost: every descriptor the host gave gets exactly one report, every PDU delivered
 * as good is intact, nothing outside a portion is written. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

#define NHOSTS 3
#define NVCS 4
#define SLOTS 4            /* buffers per VC and direction */
#define SLOT_BYTES 8192u
#define MAGIC 0x4f54u

struct pending {
    uint64_t cookie;
    uint8_t kind;          /* OTTO_REPORT_TX / _RX; 0 = free entry */
    uint16_t vc;
    uint8_t slot;
};

struct vcstate {
    bool bound;
    uint16_t vci;
    int peer_host, peer_vc;     /* -1: no peer */
    bool tx_busy[SLOTS], rx_busy[SLOTS];
    uint32_t seq;
};

struct hoststate {
    struct host h;
    bool up;
    uint32_t id;
    struct vcstate vc[NVCS];
    struct pending pend[256];
};

static struct an2_switch *sw;
static struct otto *ctl;
static struct hoststate hs[NHOSTS];
static uint64_t rng = 0x1234567;
static uint64_t next_cookie = 1;
static uint16_t next_vci = 32;
static uint32_t next_id = 1;
static unsigned stats_ok, stats_err, stats_tx;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16) % n;
}

static uint8_t pat(uint32_t seq, uint32_t i)
{
    return (uint8_t)(seq * 131u + i * 29u + (i >> 5));
}

static void pend_add(struct hoststate *s, uint64_t cookie, uint8_t kind, uint16_t vc, uint8_t slot)
{
    for (unsigned i = 0; i < 256; i++)
        if (!s->pend[i].kind) {
            s->pend[i] = (struct pending){ cookie, kind, vc, slot };
            return;
        }
    CHECK(0, "pending table full");
}

static void host_up(struct hoststate *s)
{
    memset(s, 0, sizeof *s);
    s->id = next_id++;
    CHECK(host_create(&s->h, s->id, NVCS, 8, SLOTS, NVCS * 2 * SLOTS * SLOT_BYTES) == 0, "host");
    CHECK(otto_attach(ctl, s->id, s->h.base, s->h.size) == 0, "attach");
    for (unsigned v = 0; v < NVCS; v++)
        s->vc[v].peer_host = s->vc[v].peer_vc = -1;
    s->up = true;
}

/* Takes one end down as the driver does: routes go, the peer hears, the binding goes. */
static void vc_down(int a, int va)
{
    struct vcstate *x = &hs[a].vc[va];
    if (!x->bound)
        return;
    if (x->peer_host >= 0) {
        struct vcstate *y = &hs[x->peer_host].vc[x->peer_vc];
        an2_switch_route_del(sw, 0, 0, x->vci);
        an2_switch_route_del(sw, 0, 0, y->vci);
        otto_vc_peer_gone(ctl, hs[x->peer_host].id, (uint16_t)x->peer_vc);
        y->peer_host = y->peer_vc = -1;
    }
    CHECK(otto_vc_unbind(ctl, hs[a].id, (uint16_t)va) == 0, "unbind");
    x->bound = false;
    x->peer_host = x->peer_vc = -1;
}

static void connect(void)
{
    int a = (int)rnd(NHOSTS), b = (int)rnd(NHOSTS), va = (int)rnd(NVCS), vb = (int)rnd(NVCS);
    if (!hs[a].up || !hs[b].up || (a == b && va == vb) || hs[a].vc[va].bound ||
        hs[b].vc[vb].bound)
        return;
    uint16_t ca = next_vci++, cb = next_vci++;
    if (otto_vc_bind(ctl, hs[a].id, (uint16_t)va, 0, ca) || otto_vc_bind(ctl, hs[b].id, (uint16_t)vb, 0, cb)) {
        otto_vc_unbind(ctl, hs[a].id, (uint16_t)va); /* still draining from an unbind: later */
        return;
    }
    an2_switch_route_add(sw, 0, 0, ca, 0, 0, cb);
    an2_switch_route_add(sw, 0, 0, cb, 0, 0, ca);
    hs[a].vc[va].bound = true; /* buffers still out keep their busy marks */
    hs[a].vc[va].vci = ca;
    hs[a].vc[va].peer_host = b;
    hs[a].vc[va].peer_vc = vb;
    hs[b].vc[vb].bound = true;
    hs[b].vc[vb].vci = cb;
    hs[b].vc[vb].peer_host = a;
    hs[b].vc[vb].peer_vc = va;
}

static uint8_t *tx_buf(struct hoststate *s, unsigned vc, unsigned slot)
{
    return s->h.buf + ((vc * 2) * SLOTS + slot) * SLOT_BYTES;
}

static uint8_t *rx_buf(struct hoststate *s, unsigned vc, unsigned slot)
{
    return s->h.buf + ((vc * 2 + 1) * SLOTS + slot) * SLOT_BYTES;
}

static void do_send(struct hoststate *s)
{
    unsigned v = rnd(NVCS), slot = rnd(SLOTS);
    struct vcstate *x = &s->vc[v];
    if (x->tx_busy[slot])
        return;
    uint32_t len = 8 + rnd(SLOT_BYTES - 8), seq = x->seq++;
    uint8_t *p = tx_buf(s, v, slot);
    uint16_t magic = MAGIC;
    memcpy(p, &magic, 2);
    memcpy(p + 2, &len, 4);
    memcpy(p + 6, &seq, 2);
    for (uint32_t i = 8; i < len; i++)
        p[i] = pat(seq & 0xffff, i);
    /* Sometimes in two fragments, sometimes a bad one (outside the area). */
    struct otto_frag f[2] = { { (uint32_t)(p - s->h.buf), len / 2 },
                              { (uint32_t)(p - s->h.buf) + len / 2, len - len / 2 } };
    unsigned nf = rnd(2) + 1;
    if (nf == 1)
        f[0].length = len;
    if (rnd(50) == 0)
        f[0].offset = (uint32_t)s->h.geo.buf_size;
    uint64_t c = next_cookie++;
    if (!host_send(&s->h, (uint16_t)v, c, f, nf, 0))
        return;
    x->tx_busy[slot] = true;
    pend_add(s, c, OTTO_REPORT_TX, (uint16_t)v, (uint8_t)slot);
}

static void do_post(struct hoststate *s)
{
    unsigned v = rnd(NVCS), slot = rnd(SLOTS);
    struct vcstate *x = &s->vc[v];
    if (!x->bound || x->rx_busy[slot])
        return;
    struct otto_frag f = { (uint32_t)(rx_buf(s, v, slot) - s->h.buf), SLOT_BYTES };
    if (rnd(8) == 0)
        f.length = 100; /* too small for most: a length error */
    uint64_t c = next_cookie++;
    if (!host_post_rx(&s->h, (uint16_t)v, c, &f, 1))
        return;
    x->rx_busy[slot] = true;
    pend_add(s, c, OTTO_REPORT_RX, (uint16_t)v, (uint8_t)slot);
}

static void do_reports(struct hoststate *s)
{
    struct otto_report r;
    while (host_report(&s->h, &r)) {
        if (r.kind == OTTO_REPORT_VC) {
            CHECK(r.status == OTTO_STATUS_PEER_GONE, "VC event %u", r.status);
            continue;
        }
        struct pending *pe = NULL;
        for (unsigned i = 0; i < 256 && !pe; i++)
            if (s->pend[i].kind && s->pend[i].cookie == r.cookie)
                pe = &s->pend[i];
        CHECK(pe != NULL, "report for cookie %llu that is not outstanding",
              (unsigned long long)r.cookie);
        if (!pe)
            continue;
        CHECK(pe->kind == r.kind && pe->vc == r.vc, "report kind/vc mismatch");
        if (r.kind == OTTO_REPORT_TX) {
            s->vc[pe->vc].tx_busy[pe->slot] = false;
            stats_tx++;
        } else {
            s->vc[pe->vc].rx_busy[pe->slot] = false;
            if (r.status == OTTO_STATUS_OK) {
                const uint8_t *p = rx_buf(s, pe->vc, pe->slot);
                uint16_t magic = 0, seq = 0;
                uint32_t len = 0;
                memcpy(&magic, p, 2);
                memcpy(&len, p + 2, 4);
                memcpy(&seq, p + 6, 2);
                bool good = magic == MAGIC && len == r.length;
                for (uint32_t i = 8; good && i < len; i++)
                    good = p[i] == pat(seq, i);
                CHECK(good, "PDU delivered as good is not what was sent (len %u)", r.length);
                stats_ok++;
            } else {
                stats_err++;
            }
        }
        pe->kind = 0;
    }
}

int main(void)
{
    struct an2_switch_config sc = { .nports = 1, .vc_credit_cells = 16 };
    sw = an2_switch_create(&sc);
    struct otto_config oc = { .bit_error_rate = 2e-6, .cell_loss_rate = 1e-4, .fault_seed = 9 };
    ctl = otto_create(&oc, sw, 0);
    for (unsigned i = 0; i < NHOSTS; i++)
        host_up(&hs[i]);
    uint64_t now = 0;
    for (unsigned step = 0; step < 200000; step++) {
        struct hoststate *s = &hs[rnd(NHOSTS)];
        unsigned op = rnd(100);
        if (!s->up)
            continue;
        if (op < 30)
            do_send(s);
        else if (op < 55)
            do_post(s);
        else if (op < 60)
            connect();
        else if (op < 62)
            vc_down((int)(s - hs), (int)rnd(NVCS));
        else if (op < 63 && rnd(10) == 0) { /* the task dies: detach, and a new one comes */
            for (unsigned v = 0; v < NVCS; v++)
                vc_down((int)(s - hs), (int)v);
            otto_detach(ctl, s->id);
            CHECK(host_canaries_intact(&s->h), "canaries of a detached host");
            host_destroy(&s->h);
            host_up(s);
        } else if (op < 90) {
            otto_poll(ctl, now += 1000);
        } else {
            do_reports(s); /* hosts read reports only now and then: rings fill up */
        }
    }
    /* Close everything: every descriptor still outstanding must come back. */
    for (unsigned i = 0; i < NHOSTS; i++)
        for (unsigned v = 0; v < NVCS; v++)
            vc_down((int)i, (int)v);
    for (unsigned round = 0; round < 2000; round++) {
        otto_poll(ctl, now += 1000);
        for (unsigned i = 0; i < NHOSTS; i++)
            do_reports(&hs[i]);
    }
    for (unsigned i = 0; i < NHOSTS; i++) {
        unsigned left = 0;
        for (unsigned k = 0; k < 256; k++)
            left += hs[i].pend[k].kind != 0;
        CHECK(left == 0, "host %u: %u descriptors never reported", i, left);
        CHECK(host_canaries_intact(&hs[i].h), "host %u canaries", i);
    }
    printf("random: %u PDUs delivered good, %u receive errors or aborts, %u transmit reports\n",
           stats_ok, stats_err, stats_tx);
    CHECK(stats_ok > 100 && stats_tx > 300, "the random run did little");
    otto_destroy(ctl);
    an2_switch_destroy(sw);
    for (unsigned i = 0; i < NHOSTS; i++)
        host_destroy(&hs[i].h);
    return check_exit("test_otto_random");
}
