/* an2-physics: measures what decides the AN2-versus-TCP ratios on the machine it runs on (a
 * system call, a sched_yield, a context switch between two processes, a futex wake-up between
 * two processes, one cache line between two cores, memcpy in and out of cache) and prints
 * them as a Markdown table, so that a reader of a benchmark summary can tell a slow machine
 * from a slow transport. With --line, only the cache line, as a number (bench/compare takes it
 * before every measurement: a host can move the virtual CPUs apart in the middle of a run). */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_clock.h"

#define REPEATS 5   /* each figure is the median of this many measurements */

static int loop_divisor = 1; /* --quick: a tenth of every loop */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ns per call of the cheapest system call there is */
static double syscall_ns(void)
{
    double v[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < 200000 / loop_divisor; i++)
            syscall(SYS_getppid);
        v[r] = (double)(bench_now_ns() - t0) / (200000 / loop_divisor);
    }
    return median(v, REPEATS);
}

static double yield_ns(void)
{
    double v[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < 100000 / loop_divisor; i++)
            sched_yield();
        v[r] = (double)(bench_now_ns() - t0) / (100000 / loop_divisor);
    }
    return median(v, REPEATS);
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* ns per context switch: two processes on one CPU, each yielding to the other `rounds` times
 * (every yield then switches), timed from a common start until both are done; -1 if no CPU
 * is ours or a process could not be made. What a party that waits by yielding pays when
 * another party shares its CPU. */
static double switch_ns(int rounds)
{
    cpu_set_t saved;
    if (sched_getaffinity(0, sizeof saved, &saved) != 0 || CPU_COUNT(&saved) < 1)
        return -1;
    int cpu = 0;
    while (!CPU_ISSET(cpu, &saved))
        cpu++;
    double v[REPEATS];
    int ok = 1;
    for (int r = 0; r < REPEATS && ok; r++) {
        pin(cpu);
        int64_t t0 = bench_now_ns();
        pid_t child = fork();
        if (child < 0) {
            ok = 0;
            break;
        }
        for (int i = 0; i < rounds; i++)
            sched_yield();
        if (child == 0)
            _exit(0);
        int status = 0;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
        v[r] = (double)(bench_now_ns() - t0) / (2.0 * rounds);
        ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    sched_setaffinity(0, sizeof saved, &saved);
    return ok ? median(v, REPEATS) : -1;
}

/* The word two processes hand back and forth: whose turn it is (0 the parent's, 1 the
 * child's), and a stop flag for a child whose parent gives up. */
struct shared {
    _Atomic uint32_t turn;
    _Atomic uint32_t stop;
};

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
    struct timespec limit = {1, 0}; /* a wait never outlives a lost wake-up by long */
    return syscall(SYS_futex, (uint32_t *)word, op, val, op == FUTEX_WAIT ? &limit : NULL,
                   NULL, 0);
}

/* Waits until s->turn is `mine`: by spinning (spin) or in the kernel. 0, or -1 if told to
 * stop. Acquire: what the other side wrote before handing over is visible after. */
static int await_turn(struct shared *s, uint32_t mine, int spin, int64_t deadline)
{
    for (unsigned looks = 0; atomic_load_explicit(&s->turn, memory_order_acquire) != mine;
         looks++) {
        /* a spinner reads the clock only now and then: a clock read between two looks would
         * be counted into the hand-over it measures. Relaxed: the flag carries no data, only
         * "give up" */
        if ((!spin || looks % 256 == 255) &&
            (atomic_load_explicit(&s->stop, memory_order_relaxed) || bench_now_ns() > deadline))
            return -1;
        if (!spin)
            futex(&s->turn, FUTEX_WAIT, mine ^ 1u);
    }
    return 0;
}

/* Release: pairs with the other side's acquire in await_turn. */
static void hand_over(struct shared *s, uint32_t to, int spin)
{
    atomic_store_explicit(&s->turn, to, memory_order_release);
    if (!spin)
        futex(&s->turn, FUTEX_WAKE, 1);
}

/* One-way ns of a hand-over between two processes: futex wake-ups (spin 0) or one cache line
 * spun on from two different CPUs (spin 1; -1 when fewer than two CPUs are ours). Each
 * measurement is bounded to 2 s: a figure that would take longer is reported as missing. */
static double pingpong_ns(int spin, int rounds)
{
    int cpus[2], ncpus = 0;
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) == 0)
        for (int c = 0; c < CPU_SETSIZE && ncpus < 2; c++)
            if (CPU_ISSET(c, &mine))
                cpus[ncpus++] = c;
    if (spin && ncpus < 2)
        return -1;
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                            -1, 0);
    if (s == MAP_FAILED)
        return -1;
    double v[REPEATS];
    int ok = 1;
    for (int r = 0; r < REPEATS && ok; r++) {
        atomic_init(&s->turn, 0);
        atomic_init(&s->stop, 0);
        pid_t child = fork();
        if (child < 0) {
            ok = 0;
            break;
        }
        int64_t deadline = bench_now_ns() + 2000000000;
        if (child == 0) {
            if (spin)
                pin(cpus[1]);
            for (int i = 0; i <= rounds; i++) { /* the first, untimed: both are running */
                if (await_turn(s, 1, spin, deadline))
                    _exit(1);
                hand_over(s, 0, spin);
            }
            _exit(0);
        }
        cpu_set_t saved;
        sched_getaffinity(0, sizeof saved, &saved);
        if (spin)
            pin(cpus[0]);
        hand_over(s, 1, spin); /* a round trip untimed: the child has started and moved */
        if (await_turn(s, 0, spin, deadline))
            ok = 0;
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < rounds && ok; i++) {
            hand_over(s, 1, spin);
            if (await_turn(s, 0, spin, deadline))
                ok = 0;
        }
        v[r] = (double)(bench_now_ns() - t0) / rounds / 2;
        sched_setaffinity(0, sizeof saved, &saved);
        atomic_store_explicit(&s->stop, 1, memory_order_relaxed); /* a late child gives up */
        futex(&s->turn, FUTEX_WAKE, 1);
        int status = 0;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
        ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    munmap(s, sizeof *s);
    return ok ? median(v, REPEATS) : -1;
}

/* GB/s of memcpy from one buffer of `bytes` to another, over about `total` bytes copied */
static double memcpy_gbs(size_t bytes, size_t total)
{
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    size_t times = total / bytes ? total / bytes : 1;
    double v[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        int64_t t0 = bench_now_ns();
        for (size_t i = 0; i < times; i++) {
            memcpy(i & 1 ? a : b, i & 1 ? b : a, bytes);
            __asm__ volatile("" ::: "memory"); /* every copy happens */
        }
        v[r] = (double)(bytes * times) / (double)(bench_now_ns() - t0);
    }
    free(a);
    free(b);
    return median(v, REPEATS);
}

/* One table row: value times unit_scale in unit, or a dash for a figure not measured. */
static void row(const char *what, double value, const char *unit, double unit_scale,
                const char *how)
{
    double shown = value * unit_scale;
    if (value < 0)
        printf("| %s | – | %s |\n", what, how);
    else
        printf("| %s | %.*f %s | %s |\n", what, shown < 10 ? 2 : 1, shown, unit, how);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--line")) {
        /* the one figure a virtual machine's host changes under a run (where it places the
         * virtual CPUs), quickly, for a timeline: ns, or nothing with exit 1 */
        double ns = pingpong_ns(1, 20000);
        if (ns < 0)
            return 1;
        printf("%.0f\n", ns);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--quick")) {
        loop_divisor = 10;
        argc--, argv++;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: an2-physics [--quick | --line]\n  prints this machine's costs of "
                        "waiting and copying as a Markdown table (--quick: a tenth of the loops);\n"
                        "  --line: only the one-way ns of a cache line between two CPUs\n");
        return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 0;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    char how[5][96];
    snprintf(how[0], sizeof how[0], "`getppid`, %d calls", 200000 / loop_divisor);
    snprintf(how[1], sizeof how[1], "%d calls, whatever else runs", 100000 / loop_divisor);
    snprintf(how[2], sizeof how[2], "two processes handing a word back and forth, %d round trips",
             20000 / loop_divisor);
    snprintf(how[3], sizeof how[3],
             "two processes on two CPUs spinning on one word, %d round trips",
             200000 / loop_divisor);
    snprintf(how[4], sizeof how[4],
             "two processes on one CPU yielding to each other, %d switches", 100000 / loop_divisor);
    printf("| this machine's cost of | measured | how |\n| --- | ---: | --- |\n");
    row("a system call", syscall_ns(), "µs", 1e-3, how[0]);
    row("a `sched_yield`", yield_ns(), "µs", 1e-3, how[1]);
    row("a context switch between two processes", switch_ns(50000 / loop_divisor), "µs", 1e-3,
        how[4]);
    row("a futex wake-up, one way", pingpong_ns(0, 20000 / loop_divisor), "µs", 1e-3, how[2]);
    row("one cache line between two cores, one way", pingpong_ns(1, 200000 / loop_divisor), "µs",
        1e-3, how[3]);
    size_t total = ((size_t)1 << 30) / (size_t)loop_divisor;
    row("memcpy of 64 KiB (in cache)", memcpy_gbs(64 << 10, total), "GB/s", 1,
        loop_divisor == 1 ? "1 GiB copied" : "100 MiB copied");
    row("memcpy of 64 MiB (out of cache)", memcpy_gbs(64 << 20, total), "GB/s", 1,
        loop_divisor == 1 ? "1 GiB copied" : "100 MiB copied");
    printf("\n%ld CPUs online; each figure is the median of %d measurements.\n", online, REPEATS);
    return 0;
}
