/* an2d_files.c — an2d's control socket and the files beside it (lock, pid, log): its
 * directory made and checked, the single-instance lock taken, a dead an2d's socket replaced;
 * the files themselves are owned files (owned_file.h). */
#include "an2d_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "an2.h"
#include "an2_sockpath.h"

void an2d_derived_path(char *out, size_t len, const char *sock, const char *ext)
{
    size_t n = strlen(sock);
    if (n > 5 && strcmp(sock + n - 5, ".sock") == 0)
        n -= 5;
    snprintf(out, len, "%.*s%s", (int)n, sock, ext);
}

static int say(const char *path, int err)
{
    fprintf(stderr, "an2d: %s: %s\n", path,
            err == EPERM ? "not a regular file of ours with one link: refusing to use it"
                         : strerror(err));
    errno = err;
    return -1;
}

/* The directory, made if missing; an an2d that just removed it (its last file gone) may
 * race with us: then make it again. */
static int claim_dir(struct an2d_files *f)
{
    if (an2_dir_of(f->sock.path, f->dir, sizeof f->dir) != 0)
        return say(f->sock.path, ENAMETOOLONG);
    for (int attempt = 0; attempt < 3; attempt++) {
        /* (chmod: the umask must not take the system an2d's directory from its users) */
        if (mkdir(f->dir, 0700) == 0) {
            f->dir_made = true;
            if (f->system && chmod(f->dir, 0755) != 0)
                return say(f->dir, errno);
        } else if (errno != EEXIST) {
            return say(f->dir, errno);
        }
        int rc = f->system ? an2_dir_check_system(f->dir) : an2_dir_check(f->dir);
        if (rc != 0) {
            fprintf(stderr, "an2d: %s\n", an2_error_detail());
            errno = -rc;
            return -1;
        }
        int fd = owned_file_open(&f->lock, O_RDWR, 0600);
        if (fd >= 0) {
            f->lock_fd = fd;
            return 0;
        }
        if (fd != -ENOENT)
            return say(f->lock.path, -fd);
    }
    return say(f->lock.path, ENOENT);
}

int an2d_files_claim(struct an2d_files *f)
{
    f->lock_fd = -1;
    if (strlen(f->sock.path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return say(f->sock.path, ENAMETOOLONG);
    an2d_derived_path(f->lock.path, sizeof f->lock.path, f->sock.path, ".lock");
    if (claim_dir(f) != 0)
        return -1;
    if (flock(f->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(f->lock_fd);
        f->lock.made = false; /* the lock holder's file */
        errno = e;
        return -1;
    }
    /* we hold the lock: a socket there is a dead an2d's, if it is ours at all */
    struct stat st;
    if (lstat(f->sock.path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
            fprintf(stderr, "an2d: %s exists and is not a socket of ours: refusing to remove it\n",
                    f->sock.path);
            an2d_files_release(f, -1, false);
            errno = EEXIST;
            return -1;
        }
        unlink(f->sock.path);
    }
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, f->sock.path, strlen(f->sock.path) + 1); /* length checked above */
    mode_t old = umask(0077);
    int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    /* every user connects to the system an2d (it checks each client's uid itself) */
    if (rc == 0 && f->system)
        rc = chmod(f->sock.path, 0666);
    if (rc != 0 || listen(fd, 128) != 0 || lstat(f->sock.path, &st) != 0) {
        int e = errno;
        fprintf(stderr, "an2d: %s: %s\n", f->sock.path, strerror(e));
        if (fd >= 0)
            close(fd);
        an2d_files_release(f, -1, false);
        errno = e == EWOULDBLOCK ? EINVAL : e;
        return -1;
    }
    owned_file_remember(&f->sock, &st);
    return fd;
}

int an2d_files_write_pid(struct an2d_files *f)
{
    return owned_file_write_pid(&f->pid, 0600);
}

int an2d_files_open_log(struct an2d_files *f)
{
    int fd = owned_file_open(&f->log, O_WRONLY | O_APPEND, 0600);
    if (fd < 0)
        say(f->log.path, -fd);
    return fd;
}

bool an2d_files_socket_present(const struct an2d_files *f)
{
    return owned_file_still_ours(&f->sock);
}

void an2d_files_release(struct an2d_files *f, int listen_fd, bool remove_log)
{
    if (listen_fd >= 0)
        close(listen_fd);
    owned_file_unlink(&f->sock);
    owned_file_unlink(&f->pid);
    if (remove_log)
        owned_file_unlink(&f->log);
    owned_file_unlink(&f->lock); /* still locked: a new an2d makes a fresh lock file */
    if (f->lock_fd >= 0)
        close(f->lock_fd);
    f->lock_fd = -1;
    if (f->dir_made)
        rmdir(f->dir); /* fails, harmlessly, while anything is left in it */
    f->dir_made = false;
}
