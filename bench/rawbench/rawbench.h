/* rawbench.h — an2-rawbench's parts: a private an2d per link rate, and the two measuring
 * processes (ping-pong one-way latency, streaming bandwidth) over one VC. */
#ifndef RAWBENCH_H
#define RAWBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct rb_an2d {
    char dir[64], socket[100], log[100];
    pid_t pid;
};

/* Starts an2d --rate rate in a fresh temp dir and points AN2_SOCKET at it. 0 or -errno. */
int rb_an2d_start(struct rb_an2d *d, const char *rate);
void rb_an2d_stop(struct rb_an2d *d);

#endif
