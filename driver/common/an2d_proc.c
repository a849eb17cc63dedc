/* an2d_proc.c — an2d's process seen from /proc: whether a pid is a running an2d, whether an2d
 * shares the caller's CPU scheduling group, so that the caller's sched_yield can hand a shared
 * CPU to it, and whether the caller may move an2d to its CPU. The scheduler shares a CPU out
 * between groups first (the cgroup's, and under autogroup each session's) and a yield gives it
 * up only within the group, so a task apart from an2d sleeps briefly instead (an2_yield). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "an2d_proc.h"

/* The text of the file at path (at most len - 1 bytes) into buf; false if unreadable or
 * longer. */
static bool file_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, len - 1, f);
    bool whole = n < len - 1 && !ferror(f);
    fclose(f);
    buf[n] = 0;
    return whole;
}

/* Whether /proc/self/NAME and /proc/PID/NAME say the same. */
static bool same_proc_text(pid_t pid, const char *name)
{
    char path[64], mine[2048], theirs[2048];
    snprintf(path, sizeof path, "/proc/self/%s", name);
    if (!file_text(path, mine, sizeof mine))
        return false;
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    return file_text(path, theirs, sizeof theirs) && strcmp(mine, theirs) == 0;
}

bool an2_pid_is_an2d(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (pid <= 0 || !file_text(path, line, sizeof line))
        return false;
    const char *close_paren = strrchr(line, ')');
    if (!close_paren || close_paren[1] != ' ' || close_paren[2] == 'Z' || close_paren[2] == 'X')
        return false;
    return strstr(line, "(an2d)") != NULL;
}

bool an2_sched_group_apart(pid_t an2d)
{
    /* Unknown counts as apart: a wrong guess either way costs speed, never correctness (a nap
     * where a yield would have done, or a yield that does not reach an2d). The pid is an2d's
     * own, from its OPEN reply; in another pid namespace it may name another process. */
    if (an2d <= 0 || !same_proc_text(an2d, "cgroup")) /* v2: "0::/path"; v1: a line each */
        return true;
    char enabled[8];
    if (file_text("/proc/sys/kernel/sched_autogroup_enabled", enabled, sizeof enabled) &&
        enabled[0] == '0')
        return false;
    return !same_proc_text(an2d, "autogroup"); /* "/autogroup-N nice K": the session's group */
}

pid_t an2_sched_group_movable(pid_t an2d)
{
    /* The pid from the OPEN reply names an2d in its own pid namespace: only a process of
     * ours called an2d is taken for it, so a move never pins anyone else's process. */
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", (int)an2d);
    if (an2d <= 0 || stat(path, &st) != 0 || st.st_uid != geteuid())
        return 0;
    return an2_pid_is_an2d(an2d) ? an2d : 0;
}
