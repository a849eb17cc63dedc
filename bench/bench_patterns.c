/* The three measured communication patterns, each with its master and its slave side. */
#include "bench_patterns.h"

#include "bench_cache.h"
#include "bench_clock.h"

/* Ping-pong: the master sends and waits for the echo; the slave echoes. With a cold cache
 * (GAMMA's method) both evict their buffers outside the master's timed section: the master
 * before it starts the clock, the slave right after its reply. */
static void evict_buffers(const struct bench_trial *t)
{
    bench_cache_flush(t->send_buffer, t->len);
    bench_cache_flush(t->recv_buffer, t->len);
}

static int64_t pingpong_master(const struct bench_trial *t)
{
    int64_t elapsed = 0, start = 0;
    for (long i = 0; i <= t->reps; i++) {
        if (t->cold) {   /* time each exchange on its own, without the eviction */
            evict_buffers(t);
            start = bench_now_ns();
        } else if (i == 1) {   /* hot: one clock around all timed exchanges */
            start = bench_now_ns();
        }
        if (bench_send(&t->how, t->peer, BENCH_TAG_DATA, t->send_buffer, t->len) < 0 ||
            bench_recv(&t->how, t->peer, BENCH_TAG_DATA, t->recv_buffer, t->len, i == 0) < 0)
            return -1;
        if (t->cold && i > 0)
            elapsed += bench_now_ns() - start;
    }
    return t->cold ? elapsed : bench_now_ns() - start;
}

static int pingpong_slave(const struct bench_trial *t)
{
    for (long i = 0; i <= t->reps; i++) {
        if (bench_recv(&t->how, t->peer, BENCH_TAG_DATA, t->recv_buffer, t->len, i == 0) < 0 ||
            bench_send(&t->how, t->peer, BENCH_TAG_DATA, t->send_buffer, t->len) < 0)
            return -1;
        if (t->cold)
            evict_buffers(t);
    }
    return 0;
}

/* Pairwise exchange (ParaStation's benchmark): both send, then both receive. */
static int exchange_iterations(const struct bench_trial *t, int64_t *start)
{
    for (long i = 0; i <= t->reps; i++) {
        if (i == 1)
            *start = bench_now_ns();
        if (bench_send(&t->how, t->peer, BENCH_TAG_DATA, t->send_buffer, t->len) < 0 ||
            bench_recv(&t->how, t->peer, BENCH_TAG_DATA, t->recv_buffer, t->len, i == 0) < 0)
            return -1;
    }
    return 0;
}

static int64_t exchange_master(const struct bench_trial *t)
{
    int64_t start = 0;
    if (exchange_iterations(t, &start) < 0)
        return -1;
    return bench_now_ns() - start;
}

/* One-way streaming: the master sends reps messages back to back; the slave acknowledges
 * the untimed first one and the last one. */
static int64_t stream_master(const struct bench_trial *t)
{
    char ack;
    if (bench_send(&t->how, t->peer, BENCH_TAG_DATA, t->send_buffer, t->len) < 0 ||
        bench_recv(&t->how, t->peer, BENCH_TAG_ACK, &ack, 1, false) < 0)
        return -1;
    int64_t start = bench_now_ns();
    for (long i = 0; i < t->reps; i++)
        if (bench_send(&t->how, t->peer, BENCH_TAG_DATA, t->send_buffer, t->len) < 0)
            return -1;
    if (bench_recv(&t->how, t->peer, BENCH_TAG_ACK, &ack, 1, false) < 0)
        return -1;
    return bench_now_ns() - start;
}

static int stream_slave(const struct bench_trial *t)
{
    char ack = 0;
    for (long i = 0; i <= t->reps; i++) {
        if (bench_recv(&t->how, t->peer, BENCH_TAG_DATA, t->recv_buffer, t->len, i == 0) < 0)
            return -1;
        if ((i == 0 || i == t->reps) && bench_send(&t->how, t->peer, BENCH_TAG_ACK, &ack, 1) < 0)
            return -1;
    }
    return 0;
}

int64_t bench_trial_master(const struct bench_trial *trial)
{
    switch (trial->pattern) {
    case BENCH_PINGPONG: return pingpong_master(trial);
    case BENCH_EXCHANGE: return exchange_master(trial);
    case BENCH_STREAM: return stream_master(trial);
    }
    return -1;
}

int bench_trial_slave(const struct bench_trial *trial)
{
    int64_t unused_start;
    switch (trial->pattern) {
    case BENCH_PINGPONG: return pingpong_slave(trial);
    case BENCH_EXCHANGE: return exchange_iterations(trial, &unused_start);
    case BENCH_STREAM: return stream_slave(trial);
    }
    return -1;
}

double bench_message_us(enum bench_pattern pattern, int64_t elapsed_ns, long reps)
{
    double per_iteration_us = (double)elapsed_ns / 1e3 / (double)reps;
    return pattern == BENCH_PINGPONG ? per_iteration_us / 2 : per_iteration_us;
}

double bench_bytes_per_message(enum bench_pattern pattern, size_t len)
{
    return pattern == BENCH_EXCHANGE ? 2.0 * (double)len : (double)len;
}
