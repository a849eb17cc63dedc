/* an2_yield.h — yielding the CPU while polling shared memory, without paying for yields that
 * reach nobody. A waiter that polls yields so that a party sharing its CPU (an2d, the peer
 * task) can run. A yield that comes back within a few bare system calls switched to nobody:
 * no one else is runnable on this CPU (or in our scheduling group), and yielding again
 * at once would buy one more system call (over a microsecond on some machines) and a later
 * look. So for a short window after such a yield the waiter only pauses between looks; then
 * it yields again, which lets a party that became runnable meanwhile have the CPU. Both the
 * test and the window are in the machine's own costs, measured at the first yield. */
#ifndef AN2_YIELD_H
#define AN2_YIELD_H

#include <stdint.h>

struct an2_yielder {
    uint64_t syscall_ns;    /* the machine's cost of a bare system call (0: not measured yet) */
    uint64_t spin_until_ns; /* after a yield that reached nobody: only pause until then */
};

/* One pause of a spinning loop. */
static inline void an2_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Yields the CPU, or only pauses within the window a yield that reached nobody opened. */
void an2_yield_cpu(struct an2_yielder *y);

#endif
