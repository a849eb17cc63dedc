/* an2_sockpath.c — where an2d listens and how to reach it: $AN2_SOCKET, else
 * ${PVM_TMP:-/tmp}/an2d.<uid>[.<vmid>].sock,
 * so that isolated PVM setups (own PVM_TMP / PVM_VMID) get isolated an2ds. */
#include "an2.h"
#include "an2_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int an2_socket_path(char *buf, size_t len)
{
    const char *explicit_path = getenv("AN2_SOCKET");
    const char *dir = getenv("PVM_TMP");
    const char *vmid = getenv("PVM_VMID");
    int n;
    if (explicit_path && *explicit_path)
        n = snprintf(buf, len, "%s", explicit_path);
    else if (vmid && *vmid)
        n = snprintf(buf, len, "%s/an2d.%u.%s.sock", dir && *dir ? dir : "/tmp",
                     (unsigned)geteuid(), vmid);
    else
        n = snprintf(buf, len, "%s/an2d.%u.sock", dir && *dir ? dir : "/tmp",
                     (unsigned)geteuid());
    if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return -ENAMETOOLONG;
    return 0;
}

int an2_ctl_connect(const char *path)
{
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
    return fd;
}
