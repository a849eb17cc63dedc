/* The three measured communication patterns, each with its master and its slave side. */
#ifndef BENCH_PATTERNS_H
#define BENCH_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_transfer.h"

enum bench_pattern { BENCH_PINGPONG, BENCH_EXCHANGE, BENCH_STREAM };

enum { BENCH_TAG_CONTROL = 0x4201, BENCH_TAG_DATA = 0x4202, BENCH_TAG_ACK = 0x4203 };

/* One trial: reps timed iterations of pattern with messages of len bytes between this task
 * and peer, preceded by one untimed iteration whose content is verified. */
struct bench_trial {
    enum bench_pattern pattern;
    struct bench_transfer how;
    int peer;
    size_t len;
    long reps;
    char *send_buffer, *recv_buffer;   /* len bytes each; send_buffer holds the pattern */
    bool cold;   /* ping-pong only: buffers evicted from the caches before each exchange */
};

/* Master side: returns the elapsed nanoseconds of the timed iterations, or -1 on error. */
int64_t bench_trial_master(const struct bench_trial *trial);

/* Slave side: returns 0, or -1 on error. */
int bench_trial_slave(const struct bench_trial *trial);

/* Converts a trial's elapsed time into the reported per-message time in microseconds:
 * half the round trip for ping-pong, one iteration for exchange, one message for streaming. */
double bench_message_us(enum bench_pattern pattern, int64_t elapsed_ns, long reps);

/* Bytes moved per reported message time: len, or 2 * len for exchange (both directions). */
double bench_bytes_per_message(enum bench_pattern pattern, size_t len);

#endif
