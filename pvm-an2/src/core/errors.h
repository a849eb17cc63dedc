/* Errors recorded for the caller (pvm_errno, PvmAutoErr reports) and the library's log line. */
#ifndef LPVM_ERRORS_H
#define LPVM_ERRORS_H

extern int pvm_errno;     /* stock exports it without declaring it in <pvm3.h> */

/* Records code in pvm_errno for the call fn and reports it as PvmAutoErr asks; returns code. */
int lpvm_error(const char *fn, int code);
/* One line on stderr, prefixed with our tid (or pid) as stock does. */
void lpvm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
