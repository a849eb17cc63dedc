/* owned_file.c — a daemon's own files: opened only as regular files of ours with one link,
 * removed only while still the inode it made. */
#include "owned_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void owned_file_remember(struct owned_file *f, const struct stat *st)
{
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    f->made = true;
}

int owned_file_open(struct owned_file *f, int flags, mode_t mode)
{
    int fd = open(f->path, flags | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                  mode);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        st.st_nlink != 1) {
        close(fd);
        return -EPERM;
    }
    owned_file_remember(f, &st);
    return fd;
}

bool owned_file_still_ours(const struct owned_file *f)
{
    struct stat st;
    return f->made && lstat(f->path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino;
}

void owned_file_unlink(struct owned_file *f)
{
    if (owned_file_still_ours(f))
        unlink(f->path);
    f->made = false;
}

int owned_file_write_pid(struct owned_file *f, mode_t mode)
{
    int fd = owned_file_open(f, O_WRONLY, mode);
    if (fd < 0)
        return fd;
    char text[24];
    int n = snprintf(text, sizeof text, "%d\n", (int)getpid());
    int rc = ftruncate(fd, 0) == 0 && write(fd, text, (size_t)n) == n ? 0 : -errno;
    close(fd);
    return rc;
}

pid_t owned_file_read_pid(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    char text[32] = {0};
    pid_t pid = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        read(fd, text, sizeof text - 1) > 0)
        pid = (pid_t)strtol(text, NULL, 10);
    close(fd);
    return pid > 1 ? pid : -1;
}
