/* an2d_activation.h — systemd's socket activation (the LISTEN_FDS protocol), by hand. */
#ifndef AN2D_ACTIVATION_H
#define AN2D_ACTIVATION_H

#include <stddef.h>

#define AN2D_ACTIVATION_FD 3 /* SD_LISTEN_FDS_START: the first descriptor passed */

/* Whether we were started with a listening socket: LISTEN_PID is our pid and LISTEN_FDS is
 * 1. Returns AN2D_ACTIVATION_FD (checked: a listening Unix SOCK_SEQPACKET socket, made
 * non-blocking and close-on-exec), -1 if not activated, or -2 with the reason in err (one
 * descriptor of the wrong kind, or several). The variables are removed from the environment
 * either way. Call before closing inherited descriptors. */
int an2d_activation_fd(char *err, size_t len);

#endif
