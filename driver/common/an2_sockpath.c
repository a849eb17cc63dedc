/* an2_sockpath.c — where an2d listens and how to reach it safely: $AN2_SOCKET, else the
 * system an2d's ${AN2_SYSTEM_DIR:-/run/an2d}/an2d.sock when root has made one (and no
 * PVM_VMID asks for an isolated setup), else ${PVM_TMP:-/tmp}/an2d.<uid>[.<vmid>]/an2d.sock, a
 * directory of our own, so that no other user can plant a socket or a file there; and a
 * connection is trusted only if the server runs as us or as root (the system one: as root). */
#include "an2_sockpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "an2.h"
#include "an2_detail.h"

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

int an2_system_socket_path(char *buf, size_t len)
{
    const char *dir = getenv("AN2_SYSTEM_DIR");
    int n = snprintf(buf, len, "%s/an2d.sock", dir && *dir ? dir : AN2_SYSTEM_DIR_DEFAULT);
    if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return -ENAMETOOLONG;
    return 0;
}

int an2_ctl_target(char *buf, size_t len, bool *system)
{
    *system = false;
    const char *explicit_path = getenv("AN2_SOCKET");
    const char *vmid = getenv("PVM_VMID");
    struct stat st;
    /* the system an2d is there when its socket is: a directory or socket that is not root's
     * is refused when connecting (an2_ctl_connect_system), never silently passed over */
    if (!(explicit_path && *explicit_path) && !(vmid && *vmid) &&
        an2_system_socket_path(buf, len) == 0 && lstat(buf, &st) == 0) {
        *system = true;
        return 0;
    }
    return an2_socket_path(buf, len);
}

int an2_dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    int n = !slash ? snprintf(dir, len, ".")
            : slash == path ? snprintf(dir, len, "/")
                            : snprintf(dir, len, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int dir_check(const char *dir, bool system)
{
    char text[300];
    struct stat st;
    if (lstat(dir, &st) != 0) {
        int e = errno;
        snprintf(text, sizeof text, "%.120s: %s", dir, strerror(e));
        an2_set_detail(text);
        return -e;
    }
    uid_t me = system ? 0 : geteuid();
    const char *wrong = !S_ISDIR(st.st_mode)                  ? "not a directory"
                        : st.st_uid != me && st.st_uid != 0   ? "owned by another user"
                        : system && (st.st_mode & (S_IWGRP | S_IWOTH))
                            ? "writable by others (must be root's alone)"
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

int an2_dir_check(const char *dir) { return dir_check(dir, false); }
int an2_dir_check_system(const char *dir) { return dir_check(dir, true); }

static int peer_check(int fd, const char *path, bool system)
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
    if (cred.uid == 0 || (!system && cred.uid == geteuid()))
        return 0;
    if (system)
        snprintf(text, sizeof text,
                 "the server at %.100s runs as uid %u (pid %d), not as root: not the system "
                 "an2d, refusing it", path, (unsigned)cred.uid, (int)cred.pid);
    else
        snprintf(text, sizeof text,
             "the server at %.100s runs as uid %u (pid %d), not as us: not our an2d, refusing it",
             path, (unsigned)cred.uid, (int)cred.pid);
    an2_set_detail(text);
    return -EPERM;
}

int an2_peer_check(int fd, const char *path) { return peer_check(fd, path, false); }

static int ctl_connect(const char *path, bool system)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int rc = an2_dir_of(path, dir, sizeof dir);
    if (rc == 0)
        rc = dir_check(dir, system);
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
    rc = peer_check(fd, path, system);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int an2_ctl_connect(const char *path) { return ctl_connect(path, false); }
int an2_ctl_connect_system(const char *path) { return ctl_connect(path, true); }
