/* an2d_stop.h — the clean stop command (`an2d --stop`). */
#ifndef AN2D_STOP_H
#define AN2D_STOP_H

#include <stdbool.h>

/* Asks the an2d listening at path to stop; waits up to timeout_ms until it has exited.
 * 0, or -ECONNREFUSED/-ENOENT (none there), -ETIMEDOUT, -EPROTO. */
int an2d_stop(const char *path, int timeout_ms);

#endif
