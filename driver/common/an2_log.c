/* an2_log.c — the log of a daemon (an2d, an2switch): one timestamped line per event, written
 * with a single write(), and the rate limit for lines that a peer or an error could repeat
 * without end. */
#include "an2_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "an2_clock.h"

static int log_fd = 2;
static const char *log_name = "an2d";

void an2_log_set_fd(int fd) { log_fd = fd; }
void an2_log_set_name(const char *name) { log_name = name; }

static void log_line(const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void log_line(const char *prefix, const char *fmt, va_list ap)
{
    char line[512];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%02d:%02d:%02d.%06ld %s[%d]: %s", tm.tm_hour,
                     tm.tm_min, tm.tm_sec, now.tv_nsec / 1000, log_name, (int)getpid(), prefix);
    if (n < 0 || (size_t)n >= sizeof line - 1)
        n = 0;
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(log_fd, line, len);
    (void)w; /* nowhere left to report a failed log write */
}

void an2_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("", fmt, ap);
    va_end(ap);
}

void an2_log_limited(struct an2_log_limit *limit, const char *fmt, ...)
{
    uint64_t now = an2_now_ns();
    char prefix[64] = "";
    if (limit->lines == 0 || now - limit->window_start_ns >= AN2_LOG_WINDOW_S * 1000000000ull) {
        if (limit->suppressed)
            snprintf(prefix, sizeof prefix, "(%u more like the next not logged) ",
                     limit->suppressed);
        *limit = (struct an2_log_limit){.window_start_ns = now};
    }
    if (limit->lines >= AN2_LOG_BURST) {
        limit->suppressed++;
        return;
    }
    limit->lines++;
    va_list ap;
    va_start(ap, fmt);
    log_line(prefix, fmt, ap);
    va_end(ap);
}
