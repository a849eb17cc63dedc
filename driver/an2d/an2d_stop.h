/* an2d_stop.h — the clean stop command (`an2d --stop`). */
#ifndef AN2D_STOP_H
#define AN2D_STOP_H

#include <stdbool.h>

/* Asks the an2d listening at path (system: the system an2d's, whose server must be root) to
 * stop; waits up to timeout_ms until it has exited. 0, or -ECONNREFUSED/-ENOENT (none there),
 * -EPERM (refused; the reason in an2_error_detail), -ETIMEDOUT, -EPROTO. */
int an2d_stop(const char *path, bool system, int timeout_ms);

#endif
