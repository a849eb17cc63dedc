/* an2d_files.h — an2d's control socket and the files beside it (lock, pid, log). */
#ifndef AN2D_FILES_H
#define AN2D_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "owned_file.h"

struct an2d_files {
    struct owned_file sock, lock, pid, log; /* sock, pid, log paths: set by the caller */
    char dir[PATH_MAX];                    /* the socket's directory */
    bool dir_made;                         /* we created it: removed at the end if empty */
    bool system;                           /* the system an2d's: a directory root alone may
                                            * write (mode 0755), a socket every user may
                                            * connect to (0666); set by the caller */
    int lock_fd;
};

/* "<sock without .sock><ext>": the default name of a file beside the socket. */
void an2d_derived_path(char *out, size_t len, const char *sock, const char *ext);

/* Makes the socket's directory if missing (mode 0700; system: 0755) and checks it (no
 * symlink, ours or root's, not writable by others unless sticky; system: root's and writable
 * by nobody else), takes the single-instance lock, replaces a
 * stale socket of ours and binds. Returns the listening fd, or -1 with errno EWOULDBLOCK
 * (another an2d holds the lock) or another errno (said on stderr). */
int an2d_files_claim(struct an2d_files *f);
/* Writes our pid. 0 or -errno. */
int an2d_files_write_pid(struct an2d_files *f);
/* Opens the log for appending. fd, or -errno. */
int an2d_files_open_log(struct an2d_files *f);
/* Whether our socket is still at its path (not removed, not replaced). */
bool an2d_files_socket_present(const struct an2d_files *f);
/* Closes listen_fd and the lock; removes the socket, pid and lock files (and the log with
 * remove_log, the directory if we made it and it is empty), each only if still ours. */
void an2d_files_release(struct an2d_files *f, int listen_fd, bool remove_log);

#endif
