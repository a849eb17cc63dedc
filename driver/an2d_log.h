/* an2d_log.h — an2d's log: timestamped lines on stderr or the log file, and a limit on how
 * fast one kind of line may repeat, so that no client and no error can flood it. */
#ifndef AN2D_LOG_H
#define AN2D_LOG_H

#include <stdint.h>

/* Sends later log lines to fd (default 2). */
void an2d_log_set_fd(int fd);
/* The program named in every line (default "an2d"). */
void an2d_log_set_name(const char *name);
void an2d_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One kind of line (a static per call site, zeroed): at most AN2D_LOG_BURST such lines per
 * AN2D_LOG_WINDOW_S seconds; the first line after a window that dropped some says how many. */
#define AN2D_LOG_BURST 5u
#define AN2D_LOG_WINDOW_S 10u
struct an2d_log_limit {
    uint64_t window_start_ns;
    uint32_t lines, suppressed;
};
void an2d_log_limited(struct an2d_log_limit *limit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
