/* t_gone.c — a VC between two processes (on two hosts with AN2_PEER_SOCKET); each side says
 * "ready", then waits (up to 20 s) for the VC to be reported gone — PEER_GONE, or its own
 * an2d vanishing — and prints "gone <side> <wall-clock ms>" so that a test can time it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "an2_pair.h"

static long long wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(void)
{
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    const char *side = p.parent ? "parent" : "child";
    printf("ready %s\n", side);
    fflush(stdout);
    for (int waited = 0; waited < 20000; waited += 100) {
        struct an2_report r;
        int n = an2_wait(p.ep, &r, 1, 100);
        if (n < 0) { /* our an2d went away: everything of ours is gone */
            printf("gone %s %lld an2d-lost\n", side, wall_ms());
            fflush(stdout);
            return 0;
        }
        if (n == 1 && r.kind == AN2_REPORT_VC && r.status == AN2_STATUS_PEER_GONE) {
            printf("gone %s %lld peer-gone\n", side, wall_ms());
            fflush(stdout);
            an2_close(p.ep);
            return 0;
        }
        if (n == 1 && r.kind != AN2_REPORT_TX)
            FAIL("%s: unexpected report kind %u status %s", side, r.kind,
                 an2_status_str(r.status));
    }
    FAIL("%s: the VC was not reported gone within 20 s", side);
}
