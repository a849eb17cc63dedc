/* rawbench_an2d.c — a private an2d for one benchmark run: started in a fresh temp dir at a
 * given link rate, found through AN2_SOCKET, stopped and cleaned up afterwards. */
#include "rawbench.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AN2D_DEFAULT_PATH
#define AN2D_DEFAULT_PATH "an2d"
#endif

extern char **environ;

static bool answers(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

int rb_an2d_start(struct rb_an2d *d, const char *rate)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 40) /* the socket path must fit sun_path */
        tmp = "/tmp";
    snprintf(d->dir, sizeof d->dir, "%s/an2-rawbench.XXXXXX", tmp);
    if (!mkdtemp(d->dir))
        return -errno;
    snprintf(d->socket, sizeof d->socket, "%s/an2d.sock", d->dir);
    snprintf(d->log, sizeof d->log, "%s/an2d.log", d->dir);
    const char *prog = getenv("AN2D_PATH");
    if (!prog || !*prog)
        prog = AN2D_DEFAULT_PATH;
    char *argv[] = {(char *)prog, "--socket", d->socket, "--rate", (char *)rate,
                    "--log-file", d->log, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    int rc = posix_spawn(&d->pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "an2-rawbench: cannot start %s: %s\n", prog, strerror(rc));
        rmdir(d->dir);
        return -rc;
    }
    for (int i = 0; i < 500; i++) {
        if (answers(d->socket)) {
            setenv("AN2_SOCKET", d->socket, 1);
            return 0;
        }
        if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
            d->pid = 0;
            break;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "an2-rawbench: %s --rate %s did not start (log %s)\n", prog, rate, d->log);
    rb_an2d_stop(d);
    return -ECONNREFUSED;
}

void rb_an2d_stop(struct rb_an2d *d)
{
    if (d->pid > 0) {
        kill(d->pid, SIGTERM); /* an2d stops cleanly on SIGTERM, like --stop */
        waitpid(d->pid, NULL, 0);
        d->pid = 0;
    }
    unlink(d->log);
    rmdir(d->dir);
}
