/* test_link_pacer.c — a link's clock, simulated: never above its rate, a bounded catch-up. */
#include <stdint.h>

#include "check.h"
#include "link_pacer.h"

#define OC3_CELLS_PER_SECOND 353207.5 /* 149.76 Mb/s of SONET payload / 424 bits */
#define POLLS 4000u

struct poll_log {
    uint64_t at[POLLS];   /* when each poll came, ns */
    uint64_t sent[POLLS]; /* cells sent by the end of that poll */
};

static uint64_t rng_next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

/* One poll of a link that always has cells queued: sends all it may. */
static uint32_t poll_backlogged(struct link_pacer *p, uint64_t now)
{
    uint32_t n = link_pacer_allow(p, now);
    link_pacer_consume(p, n);
    p->backlogged = true;
    return n;
}

/* Polls a backlogged link POLLS times, usually every few microseconds, now and then after a
 * stall drawn up to max_stall_ns (the emulator descheduled). */
static void run_with_stalls(struct poll_log *log, uint64_t max_stall_ns, uint64_t seed)
{
    struct link_pacer p;
    link_pacer_init(&p, OC3_CELLS_PER_SECOND);
    uint64_t now = 1000000000ull, sent = 0, rng = seed;
    for (uint32_t i = 0; i < POLLS; i++) {
        now += rng_next(&rng) % 20000;
        if (rng_next(&rng) % 50 == 0)
            now += rng_next(&rng) % (max_stall_ns + 1);
        sent += poll_backlogged(&p, now);
        log->at[i] = now;
        log->sent[i] = sent;
    }
}

/* Between any two polls the link sent at most the span plus the catch-up worth of cells, and
 * from a start after idling at most the span plus its burst. */
static void never_above_rate(void)
{
    static struct poll_log log;
    const double ns_per_cell = 1e9 / OC3_CELLS_PER_SECOND;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        run_with_stalls(&log, (uint64_t)(3 * LINK_PACER_CATCHUP_NS), seed);
        uint32_t worst_i = 0, worst_j = 0;
        double worst = -1e18;
        for (uint32_t i = 0; i < POLLS; i++)
            for (uint32_t j = i + 1; j < POLLS; j++) {
                double room = (double)(log.at[j] - log.at[i]) + LINK_PACER_CATCHUP_NS;
                double excess = (double)(log.sent[j] - log.sent[i]) - room / ns_per_cell;
                if (excess > worst) {
                    worst = excess;
                    worst_i = i;
                    worst_j = j;
                }
            }
        CHECK(worst <= 1e-6, "seed %llu: polls %u..%u sent %.3f cells above span + catch-up",
              (unsigned long long)seed, worst_i, worst_j, worst);
        for (uint32_t j = 0; j < POLLS; j++) {
            double room = (double)(log.at[j] - log.at[0]) / ns_per_cell + LINK_PACER_BURST;
            if ((double)log.sent[j] > room + 1e-6) {
                CHECK(0, "seed %llu: %llu cells by poll %u, the rate allows %.1f",
                      (unsigned long long)seed, (unsigned long long)log.sent[j], j, room);
                break;
            }
        }
    }
}

/* A backlogged link owes at most LINK_PACER_CATCHUP_NS: after a longer stall it sends that
 * much at once and loses the rest; after a shorter one it loses nothing. */
static void catch_up_bound(void)
{
    const double ns_per_cell = 1e9 / OC3_CELLS_PER_SECOND;
    const double bound = LINK_PACER_CATCHUP_NS / ns_per_cell;
    CHECK(LINK_PACER_CATCHUP_NS >= 10e6, "catch-up %.0f ns: shorter than the 10 ms a hop of the "
          "emulation is descheduled on a busy machine", LINK_PACER_CATCHUP_NS);
    struct link_pacer p;
    link_pacer_init(&p, OC3_CELLS_PER_SECOND);
    uint64_t now = 1000000000ull;
    poll_backlogged(&p, now);
    for (int i = 0; i < 100; i++)
        poll_backlogged(&p, now += 3000);
    uint32_t after_long = poll_backlogged(&p, now += (uint64_t)(5 * LINK_PACER_CATCHUP_NS));
    CHECK(after_long <= bound + 1 && after_long + 1 >= bound,
          "after a stall of 5 catch-ups: %u cells at once, the catch-up is %.1f", after_long, bound);
    CHECK(poll_backlogged(&p, now) == 0, "a second poll at the same time sent cells");

    /* stalls within the bound, each caught up before the next: the long-run rate is kept */
    link_pacer_init(&p, OC3_CELLS_PER_SECOND);
    uint64_t start = now, sent = poll_backlogged(&p, now);
    uint32_t largest = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 2000; i++)
            sent += poll_backlogged(&p, now += 10000);
        uint32_t n = poll_backlogged(&p, now += (uint64_t)(0.9 * LINK_PACER_CATCHUP_NS));
        largest = n > largest ? n : largest;
        sent += n;
    }
    double owed = (double)(now - start) / ns_per_cell;
    CHECK(sent + 2 >= owed && sent <= owed + LINK_PACER_BURST + 1,
          "stalls within the catch-up: %llu cells, the rate allows %.1f",
          (unsigned long long)sent, owed);
    CHECK(largest <= bound + 1, "a catch-up of %u cells, bound %.1f", largest, bound);
}

/* A link that was idle sends at most its burst at once, however long it idled. */
static void burst_after_idle(void)
{
    struct link_pacer p;
    link_pacer_init(&p, OC3_CELLS_PER_SECOND);
    uint64_t now = 1000000000ull;
    uint32_t n = link_pacer_allow(&p, now);
    CHECK(n <= LINK_PACER_BURST, "first poll: %u cells", n);
    link_pacer_consume(&p, n);
    p.backlogged = false;
    n = link_pacer_allow(&p, now + 1000000000ull);
    CHECK(n <= LINK_PACER_BURST && n + 1 >= LINK_PACER_BURST, "after 1 s idle: %u cells", n);
    CHECK(link_pacer_next(&p) > 0, "a paced link has a next departure");

    link_pacer_init(&p, 0);
    CHECK(link_pacer_allow(&p, now) == UINT32_MAX, "an unpaced link is not limited");
    CHECK(link_pacer_next(&p) == 0, "an unpaced link has no next departure");
}

int main(void)
{
    never_above_rate();
    catch_up_bound();
    burst_after_idle();
    return check_exit("test_link_pacer");
}
