/* an2d_log.h — an2d's log: timestamped lines on stderr or the log file. */
#ifndef AN2D_LOG_H
#define AN2D_LOG_H

/* Sends later log lines to fd (default 2). */
void an2d_log_set_fd(int fd);
void an2d_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
