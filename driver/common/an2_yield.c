/* an2_yield.c — sched_yield that notices when it reaches nobody (an2_yield.h). */
#include "an2_yield.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "an2_clock.h"

/* A yield that switched to another party and back costs two context switches and that
 * party's run on top of the system call; one that switched nowhere costs about as much as
 * the bare call, which getppid measures (it never switches, whatever else is runnable).
 * A yield within LONE_FACTOR system calls reached nobody. */
#define LONE_FACTOR 4u
/* After one, pause for SPIN_YIELDS such yields' worth of time before yielding again: at most
 * one part in SPIN_YIELDS of a lone waiter's time goes to the system call, and a party that
 * becomes runnable on this CPU meanwhile waits no longer than that. */
#define SPIN_YIELDS 8u
#define SPIN_MAX_NS 20000u /* and never longer than this, whatever a yield costs */
#define CALIBRATION_CALLS 16

static uint64_t syscall_ns(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < CALIBRATION_CALLS; i++) {
        uint64_t t = an2_now_ns();
        syscall(SYS_getppid);
        t = an2_now_ns() - t;
        if (t < best)
            best = t;
    }
    return best ? best : 1;
}

void an2_yield_cpu(struct an2_yielder *y)
{
    if (!y->syscall_ns)
        y->syscall_ns = syscall_ns();
    uint64_t start = an2_now_ns();
    if (start < y->spin_until_ns) {
        an2_cpu_relax();
        return;
    }
    sched_yield();
    uint64_t took = an2_now_ns() - start;
    if (took < LONE_FACTOR * y->syscall_ns) {
        uint64_t window = SPIN_YIELDS * took;
        y->spin_until_ns = start + took + (window < SPIN_MAX_NS ? window : SPIN_MAX_NS);
    }
}
