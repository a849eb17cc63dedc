/* an2_log.h — a daemon's log (an2d's, an2switch's): timestamped lines on stderr or the log
 * file, and a limit on how fast one kind of line may repeat, so that no peer and no error can
 * flood it. */
#ifndef AN2_LOG_H
#define AN2_LOG_H

#include <stdint.h>

/* Sends later log lines to fd (default 2). */
void an2_log_set_fd(int fd);
/* The program named in every line (default "an2d"). */
void an2_log_set_name(const char *name);
void an2_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One kind of line (a static per call site, zeroed): at most AN2_LOG_BURST such lines per
 * AN2_LOG_WINDOW_S seconds; the first line after a window that dropped some says how many. */
#define AN2_LOG_BURST 5u
#define AN2_LOG_WINDOW_S 10u
struct an2_log_limit {
    uint64_t window_start_ns;
    uint32_t lines, suppressed;
};
void an2_log_limited(struct an2_log_limit *limit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
