/* an2_sockpath.c — where an2d listens and how to reach it safely: $AN2_SOCKET, else
 * ${PVM_TMP:-/tmp}/an2d.<uid>[.<vmid>]/an2d.sock, a directory of our own, so that isolated
 * PVM setups (own PVM_TMP / PVM_VMID) get isolated an2ds and no other user can plant a socket
 * or a file there; and a connection is trusted only if the server runs as us or as root. */
#include "an2.h"
#include "an2_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int an2_socket_path(char *buf, size_t len)
{
    const char *explicit_path = getenv("AN2_SOCKET");
    const char *dir = getenv("PVM_TMP");
    const char *vmid = getenv("PVM_VMID");
    if (!dir || !*dir)
        dir = "/tmp";
    int n;
    if (explicit_path && *explicit_path)
        n = snprintf(buf, len, "%s", explicit_path);
    else if (vmid && *vmid)
        n = snprintf(buf, len, "%s/an2d.%u.%s/an2d.sock", dir, (unsigned)geteuid(), vmid);
    else
        n = snprintf(buf, len, "%s/an2d.%u/an2d.sock", dir, (unsigned)geteuid());
    if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return -ENAMETOOLONG;
    return 0;
}

int an2_dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    int n = !slash ? snprintf(dir, len, ".")
            : slash == path ? snprintf(dir, len, "/")
                            : snprintf(dir, len, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int an2_dir_check(const char *dir)
{
    char text[200];
    struct stat st;
    if (lstat(dir, &st) != 0) {
        int e = errno;
        snprintf(text, sizeof text, "%.120s: %s", dir, strerror(e));
        an2_set_detail(text);
        return -e;
    }
    uid_t me = geteuid();
    const char *wrong = !S_ISDIR(st.st_mode)                      ? "not a directory"
                        : st.st_uid != me && st.st_uid != 0       ? "owned by another user"
                        : (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)
                            ? "writable by others and not sticky"
                            : NULL;
    if (!wrong)
        return 0;
    snprintf(text, sizeof text, "%.100s is %s (uid %u, mode %04o): refusing to use it", dir,
             wrong, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
    an2_set_detail(text);
    return -EPERM;
}

int an2_peer_check(int fd, const char *path)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    char text[200];
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        int e = errno;
        snprintf(text, sizeof text, "%.100s: SO_PEERCRED: %s", path, strerror(e));
        an2_set_detail(text);
        return -e;
    }
    if (cred.uid == geteuid() || cred.uid == 0)
        return 0;
    snprintf(text, sizeof text,
             "the server at %.100s runs as uid %u (pid %d), not as us: not our an2d, refusing it",
             path, (unsigned)cred.uid, (int)cred.pid);
    an2_set_detail(text);
    return -EPERM;
}

int an2_ctl_connect(const char *path)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int rc = an2_dir_of(path, dir, sizeof dir);
    if (rc == 0)
        rc = an2_dir_check(dir);
    if (rc != 0)
        return rc;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    /* before a single byte goes out: a planted socket must not see our requests */
    rc = an2_peer_check(fd, path);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}
