/* an2_pair.h — test helpers: two processes (fork) with an endpoint each and a VC between
 * them, a pattern to fill and check payloads, and waiting for one report kind. */
#ifndef AN2_PAIR_H
#define AN2_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "an2.h"

struct an2_pair {
    bool   parent;       /* which side of the fork this process is */
    pid_t  child;        /* in the parent */
    an2_ep *ep;
    uint32_t peer_id;
    struct an2_vc_info vc;
    int    to_peer, from_peer; /* pipes for test coordination */
};

#define FAIL(...) an2_test_fail(__FILE__, __LINE__, __VA_ARGS__)
/* How long a test waits for an event that must come, before it fails: long enough for a
 * slow or loaded machine (a test waits for events, never for time). */
#define AN2_TEST_WAIT_MS 30000
void an2_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* Forks; both sides open an endpoint (params may be NULL) and a VC to each other: the
 * parent with the blocking call, the child with start/complete. Dies on failure. With
 * AN2_PEER_SOCKET set, the child uses the an2d at that control socket (another host). */
void an2_pair_setup(struct an2_pair *p, const struct an2_open_params *params);
/* Parent: waits for the child and returns its exit status (0 = good). */
int an2_pair_wait_child(struct an2_pair *p);
/* One byte of coordination through the pipes. */
void an2_pair_signal(struct an2_pair *p, char c);
char an2_pair_await(struct an2_pair *p);

void an2_fill_pattern(uint8_t *dst, size_t len, uint32_t seed);
bool an2_check_pattern(const uint8_t *src, size_t len, uint32_t seed);

/* Waits (up to timeout_ms) for a report of kind, skipping TX OK reports; dies on any other
 * report or on timeout. */
struct an2_report an2_expect_report(an2_ep *ep, uint8_t kind, int timeout_ms);

/* Runs an2stat --summary until it says want (e.g. "endpoints 1 vcs 1 routes 0"), for up to
 * AN2_TEST_WAIT_MS (an2d handles a closed connection asynchronously); dies otherwise. */
void an2_expect_summary(const char *want);

/* Milliseconds on CLOCK_MONOTONIC. */
double an2_test_ms(void);
/* Waits (up to AN2_TEST_WAIT_MS) until process pid is in one of states (/proc/PID/stat's
 * letters, e.g. "S": asleep in a system call, "T": stopped); dies naming what otherwise. */
void an2_expect_proc_state(pid_t pid, const char *states, const char *what);

#endif
