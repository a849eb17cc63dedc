/* tcpbench.c — the ceiling of a link that runs over TCP: ping-pong one-way latency and
 * streaming bandwidth of plain TCP between two hosts (blocking sockets, TCP_NODELAY), with
 * an2-rawbench's sizes, medians and CSV rows (transport,bytes,reps,one_way_us,MBps).
 *   tcpbench --listen PORT            the echoing/sinking side (serves one client)
 *   tcpbench --connect HOST:PORT ...  the measuring side */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXSZ 65536u

struct cmd {
    uint32_t op;     /* 'p' ping-pong, 's' stream, 'q' quit (network order) */
    uint32_t size, count;
};

static void die(const char *what)
{
    fprintf(stderr, "tcpbench: %s: %s\n", what, strerror(errno));
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void full_write(int fd, const void *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, (const char *)p + off, n - off);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            die("write");
        }
        off += (size_t)w;
    }
}

static void full_read(int fd, void *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t r = read(fd, (char *)p + off, n - off);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0)
                errno = ECONNRESET;
            die("read");
        }
        off += (size_t)r;
    }
}

static void tune(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int serve(const char *port)
{
    struct addrinfo hints = {.ai_family = AF_INET6, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE}, *res;
    if (getaddrinfo(NULL, port, &hints, &res))
        die("getaddrinfo");
    int ls = socket(res->ai_family, SOCK_STREAM, 0), one = 1, zero = 0;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(ls, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (ls < 0 || bind(ls, res->ai_addr, res->ai_addrlen) || listen(ls, 1))
        die("listen");
    freeaddrinfo(res);
    printf("listening\n");
    fflush(stdout);
    int fd = accept(ls, NULL, NULL);
    if (fd < 0)
        die("accept");
    close(ls);
    tune(fd);
    static char buf[MAXSZ];
    for (;;) {
        struct cmd c;
        full_read(fd, &c, sizeof c);
        uint32_t op = ntohl(c.op), size = ntohl(c.size), count = ntohl(c.count);
        if (op == 'q' || size > MAXSZ)
            break;
        for (uint32_t i = 0; i < count; i++) {
            full_read(fd, buf, size ? size : 1);
            if (op == 'p')
                full_write(fd, buf, size ? size : 1);
        }
        if (op == 's')
            full_write(fd, "k", 1); /* all of the stream has arrived */
    }
    close(fd);
    return 0;
}

static double run(int fd, char op, uint32_t size, uint32_t count)
{
    static char buf[MAXSZ];
    struct cmd c = {htonl((uint32_t)op), htonl(size), htonl(count)};
    full_write(fd, &c, sizeof c);
    uint32_t n = size ? size : 1; /* a 0-byte message is one byte on a stream */
    double t = now_s();
    for (uint32_t i = 0; i < count; i++) {
        full_write(fd, buf, n);
        if (op == 'p')
            full_read(fd, buf, n);
    }
    if (op == 's')
        full_read(fd, buf, 1);
    return now_s() - t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, 0, 'l'}, {"connect", required_argument, 0, 'c'},
        {"csv", required_argument, 0, 'o'},    {"runs", required_argument, 0, 'n'},
        {"trial-ms", required_argument, 0, 't'}, {"sizes", required_argument, 0, 's'},
        {"transport", required_argument, 0, 'T'}, {"quick", no_argument, 0, 'q'},
        {0, 0, 0, 0}};
    const char *listen_port = NULL, *target = NULL, *csv_path = NULL, *transport = "tcp";
    int runs = 5;
    double trial_s = 0.1;
    uint32_t sizes[32] = {0, 40, 256, 1024, 4096, 16384, 65535};
    int nsizes = 7, c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': listen_port = optarg; break;
        case 'c': target = optarg; break;
        case 'o': csv_path = optarg; break;
        case 'n': runs = atoi(optarg); break;
        case 't': trial_s = atof(optarg) / 1000; break;
        case 'T': transport = optarg; break;
        case 'q': runs = 3; trial_s = 0.03; break;
        case 's':
            nsizes = 0;
            for (char *tok = strtok(optarg, ","); tok && nsizes < 32; tok = strtok(NULL, ","))
                sizes[nsizes++] = (uint32_t)strtoul(tok, NULL, 0);
            break;
        default:
            fprintf(stderr, "usage: tcpbench --listen PORT | --connect HOST:PORT [--csv F] "
                            "[--runs N] [--trial-ms MS] [--sizes a,b] [--transport NAME]\n");
            return 2;
        }
    }
    if (listen_port)
        return serve(listen_port);
    char host[256];
    const char *colon = target ? strrchr(target, ':') : NULL;
    if (!colon || runs < 1 || runs > 64 || (size_t)(colon - target) >= sizeof host) {
        fprintf(stderr, "tcpbench: --connect HOST:PORT, --runs 1..64\n");
        return 2;
    }
    memcpy(host, target, (size_t)(colon - target));
    host[colon - target] = 0;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, colon + 1, &hints, &res))
        die("getaddrinfo");
    int fd = -1;
    for (int tries = 0; tries < 50 && fd < 0; tries++) {
        fd = socket(res->ai_family, SOCK_STREAM, 0);
        if (connect(fd, res->ai_addr, res->ai_addrlen)) {
            close(fd);
            fd = -1;
            usleep(100000);
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        die("connect");
    tune(fd);
    FILE *csv = csv_path ? fopen(csv_path, "a") : NULL;
    printf("%8s %9s %12s %12s\n", "bytes", "reps", "one_way_us", "MB/s");
    for (int k = 0; k < nsizes; k++) {
        uint32_t size = sizes[k] > MAXSZ ? MAXSZ : sizes[k];
        double t = run(fd, 'p', size, 20);
        uint32_t reps = (uint32_t)(trial_s / (t / 20));
        reps = reps < 10 ? 10 : reps > 1000000 ? 1000000 : reps;
        t = run(fd, 's', size, 20);
        uint32_t count = (uint32_t)(trial_s / (t / 20));
        count = count < 20 ? 20 : count > 1000000 ? 1000000 : count;
        double lat[64], bw[64];
        for (int r = 0; r < runs; r++) {
            lat[r] = run(fd, 'p', size, reps) / reps / 2 * 1e6;
            bw[r] = (double)size * count / run(fd, 's', size, count) / 1e6;
        }
        qsort(lat, (size_t)runs, sizeof *lat, cmp);
        qsort(bw, (size_t)runs, sizeof *bw, cmp);
        double l = lat[runs / 2], b = bw[runs / 2];
        printf("%8u %9u %12.2f %12.2f\n", size, reps, l, b);
        if (csv)
            fprintf(csv, "%s,%u,%u,%.6g,%.6g\n", transport, size, reps, l, b);
    }
    struct cmd q = {htonl('q'), 0, 0};
    full_write(fd, &q, sizeof q);
    close(fd);
    if (csv)
        fclose(csv);
    return 0;
}
