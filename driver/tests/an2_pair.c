/* an2_pair.c — test helpers: a forked pair of endpoints joined by a VC, payload patterns,
 * waiting for reports. */
#include "an2_pair.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void an2_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d [pid %d]: ", file, line, (int)getpid());
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(1);
}

void an2_pair_signal(struct an2_pair *p, char c)
{
    if (write(p->to_peer, &c, 1) != 1)
        FAIL("pipe write: %s", strerror(errno));
}

char an2_pair_await(struct an2_pair *p)
{
    char c;
    if (read(p->from_peer, &c, 1) != 1)
        FAIL("the other process went away");
    return c;
}

void an2_pair_setup(struct an2_pair *p, const struct an2_open_params *params)
{
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0)
        FAIL("pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        FAIL("fork");
    memset(p, 0, sizeof *p);
    p->parent = pid > 0;
    p->child = pid;
    p->to_peer = p->parent ? down[1] : up[1];
    p->from_peer = p->parent ? up[0] : down[0];
    close(p->parent ? down[0] : up[0]);
    close(p->parent ? up[1] : down[1]);
    /* the two ends on two hosts of a fabric: the child uses the other host's an2d */
    const char *peer_socket = getenv("AN2_PEER_SOCKET");
    if (!p->parent && peer_socket && *peer_socket)
        setenv("AN2_SOCKET", peer_socket, 1);
    int rc = an2_open(params, &p->ep);
    if (rc != 0)
        FAIL("an2_open: %s (%s)", an2_strerror(rc), an2_error_detail());
    uint32_t mine = an2_endpoint_id(p->ep);
    if (write(p->to_peer, &mine, sizeof mine) != sizeof mine ||
        read(p->from_peer, &p->peer_id, sizeof p->peer_id) != sizeof p->peer_id)
        FAIL("exchanging endpoint ids");
    if (p->parent) {
        rc = an2_vc_open(p->ep, p->peer_id, AN2_TEST_WAIT_MS, &p->vc);
        if (rc != 0)
            FAIL("an2_vc_open: %s (%s)", an2_strerror(rc), an2_error_detail());
    } else {
        rc = an2_vc_open_start(p->ep, p->peer_id);
        if (rc != 0)
            FAIL("an2_vc_open_start: %s", an2_strerror(rc));
        for (double t0 = an2_test_ms(); (rc = an2_vc_open_complete(p->ep, &p->vc)) == 0;) {
            if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
                FAIL("the VC did not open within %d ms", AN2_TEST_WAIT_MS);
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        if (rc < 0)
            FAIL("an2_vc_open_complete: %s (%s)", an2_strerror(rc), an2_error_detail());
    }
    if (p->vc.peer_id != p->peer_id)
        FAIL("VC to %u, wanted %u", p->vc.peer_id, p->peer_id);
}

int an2_pair_wait_child(struct an2_pair *p)
{
    int status;
    if (waitpid(p->child, &status, 0) != p->child)
        FAIL("waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void an2_fill_pattern(uint8_t *dst, size_t len, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        dst[i] = (uint8_t)(x >> 16);
    }
}

bool an2_check_pattern(const uint8_t *src, size_t len, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        if (src[i] != (uint8_t)(x >> 16))
            return false;
    }
    return true;
}

struct an2_report an2_expect_report(an2_ep *ep, uint8_t kind, int timeout_ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct an2_report r;
        int n = an2_wait(ep, &r, 1, 100);
        if (n < 0)
            FAIL("an2_wait: %s", an2_strerror(n));
        if (n == 1) {
            if (r.kind == kind)
                return r;
            if (r.kind == AN2_REPORT_TX && r.status == AN2_STATUS_OK)
                continue;
            FAIL("unexpected report kind %u status %s on vc %u while waiting for kind %u",
                 r.kind, an2_status_str(r.status), r.vc, kind);
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
            FAIL("no report of kind %u within %d ms", kind, timeout_ms);
    }
}

void an2_expect_summary(const char *want)
{
    const char *dir = getenv("AN2_BUILD_DIR");
    char cmd[512], line[256] = "";
    snprintf(cmd, sizeof cmd, "%s/bin/an2stat --summary", dir ? dir : ".");
    for (double t0 = an2_test_ms(); an2_test_ms() - t0 < AN2_TEST_WAIT_MS;) {
        FILE *f = popen(cmd, "r");
        if (!f || !fgets(line, sizeof line, f))
            FAIL("an2stat gave nothing");
        pclose(f);
        if (strstr(line, want)) {
            printf("an2stat: %s", line);
            return;
        }
        usleep(50000);
    }
    FAIL("an2stat says '%.*s', wanted '%s'", (int)strcspn(line, "\n"), line, want);
}

double an2_test_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void an2_expect_proc_state(pid_t pid, const char *states, const char *what)
{
    char path[64], buf[512];
    char state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (double t0 = an2_test_ms(); an2_test_ms() - t0 < AN2_TEST_WAIT_MS; usleep(1000)) {
        FILE *f = fopen(path, "r");
        if (!f)
            FAIL("%s: pid %d is gone", what, (int)pid);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *close_paren = strrchr(buf, ')');
        if (close_paren && close_paren[1] == ' ' && close_paren[2]) {
            state = close_paren[2];
            if (strchr(states, state))
                return;
        }
    }
    FAIL("%s: pid %d still in state %c, not %s, after %d ms", what, (int)pid, state, states,
         AN2_TEST_WAIT_MS);
}
