/* owned_file.h — files a daemon makes for itself (an2d's lock, pid and log beside its socket,
 * an2switch's pid file): opened so that nothing another user planted is followed, waited on
 * or overwritten (a root daemon in a shared directory is the case to defend), and removed at
 * the end only while they are still the ones it made. */
#ifndef OWNED_FILE_H
#define OWNED_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A path the daemon made, and the inode it made there. */
struct owned_file {
    char path[PATH_MAX];
    dev_t dev;
    ino_t ino;
    bool made;
};

/* Opens f->path with flags, creating it with mode if missing, as a regular file of ours with
 * one link: no symlink followed, no FIFO waited on, nothing truncated or written before it
 * has passed the check. Remembers its inode. fd, or -errno (-EPERM: not such a file). */
int owned_file_open(struct owned_file *f, int flags, mode_t mode);
/* Remembers st as the inode made at f->path (for what is made otherwise, e.g. a socket). */
void owned_file_remember(struct owned_file *f, const struct stat *st);
/* Whether the inode made at f->path is still there (not removed, not replaced). */
bool owned_file_still_ours(const struct owned_file *f);
/* Removes f->path if it is still the inode made there; forgets it either way. */
void owned_file_unlink(struct owned_file *f);
/* Writes our pid into f->path, opened as owned_file_open does (created with mode). 0 or
 * -errno (-EPERM: not a regular file of ours with one link). */
int owned_file_write_pid(struct owned_file *f, mode_t mode);
/* The pid written in the pid file at path, a regular file of ours (no symlink followed, no
 * FIFO waited on); -1 if there is none or it names no pid above 1. */
pid_t owned_file_read_pid(const char *path);

#endif
