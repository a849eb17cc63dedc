/* an2d_proc.h — an2d's process seen from /proc: whether a pid is a running an2d (an2d --stop
 * waits for that to end; liban2 checks the pid an2d gave it), and whether it shares the
 * caller's CPU scheduling group, so that liban2 knows whether a yield reaches it. */
#ifndef AN2D_PROC_H
#define AN2D_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* True while pid is a running an2d (a zombie, or a pid reused by another program, is not). */
bool an2_pid_is_an2d(pid_t pid);
/* True unless the process an2d (its pid) is known to share our CPU
 * scheduling group (cgroup and, under autogroup, session), where our yields reach it. */
bool an2_sched_group_apart(pid_t an2d);
/* an2d's pid if the process it names is ours and called an2d, so that we may move it to our
 * CPU (sched_setaffinity; otto_hw.h's move hint); else 0. */
pid_t an2_sched_group_movable(pid_t an2d);

#endif
