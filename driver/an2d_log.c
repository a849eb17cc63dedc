/* an2d_log.c — an2d's log: one timestamped line per event, written with a single write(). */
#include "an2d_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int log_fd = 2;

void an2d_log_set_fd(int fd) { log_fd = fd; }

void an2d_log(const char *fmt, ...)
{
    char line[512];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%02d:%02d:%02d.%06ld an2d[%d]: ", tm.tm_hour, tm.tm_min,
                     tm.tm_sec, now.tv_nsec / 1000, (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(log_fd, line, len);
    (void)w; /* nowhere left to report a failed log write */
}
