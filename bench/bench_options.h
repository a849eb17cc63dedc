/* Command line of pvmbench: what to measure, how, and where the figures go. */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stddef.h>

#include "bench_patterns.h"
#include "bench_sizes.h"

enum bench_route { BENCH_ROUTE_DEFAULT, BENCH_ROUTE_DIRECT, BENCH_ROUTE_DAEMON };

struct bench_options {
    enum bench_pattern pattern;
    struct bench_transfer how;
    enum bench_route route;
    size_t sizes[BENCH_SIZES_MAX];
    size_t size_count;
    int runs;              /* timed trials per size; the median is reported */
    double trial_ms;       /* wanted duration of one trial; sets the repetitions */
    long max_reps;
    const char *label;     /* first CSV column */
    const char *csv_path;  /* append CSV rows here; NULL: print a table on stdout */
    const char *slave;     /* program name pvmd spawns (found on its ep= path) */
    const char *host;      /* spawn it on this host (PvmTaskHost); NULL: where pvmd likes */
    int progress;          /* one dot per size: on stdout with --csv, else stderr */
    int cold;              /* ping-pong with buffers evicted from the caches (GAMMA) */
    int list_sizes;        /* print the sizes and exit */
};

/* Parses argv; on bad input prints the reason and the usage to stderr and returns -1;
 * returns 1 after printing the usage for --help; 0 otherwise. */
int bench_parse_options(int argc, char **argv, struct bench_options *options);

#endif
