/* pvmbench: PVM ping-pong, pairwise exchange and streaming between a master and the slave
 * it spawns; the same source is linked to Debian's libpvm3 and to libpvm3-an2. */
#include <math.h>
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_options.h"
#include "bench_stats.h"

/* The master's instructions to the slave, one control message per trial. */
enum { CONTROL_RUN, CONTROL_QUIT };
enum { CONTROL_CMD, CONTROL_PATTERN, CONTROL_API, CONTROL_ENCODING, CONTROL_ROUTE,
       CONTROL_LEN, CONTROL_REPS, CONTROL_COLD, CONTROL_FIELDS };

static int apply_route(enum bench_route route)
{
    if (route == BENCH_ROUTE_DEFAULT)
        return 0;
    int status = pvm_setopt(PvmRoute, route == BENCH_ROUTE_DIRECT ? PvmRouteDirect : PvmDontRoute);
    if (status < 0) {
        fprintf(stderr, "pvmbench: pvm_setopt(PvmRoute) failed with PVM error %d\n", status);
        return -1;
    }
    return 0;
}

static int send_control(int slave, const int fields[CONTROL_FIELDS])
{
    int status = pvm_initsend(PvmDataDefault);
    if (status >= 0)
        status = pvm_pkint((int *)fields, CONTROL_FIELDS, 1);
    if (status >= 0)
        status = pvm_send(slave, BENCH_TAG_CONTROL);
    if (status < 0)
        fprintf(stderr, "pvmbench: sending control to t%x failed with PVM error %d\n", slave, status);
    return status < 0 ? -1 : 0;
}

/* Slave: obey control messages from the parent until told to quit. */
static int run_slave(int parent)
{
    char *send_buffer = NULL, *recv_buffer = NULL;
    size_t capacity = 0;
    int route_applied = 0, result = -1;
    for (;;) {
        int fields[CONTROL_FIELDS];
        int bufid = pvm_recv(parent, BENCH_TAG_CONTROL);
        if (bufid < 0 || pvm_upkint(fields, CONTROL_FIELDS, 1) < 0) {
            fprintf(stderr, "pvmbench slave: bad or missing control message\n");
            break;
        }
        if (fields[CONTROL_CMD] == CONTROL_QUIT) {
            result = 0;
            break;
        }
        if (fields[CONTROL_LEN] < 1 || fields[CONTROL_REPS] < 1 || fields[CONTROL_PATTERN] < 0 ||
            fields[CONTROL_PATTERN] > BENCH_STREAM) {
            fprintf(stderr, "pvmbench slave: control message out of range\n");
            break;
        }
        if (!route_applied) {
            if (apply_route((enum bench_route)fields[CONTROL_ROUTE]) < 0)
                break;
            route_applied = 1;
        }
        size_t len = (size_t)fields[CONTROL_LEN];
        if (len > capacity) {
            free(send_buffer);
            free(recv_buffer);
            send_buffer = malloc(len);
            recv_buffer = malloc(len);
            if (!send_buffer || !recv_buffer) {
                fprintf(stderr, "pvmbench slave: out of memory for %zu-byte messages\n", len);
                break;
            }
            capacity = len;
            bench_fill_pattern(send_buffer, len);
        }
        struct bench_trial trial = {
            .pattern = (enum bench_pattern)fields[CONTROL_PATTERN],
            .how = { .api = (enum bench_api)fields[CONTROL_API],
                     .encoding = (enum bench_encoding)fields[CONTROL_ENCODING] },
            .peer = parent, .len = len, .reps = fields[CONTROL_REPS],
            .send_buffer = send_buffer, .recv_buffer = recv_buffer,
            .cold = fields[CONTROL_COLD] != 0,
        };
        if (bench_trial_slave(&trial) < 0)
            break;
    }
    free(send_buffer);
    free(recv_buffer);
    return result;
}

/* Master: one trial on both sides; returns the elapsed nanoseconds or -1. */
static int64_t master_trial(const struct bench_options *o, struct bench_trial *trial)
{
    int fields[CONTROL_FIELDS] = {
        [CONTROL_CMD] = CONTROL_RUN, [CONTROL_PATTERN] = (int)o->pattern,
        [CONTROL_API] = (int)o->how.api, [CONTROL_ENCODING] = (int)o->how.encoding,
        [CONTROL_ROUTE] = (int)o->route, [CONTROL_LEN] = (int)trial->len,
        [CONTROL_REPS] = (int)trial->reps, [CONTROL_COLD] = trial->cold,
    };
    if (send_control(trial->peer, fields) < 0)
        return -1;
    return bench_trial_master(trial);
}

static long clamp_reps(double reps, long max_reps)
{
    if (!(reps >= 1))
        return 1;
    return reps > (double)max_reps ? max_reps : (long)llround(reps);
}

static void print_row(FILE *out, const struct bench_options *o, size_t len, long reps,
                      struct bench_summary us)
{
    double bytes = bench_bytes_per_message(o->pattern, len);
    /* six significant digits: a fixed number of decimals would print a positive figure as 0
     * (1 byte in 4 ms is 0.00025 MB/s) */
    fprintf(out, "%s,%zu,%ld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n", o->label, len, reps, us.median,
            bytes / us.median, us.min, us.max, bytes / us.max, bytes / us.min, o->runs);
}

/* Master: measure every size, write one row each. */
static int run_master(const struct bench_options *o, int slave, FILE *out)
{
    size_t largest = o->sizes[o->size_count - 1];
    char *send_buffer = malloc(largest), *recv_buffer = malloc(largest);
    double *samples = calloc((size_t)o->runs, sizeof *samples);
    int result = -1;
    if (!send_buffer || !recv_buffer || !samples) {
        fprintf(stderr, "pvmbench: out of memory for %zu-byte messages\n", largest);
        goto done;
    }
    bench_fill_pattern(send_buffer, largest);
    if (!o->csv_path)
        fprintf(out, "%-12s %10s %8s %12s %10s %8s\n", "transport", "bytes", "reps", "one_way_us",
                "MBps", "spread%");
    long reps = 4;
    for (size_t s = 0; s < o->size_count; s++) {
        struct bench_trial trial = { .pattern = o->pattern, .how = o->how, .peer = slave,
                                     .len = o->sizes[s], .reps = reps,
                                     .send_buffer = send_buffer, .recv_buffer = recv_buffer,
                                     .cold = o->cold };
        /* A calibration trial sets the repetitions so that one trial lasts about trial_ms. */
        int64_t elapsed = master_trial(o, &trial);
        if (elapsed < 0)
            goto done;
        trial.reps = clamp_reps(o->trial_ms * 1e6 * (double)trial.reps / (double)(elapsed + 1),
                                o->max_reps);
        for (int r = 0; r < o->runs; r++) {
            elapsed = master_trial(o, &trial);
            if (elapsed < 0)
                goto done;
            samples[r] = bench_message_us(o->pattern, elapsed, trial.reps);
        }
        struct bench_summary us = bench_summarise(samples, (size_t)o->runs);
        if (o->csv_path) {
            print_row(out, o, trial.len, trial.reps, us);
            fflush(out);
        } else {
            fprintf(out, "%-12s %10zu %8ld %12.6g %10.6g %8.1f\n", o->label, trial.len, trial.reps,
                    us.median, bench_bytes_per_message(o->pattern, trial.len) / us.median,
                    100 * (us.max - us.min) / us.median);
        }
        if (o->progress) {
            FILE *dots = o->csv_path ? stdout : stderr;
            fputc('.', dots);
            fflush(dots);
        }
        if (s + 1 < o->size_count) /* the next calibration: about as many bytes as a trial */
            reps = clamp_reps((double)trial.reps * (double)trial.len / (double)o->sizes[s + 1],
                              o->max_reps);
    }
    result = 0;
done:
    free(send_buffer);
    free(recv_buffer);
    free(samples);
    return result;
}

static int spawn_slave(const struct bench_options *o)
{
    int tid = 0;
    int count = pvm_spawn((char *)o->slave, NULL, o->host ? PvmTaskHost : PvmTaskDefault,
                          (char *)(o->host ? o->host : ""), 1, &tid);
    if (count == 1)
        return tid;
    fprintf(stderr, "pvmbench: pvm_spawn(\"%s\") failed with PVM error %d"
            " (is its directory on the pvmd's ep= path?)\n", o->slave, count < 0 ? count : tid);
    return -1;
}

int main(int argc, char **argv)
{
    /* The slave is spawned without arguments, so parsing first also serves it. */
    struct bench_options options;
    int parsed = bench_parse_options(argc, argv, &options);
    if (parsed == 0 && strchr(options.label, ',')) {
        fprintf(stderr, "pvmbench: --label must not contain a comma\n");
        parsed = -1;
    }
    if (parsed != 0)
        return parsed < 0 ? 2 : 0;
    if (options.list_sizes) {
        for (size_t i = 0; i < options.size_count; i++)
            printf("%zu\n", options.sizes[i]);
        return 0;
    }

    int self = pvm_mytid();
    if (self < 0) {
        fprintf(stderr, "pvmbench: cannot join PVM, error %d (is a pvmd running?)\n", self);
        return 2;
    }
    int parent = pvm_parent();
    if (parent > 0) {
        int result = run_slave(parent);
        pvm_exit();
        return result < 0 ? 1 : 0;
    }

    FILE *out = options.csv_path ? fopen(options.csv_path, "a") : stdout;
    if (!out) {
        perror(options.csv_path);
        pvm_exit();
        return 2;
    }
    int result = -1;
    int slave = apply_route(options.route) < 0 ? -1 : spawn_slave(&options);
    if (slave > 0) {
        result = run_master(&options, slave, out);
        int quit[CONTROL_FIELDS] = { [CONTROL_CMD] = CONTROL_QUIT };
        if (result < 0 || send_control(slave, quit) < 0)
            pvm_kill(slave);
    }
    if (out != stdout && fclose(out) != 0) {
        perror(options.csv_path);
        result = -1;
    }
    pvm_exit();
    return result < 0 ? 1 : 0;
}
