/* reliable_sim: fp_reliable.c between two simulated ends over lossy wires, then under bogus headers. */
/* The AN2 route's reliability layer alone, linked with stubs for the transmit ring, the buffer
 * area, the clock and the log: (1) a sender streams PDUs to a receiver over FIFO wires (both
 * ways) that damage, lose and hold back PDUs and whose transmit room comes and goes; every PDU
 * must be taken once, in order, and every block reference given back; (2) random headers
 * (any kind, seq and ack) mixed into that traffic: no call may post more than a window's worth,
 * the window and resend bounds must hold, DATA is taken only in order, and nothing crashes
 * (the ASan build runs it too). Usage: reliable_sim [seed] */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errors.h"
#include "fp_pair_fail.h"
#include "fp_reliable.h"
#include "fp_state.h"
#include "fp_tx_desc.h"

/* ---- stubs for what fp_reliable.c calls ---- */
static long long sim_now_us = 1000000;
static long refs;                 /* block references held (ring) */
static int posts_this_call;       /* fp_tx_post calls since reset */
static int room_denied_pct;       /* chance that the transmit ring is full */
static unsigned seed = 1;
static long logs, fails;

static unsigned rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) & 0xffffff;
}

long long lpvm_now_us(void) { return sim_now_us; }
void lpvm_log(const char *fmt, ...)
{
	if (logs++ < 6) {
		va_list ap;
		va_start(ap, fmt);
		fputs("  log: ", stdout);
		vprintf(fmt, ap);
		putchar('\n');
		va_end(ap);
	}
}
void bufpool_tx_ref(struct bufpool *p, void *b) { (void)p; (void)b; refs++; }
void bufpool_tx_unref(struct bufpool *p, void *b) { (void)p; (void)b; refs--; }
/* ACK/NAK header blocks: kept until the end (a wire may still hold their contents) */
static void *blocks_made[1 << 20];
static size_t nblocks_made;
void *bufpool_alloc_area(struct bufpool *p, size_t size)
{
	(void)p;
	if (nblocks_made == sizeof blocks_made / sizeof *blocks_made)
		return NULL;
	return blocks_made[nblocks_made++] = calloc(1, size < sizeof(struct pdu_hdr) ? sizeof(struct pdu_hdr) : size);
}
void bufpool_free(struct bufpool *p, void *mem) { (void)p; (void)mem; }
uint32_t bufpool_offset(const struct bufpool *p, const void *mem) { (void)p; (void)mem; return 0; }
unsigned an2_tx_space(const an2_ep *ep) { (void)ep; return 1; }
size_t bufpool_free_bytes(const struct bufpool *p) { (void)p; return (size_t)1 << 30; }
struct an2_vc_host_stats *an2_vc_host_stats(an2_ep *ep, uint16_t vc) { (void)ep; (void)vc; return NULL; }

/* ---- the wires: FIFO per direction; a PDU is its header (host order) ---- */
#define WIRE_MAX 4096
struct wire { struct pdu_hdr q[WIRE_MAX]; unsigned head, len; };
static struct wire to_b, to_a;
static struct fp_route ra, rb;
static struct peer pa, pb;     /* pa: the sender's view of the receiver; pb: the other way */

int fp_tx_post(struct fp_route *r, struct peer *p, const struct an2_frag *fr, unsigned n,
               void *const *blocks, unsigned nblocks)
{
	(void)r; (void)fr; (void)n;
	posts_this_call++;
	if (p->state != PEER_OPEN)
		return -ENOTCONN;
	if ((int)(rnd() % 100) < room_denied_pct || nblocks == 0)
		return -EAGAIN;
	struct wire *w = p == &pa ? &to_b : &to_a;
	if (w->len == WIRE_MAX)
		return -EAGAIN;
	struct pdu_hdr h;
	memcpy(&h, blocks[0], sizeof h);
	h.seq = ntohl(h.seq);
	h.ack = ntohl(h.ack);
	w->q[(w->head + w->len++) % WIRE_MAX] = h;
	return 0;
}

void fp_peer_fail(struct fp_route *r, struct peer *p, const char *why)
{
	printf("  pair failed: %s\n", why ? why : "(quietly)");
	fails++;
	fp_rel_close(r, p);
	p->state = PEER_DEAD;
}

/* ---- the simulation ---- */
static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL: " __VA_ARGS__); putchar('\n'); } } while (0)

static void setup(void)
{
	memset(&ra, 0, sizeof ra);
	memset(&rb, 0, sizeof rb);
	static struct peer *va[1], *vb[1];
	static char ep_dummy;
	ra.ep = rb.ep = (an2_ep *)&ep_dummy;
	ra.active = rb.active = 1;
	ra.max_vcs = rb.max_vcs = 1;
	va[0] = &pa;
	vb[0] = &pb;
	ra.vc_peer = va;
	rb.vc_peer = vb;
	ra.tx_free = rb.tx_free = 0;
	memset(&pa, 0, sizeof pa);
	memset(&pb, 0, sizeof pb);
	pa.state = pb.state = PEER_OPEN;
	strcpy(pa.addr, "0.0.32");
	strcpy(pb.addr, "0.0.33");
	pa.tid = 0x40002;
	pb.tid = 0x40001;
	memset(&to_a, 0, sizeof to_a);
	memset(&to_b, 0, sizeof to_b);
	if (fp_rel_open(&ra, &pa) || fp_rel_open(&rb, &pb)) {
		printf("out of memory\n");
		exit(2);
	}
}

static void check_bounds(const struct peer *p, const char *who)
{
	const struct rel_state *s = &p->rel;
	if (!s->ring)
		return;
	CHECK(s->tx_next - s->tx_una <= REL_WINDOW, "%s: %u unacknowledged", who, s->tx_next - s->tx_una);
	uint32_t marked = 0;
	for (uint32_t seq = s->tx_una; seq != s->tx_next; seq++)
		marked += s->ring[seq % REL_WINDOW].marked != 0;
	CHECK(marked == s->marked, "%s: %u PDUs marked to resend, counted %u", who, marked, s->marked);
	CHECK(s->nkept < REL_WINDOW, "%s: %u PDUs kept", who, s->nkept);
}

/* The sender's next new PDU, as fp_tx.c's tx_pdu does it (one header block). */
static void send_new(void)
{
	if (pa.state != PEER_OPEN || fp_rel_window_full(&pa) || pa.rel.marked)
		return;
	struct pdu_hdr *h = bufpool_alloc_area(NULL, sizeof *h);
	if (!h)
		return;
	*h = (struct pdu_hdr){ .magic = FP_PDU_MAGIC, .kind = PDU_DATA, .flags = PDU_SOM | PDU_EOM };
	fp_rel_stamp(&ra, &pa, h);
	struct an2_frag fr = { 0, sizeof *h };
	void *blk = h;
	if (fp_tx_post(&ra, &pa, &fr, 1, &blk, 1) == 0)
		fp_rel_sent(&ra, &pa, &fr, 1, &blk, 1);
}

/* Delivers the next PDU on wire w to (r, p): damaged, lost, or as sent; bogus_pct: or a random
 * header instead. *taken: DATA PDUs taken in order so far (checked to be seq order). */
static void deliver(struct wire *w, struct fp_route *r, struct peer *p, int damage_pct, int loss_pct,
                    int bogus_pct, uint32_t *taken)
{
	if (!w->len || p->state != PEER_OPEN)
		return;
	struct pdu_hdr h = w->q[w->head];
	w->head = (w->head + 1) % WIRE_MAX;
	w->len--;
	if ((int)(rnd() % 1000) < bogus_pct) {
		h.kind = (uint8_t)(1 + rnd() % 3);
		h.seq = rnd() % 4 ? h.seq + (rnd() % 200) - 100 : (uint32_t)rnd() << 8;
		h.ack = rnd() % 4 ? h.ack + (rnd() % 200) - 100 : (uint32_t)rnd() << 8;
	}
	if ((int)(rnd() % 1000) < loss_pct)
		return;
	posts_this_call = 0;
	if ((int)(rnd() % 1000) < damage_pct) {
		fp_rel_damaged(r, p, "CRC error");
	} else {
		uint32_t expected = p->rel.rx_next, len = 40 + rnd() % 65000;
		struct pdu_hdr *b = bufpool_alloc_area(NULL, sizeof h);   /* the receive block */
		if (!b)
			return;
		*b = h;
		int cc = fp_rel_arrived(r, p, &h, len, b);
		if (cc == 2)
			CHECK(h.kind == PDU_DATA && h.seq - expected - 1 < REL_WINDOW - 1,
			      "kept PDU %u (kind %d) expecting %u", h.seq, h.kind, expected);
		for (void *next = cc == 1 ? b : NULL; next; next = fp_rel_next_kept(r, p, &len)) {
			const struct pdu_hdr *t = next;
			CHECK(t->kind == PDU_DATA && t->seq == expected, "took PDU %u (kind %d) expecting %u",
			      t->seq, t->kind, expected);
			CHECK(t->seq == *taken, "took PDU %u, %u in order", t->seq, *taken);
			(*taken)++;
			expected++;
		}
	}
	CHECK(posts_this_call <= (int)REL_WINDOW + 1, "%d posts for one PDU", posts_this_call);
}

/* Streams n PDUs; returns how many the receiver took. */
static uint32_t run(uint32_t n, int damage, int loss, int bogus, long steps)
{
	uint32_t taken_b = 0, taken_a = 0;
	for (long i = 0; i < steps && (taken_b < n || pa.rel.tx_una != pa.rel.tx_next); i++) {
		sim_now_us += 20 + rnd() % 60;
		if (pa.rel.tx_next < n)
			send_new();
		for (int k = rnd() % 3; k > 0; k--)
			deliver(&to_b, &rb, &pb, damage, loss, bogus, &taken_b);
		for (int k = rnd() % 3; k > 0; k--)
			deliver(&to_a, &ra, &pa, damage, loss, bogus, &taken_a);
		posts_this_call = 0;
		fp_rel_service(&ra, rnd() % 4 == 0);
		fp_rel_service(&rb, rnd() % 4 == 0);   /* (the receiver waits now and then) */
		CHECK(posts_this_call <= 2 * ((int)REL_WINDOW + 1), "%d posts in one service", posts_this_call);
		check_bounds(&pa, "sender");
		check_bounds(&pb, "receiver");
		if (failures > 20)
			break;
	}
	return taken_b;
}

static void finish(const char *what)
{
	struct rel_state sa = pa.rel, sb = pb.rel;
	fp_rel_close(&ra, &pa);
	fp_rel_close(&rb, &pb);
	CHECK(refs == 0, "%s: %ld block references left", what, refs);
	CHECK(ra.rel_unacked_peers == 0 && rb.rel_unacked_peers == 0, "%s: unacked peer count left", what);
	printf("%s: sent %llu, resent %llu (%llu NAKs, %llu timeouts, %llu bad acks); took %llu, "
	       "%llu damaged, %llu out of order, %llu duplicates, %llu NAKs sent\n", what,
	       (unsigned long long)sa.sent, (unsigned long long)sa.resent,
	       (unsigned long long)sa.naks_in, (unsigned long long)sa.timeouts,
	       (unsigned long long)sa.bogus, (unsigned long long)sb.taken,
	       (unsigned long long)sb.damaged, (unsigned long long)sb.out_of_order,
	       (unsigned long long)sb.dups, (unsigned long long)sb.naks_out);
}

int main(int argc, char **argv)
{
	seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1;
	const uint32_t n = 20000;
	static const struct { const char *name; int damage, loss, room; } lossy[] = {
		{ "clean", 0, 0, 0 },
		{ "damage 1%", 10, 0, 10 },
		{ "damage 5%, loss 2%", 50, 20, 30 },
		{ "loss 10%", 0, 100, 50 },
	};
	for (unsigned i = 0; i < sizeof lossy / sizeof *lossy; i++) {
		setup();
		room_denied_pct = lossy[i].room;
		fails = 0;
		uint32_t got = run(n, lossy[i].damage, lossy[i].loss, 0, 20000000);
		CHECK(got == n, "%s: %u of %u PDUs taken", lossy[i].name, got, n);
		CHECK(pa.rel.tx_una == pa.rel.tx_next, "%s: sender not fully acknowledged", lossy[i].name);
		CHECK(fails == 0, "%s: the pair failed", lossy[i].name);
		if (lossy[i].damage == 0 && lossy[i].loss == 0)
			CHECK(pa.rel.resent == 0 && pb.rel.acks_out < n / 2,
			      "clean: %llu resent, %llu ACK PDUs for %u PDUs",
			      (unsigned long long)pa.rel.resent, (unsigned long long)pb.rel.acks_out, n);
		finish(lossy[i].name);
	}
	/* bogus headers (1 in 20) with damage: bounds only; delivery may stop (a lying peer only
	 * harms what it is sent), and the pair may fail (a peer that acknowledges nothing) */
	for (int round = 0; round < 4; round++) {
		setup();
		room_denied_pct = 20;
		fails = 0;
		run(5000, 20, 10, 50, 400000);
		finish("bogus headers");
	}
	printf("%d log lines\n", (int)logs);
	for (size_t i = 0; i < nblocks_made; i++)
		free(blocks_made[i]);
	printf(failures ? "reliable_sim: %d failures\n" : "reliable_sim: ok\n", failures);
	return failures != 0;
}
