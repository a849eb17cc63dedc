/* check.h — a minimal assertion macro for otto-emul's tests: report and fail, never abort. */
#ifndef OTTO_TEST_CHECK_H
#define OTTO_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            check_failures++;                                                 \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

static inline int check_exit(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
