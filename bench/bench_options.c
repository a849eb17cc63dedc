/* Command line of pvmbench: what to measure, how, and where the figures go. */
#include "bench_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out, const char *program)
{
    fprintf(out,
        "usage: %s [options]   (run under a pvmd; spawns its partner through pvm_spawn)\n"
        "  --pattern pingpong|exchange|stream   what to measure (default pingpong)\n"
        "  --api pack|psend        pvm_pk*/pvm_send/pvm_recv or pvm_psend/pvm_precv (default pack)\n"
        "  --data raw|inplace      encoding for --api pack: PvmDataRaw or PvmDataInPlace (default raw)\n"
        "  --route default|direct|dontroute   PvmRoute setting of both tasks (default: left alone)\n"
        "  --min B --max B         size range, NetPIPE style (default 1 .. 4194304)\n"
        "  --perturb N             also measure 2^k-N and 2^k+N (default 3; 0: powers of two)\n"
        "  --sizes B,B,...         exact sizes instead of a range\n"
        "  --runs N                timed trials per size, median reported (default 5)\n"
        "  --trial-ms T            duration of one trial, sets repetitions (default 50)\n"
        "  --max-reps N            upper bound on repetitions per trial (default 1000000)\n"
        "  --label NAME            transport name in the first CSV column (default pvm)\n"
        "  --csv FILE              append rows transport,bytes,reps,one_way_us,MBps,\n"
        "                          one_way_us_min,one_way_us_max,MBps_min,MBps_max,runs\n"
        "  --slave NAME            program to spawn (default: this program's name)\n"
        "  --host NAME             spawn it on that host of the virtual machine (default:\n"
        "                          where the pvmd chooses)\n"
        "  --cold                  ping-pong with cold caches: both tasks evict their buffers\n"
        "                          before each exchange, outside the timed section (GAMMA)\n"
        "  --progress              one dot per size (on stdout with --csv, else on stderr)\n"
        "  --list-sizes            print the message sizes, one per line, and exit\n",
        program);
}

static int parse_choice(const char *value, const char *const names[], int count, int *out)
{
    for (int i = 0; i < count; i++)
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

static int parse_number(const char *value, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double number = strtod(value, &end);
    if (end == value || *end != '\0' || errno || !(number >= min && number <= max))
        return -1;
    *out = number;
    return 0;
}

int bench_parse_options(int argc, char **argv, struct bench_options *o)
{
    static const char *const patterns[] = { "pingpong", "exchange", "stream" };
    static const char *const apis[] = { "pack", "psend" };
    static const char *const encodings[] = { "raw", "inplace" };
    static const char *const routes[] = { "default", "direct", "dontroute" };
    static const struct option long_options[] = {
        { "pattern", required_argument, 0, 'p' }, { "api", required_argument, 0, 'a' },
        { "data", required_argument, 0, 'd' },    { "route", required_argument, 0, 'r' },
        { "min", required_argument, 0, 'm' },     { "max", required_argument, 0, 'M' },
        { "perturb", required_argument, 0, 'P' }, { "sizes", required_argument, 0, 's' },
        { "runs", required_argument, 0, 'n' },    { "trial-ms", required_argument, 0, 't' },
        { "max-reps", required_argument, 0, 'R' }, { "label", required_argument, 0, 'l' },
        { "csv", required_argument, 0, 'c' },     { "slave", required_argument, 0, 'S' },
        { "progress", no_argument, 0, 'g' },      { "help", no_argument, 0, 'h' },
        { "cold", no_argument, 0, 'C' },          { "list-sizes", no_argument, 0, 'L' },
        { "host", required_argument, 0, 'H' },
        { 0, 0, 0, 0 },
    };
    const char *program = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    double min = 1, max = 4194304, perturb = 3, number = 0;
    const char *size_list = NULL;
    int choice = 0, c;

    *o = (struct bench_options){ .pattern = BENCH_PINGPONG, .runs = 5, .trial_ms = 50,
                                 .max_reps = 1000000, .label = "pvm", .slave = program };
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'p': bad = parse_choice(optarg, patterns, 3, &choice); o->pattern = choice; break;
        case 'a': bad = parse_choice(optarg, apis, 2, &choice); o->how.api = choice; break;
        case 'd': bad = parse_choice(optarg, encodings, 2, &choice); o->how.encoding = choice; break;
        case 'r': bad = parse_choice(optarg, routes, 3, &choice); o->route = choice; break;
        case 'm': bad = parse_number(optarg, 1, 1 << 28, &min); break;
        case 'M': bad = parse_number(optarg, 1, 1 << 28, &max); break;
        case 'P': bad = parse_number(optarg, 0, 1 << 20, &perturb); break;
        case 's': size_list = optarg; break;
        case 'n': bad = parse_number(optarg, 1, 1000, &number); o->runs = (int)number; break;
        case 't': bad = parse_number(optarg, 0.001, 1e6, &o->trial_ms); break;
        case 'R': bad = parse_number(optarg, 1, 1e9, &number); o->max_reps = (long)number; break;
        case 'l': o->label = optarg; break;
        case 'c': o->csv_path = optarg; break;
        case 'S': o->slave = optarg; break;
        case 'H': o->host = optarg; break;
        case 'g': o->progress = 1; break;
        case 'C': o->cold = 1; break;
        case 'L': o->list_sizes = 1; break;
        case 'h': usage(stdout, program); return 1;
        default:
            fprintf(stderr, "%s: unknown option or missing value: %s\n", program, argv[optind - 1]);
            usage(stderr, program);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "%s: bad value '%s' for %s\n", program, optarg, argv[optind - 1]);
            usage(stderr, program);
            return -1;
        }
    }
    if (o->cold && o->pattern != BENCH_PINGPONG) {
        fprintf(stderr, "%s: --cold applies to --pattern pingpong only\n", program);
        return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", program, argv[optind]);
        usage(stderr, program);
        return -1;
    }
    o->size_count = size_list ? bench_sizes_parse(size_list, o->sizes)
                              : bench_sizes_build((size_t)min, (size_t)max, (size_t)perturb, o->sizes);
    if (o->size_count == 0) {
        fprintf(stderr, "%s: no valid message sizes (check --sizes or --min/--max)\n", program);
        return -1;
    }
    return 0;
}
