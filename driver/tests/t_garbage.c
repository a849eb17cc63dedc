/* t_garbage.c — garbage, truncated, oversized and wrong-version requests on the control
 * socket: an2d drops each such client (we see end of file) and keeps serving the others:
 * two endpoints opened before the garbage still get a VC and exchange a PDU after it. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <unistd.h>

#include "an2_ctl_proto.h"
#include "an2_pair.h"

static int connect_ctl(void)
{
    char path[108];
    if (an2_socket_path(path, sizeof path) != 0)
        FAIL("socket path");
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        FAIL("connect %s: %s", path, strerror(errno));
    return fd;
}

/* Sends len bytes of msg and checks that an2d hangs up (after an optional error reply). */
static void expect_dropped(const char *what, const void *msg, size_t len)
{
    int fd = connect_ctl();
    if (send(fd, msg, len, 0) != (ssize_t)len)
        FAIL("%s: send: %s", what, strerror(errno));
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 5000) != 1)
            FAIL("%s: an2d neither answered nor hung up", what);
        struct an2_ctl_reply r;
        ssize_t n = recv(fd, &r, sizeof r, 0);
        if (n == 0)
            break;
        if (n != (ssize_t)sizeof r || r.op != AN2_CTL_R_ERROR || r.status != -EPROTO)
            FAIL("%s: an2d answered %zd bytes, op %u", what, n, n > 0 ? r.op : 0);
    }
    close(fd);
    printf("dropped: %s\n", what);
}

/* As root: a task of another uid that reaches the socket (we open its mode for the test) is
 * refused on its SO_PEERCRED uid. Skipped when not root. */
static void other_uid_refused(void)
{
    if (geteuid() != 0) {
        printf("not root: other-uid check skipped\n");
        return;
    }
    char path[108], dir[108];
    if (an2_socket_path(path, sizeof path) != 0)
        FAIL("socket path");
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    struct stat dst;
    if (stat(dir, &dst) != 0 || chmod(dir, 0711) != 0 || chmod(path, 0777) != 0)
        FAIL("chmod the socket: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(2);
        an2_ep *ep;
        int rc = an2_open(NULL, &ep);
        /* connected (the modes let it), then dropped by an2d: not EACCES */
        _exit(rc == -ECONNRESET || rc == -EPIPE ? 0 : 1);
    }
    int st = -1;
    waitpid(pid, &st, 0);
    if (chmod(path, 0600) != 0 || chmod(dir, dst.st_mode & 07777) != 0)
        FAIL("chmod back: %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        FAIL("a task of uid 65534 was not refused (status %d)", st);
    printf("refused: a task of uid 65534\n");
}

/* Reads one OPEN reply on fd; returns its status and closes any descriptors it carried. */
static int open_reply(int fd, int *nfds)
{
    struct an2_ctl_reply r;
    union {
        char buf[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = &r, .iov_len = sizeof r};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof ctl.buf};
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 5000) != 1 || recvmsg(fd, &mh, 0) != (ssize_t)sizeof r ||
        r.op != AN2_CTL_R_OPEN)
        FAIL("no OPEN reply");
    *nfds = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
        for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
            int f;
            memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof f);
            close(f);
            ++*nfds;
        }
    return r.status;
}

/* A refused OPEN, then a good one, on the same connection. */
static void open_after_refusal(void)
{
    int fd = connect_ctl(), nfds;
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_OPEN, .buf_size = 1ull << 40};
    if (send(fd, &q, sizeof q, 0) != (ssize_t)sizeof q || open_reply(fd, &nfds) != -E2BIG ||
        nfds != 0)
        FAIL("a 1 TiB buffer area was not refused with E2BIG and no descriptors");
    q.buf_size = 0;
    int st = 1;
    if (send(fd, &q, sizeof q, 0) != (ssize_t)sizeof q || (st = open_reply(fd, &nfds)) != 0 ||
        nfds != 3)
        FAIL("OPEN after a refusal: status %d, %d descriptors", st, nfds);
    if (send(fd, &q, sizeof q, 0) != (ssize_t)sizeof q || open_reply(fd, &nfds) != -EISCONN)
        FAIL("a second OPEN on one connection was not refused with EISCONN");
    close(fd);
    printf("refused OPEN, then a good one, then EISCONN: as expected\n");
}

int main(void)
{
    an2_ep *a, *b;
    int rc = an2_open(NULL, &a);
    if (rc == 0)
        rc = an2_open(NULL, &b);
    if (rc != 0)
        FAIL("an2_open: %s", an2_strerror(rc));

    char junk[64];
    an2_fill_pattern((uint8_t *)junk, sizeof junk, 99);
    expect_dropped("7 bytes of noise", junk, 7);
    expect_dropped("64 bytes of noise", junk, 64);
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_OPEN};
    expect_dropped("a truncated OPEN request", &q, sizeof q - 9);
    char big[sizeof q + 30];
    memset(big, 0, sizeof big);
    memcpy(big, &q, sizeof q);
    expect_dropped("an oversized OPEN request", big, sizeof big);
    struct an2_ctl_req bad = q;
    bad.magic = 0x12345678;
    expect_dropped("a request with a bad magic", &bad, sizeof bad);
    bad = q;
    bad.version = 77;
    expect_dropped("a request of protocol version 77", &bad, sizeof bad);
    bad = q;
    bad.op = 999;
    expect_dropped("a request with an unknown op", &bad, sizeof bad);
    expect_dropped("an empty message", "", 0);
    other_uid_refused();
    open_after_refusal();

    /* a request with file descriptors attached: they are discarded, the request works */
    int fd = connect_ctl();
    q.op = AN2_CTL_STATS;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = &q, .iov_len = sizeof q};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    int zero = 0;
    memcpy(CMSG_DATA(cm), &zero, sizeof zero);
    if (sendmsg(fd, &mh, 0) != (ssize_t)sizeof q)
        FAIL("sendmsg with fds: %s", strerror(errno));
    static char stats[AN2_CTL_STATS_MAX];
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    if (poll(&pf, 1, 5000) != 1 ||
        recv(fd, stats, sizeof stats, 0) < (ssize_t)sizeof(struct an2_stat_hdr))
        FAIL("no stats answer to a request carrying descriptors");
    close(fd);

    /* the endpoints opened before all that still work */
    struct an2_vc_info va, vb;
    if ((rc = an2_vc_open_start(a, an2_endpoint_id(b))) != 0 ||
        (rc = an2_vc_open(b, an2_endpoint_id(a), AN2_TEST_WAIT_MS, &vb)) != 0)
        FAIL("VC after garbage: %s", an2_strerror(rc));
    for (double t0 = an2_test_ms(); (rc = an2_vc_open_complete(a, &va)) == 0; usleep(1000))
        if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
            FAIL("VC open did not complete within %d ms", AN2_TEST_WAIT_MS);
    if (rc != 1)
        FAIL("an2_vc_open_complete: %s", an2_strerror(rc));
    struct an2_frag f = {0, 1000};
    an2_fill_pattern(an2_buf_base(a), 1000, 5);
    if (an2_post_recv(b, vb.vc, &f, 1, 1) || an2_send(a, va.vc, &f, 1, 0, 2))
        FAIL("post/send");
    struct an2_report r = an2_expect_report(b, AN2_REPORT_RX, AN2_TEST_WAIT_MS);
    if (r.status != AN2_STATUS_OK || r.length != 1000 ||
        !an2_check_pattern(an2_buf_base(b), 1000, 5))
        FAIL("PDU after garbage: %s, %u bytes", an2_status_str(r.status), r.length);
    printf("after the garbage: VC %s <-> %s carried a PDU intact\n", va.addr, vb.addr);
    an2_close(a);
    an2_close(b);
    return 0;
}
