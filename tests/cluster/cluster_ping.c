/* cluster_ping.c — checks a virtual machine of several hosts (tests/cluster, scripts/cluster.sh):
 * spawns one copy of itself on every host of pvm_config (PvmTaskHost), has each say which host
 * it runs on, then exchanges ROUNDS round trips of several sizes with each child, every int of
 * every reply checked (the child adds 1 to each). Exit 0 only if every host answered rightly.
 *
 *   cluster-ping [ROUNDS]      (default 50; a child is started with the argument "child")
 *
 * Prints one line per host: "host NAME: child tTID on NAME, N round trips ok". Built against
 * libpvm3-an2 (cluster-ping) and against Debian's libpvm3 (cluster-ping-stock). */
#include <pvm3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_HELLO = 11, TAG_WHERE = 12, TAG_PING = 13, TAG_PONG = 14, TAG_QUIT = 15 };
enum { MAX_HOSTS = 64, WAIT_S = 30 };
static const int sizes[] = {2, 250, 16384, 75000}; /* ints: 8 B .. 300 KB */
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAX_INTS 75000

static int buf[MAX_INTS];

static int recv_from(int tid, int tag)
{
    struct timeval tv = {WAIT_S, 0};
    int b = pvm_trecv(tid, tag, &tv);
    if (b == 0)
        fprintf(stderr, "cluster-ping: no message (tag %d) from t%x within %d s\n", tag, tid, WAIT_S);
    else if (b < 0)
        pvm_perror("cluster-ping: pvm_trecv");
    return b > 0;
}

static int child(void)
{
    int parent = pvm_parent(), n, i;
    char host[256] = "";
    if (parent < 0)
        return 1;
    gethostname(host, sizeof host - 1);
    if (!recv_from(parent, TAG_HELLO))
        return 1;
    pvm_initsend(PvmDataDefault);
    pvm_pkstr(host);
    pvm_send(parent, TAG_WHERE);
    for (;;) {
        struct timeval tv = {WAIT_S, 0};
        int b = pvm_trecv(parent, -1, &tv), tag;
        if (b <= 0)
            return 1;
        pvm_bufinfo(b, NULL, &tag, NULL);
        if (tag == TAG_QUIT)
            return 0;
        if (tag != TAG_PING || pvm_upkint(&n, 1, 1) < 0 || n < 0 || n > MAX_INTS ||
            pvm_upkint(buf, n, 1) < 0)
            return 1;
        for (i = 0; i < n; i++)
            buf[i]++;
        pvm_initsend(PvmDataRaw);
        pvm_pkint(&n, 1, 1);
        pvm_pkint(buf, n, 1);
        pvm_send(parent, TAG_PONG);
    }
}

int main(int argc, char **argv)
{
    int me = pvm_mytid(), nhost, narch, i, r, s, k, bad = 0;
    struct pvmhostinfo *hosts;
    int tids[MAX_HOSTS], spawned[MAX_HOSTS];
    const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (me < 0)
        return 1;
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        int rc = child();
        pvm_exit();
        return rc;
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    if (rounds < 1 || rounds > 100000 || pvm_config(&nhost, &narch, &hosts) < 0 || nhost < 1 ||
        nhost > MAX_HOSTS) {
        fprintf(stderr, "usage: cluster-ping [ROUNDS], in a virtual machine of 1..%d hosts\n", MAX_HOSTS);
        pvm_exit();
        return 2;
    }
    char *cargv[] = {"child", NULL};
    for (i = 0; i < nhost; i++) {
        if (pvm_spawn((char *)self, cargv, PvmTaskHost, hosts[i].hi_name, 1, &tids[i]) != 1) {
            fprintf(stderr, "cluster-ping: cannot spawn %s on %s (%d)\n", self, hosts[i].hi_name, tids[i]);
            tids[i] = 0;
            bad = 1;
        }
        spawned[i] = tids[i];
    }
    /* each child says where it runs */
    for (i = 0; i < nhost; i++) {
        char where[256] = "";
        if (!tids[i])
            continue;
        pvm_initsend(PvmDataDefault);
        pvm_send(tids[i], TAG_HELLO);
        if (!recv_from(tids[i], TAG_WHERE) || pvm_upkstr(where) < 0 ||
            strcmp(where, hosts[i].hi_name) != 0) {
            fprintf(stderr, "cluster-ping: child t%x spawned on %s says it runs on '%s'\n", tids[i],
                    hosts[i].hi_name, where);
            tids[i] = 0;
            bad = 1;
        }
    }
    /* round trips of every size with every child, in turn */
    int ok[MAX_HOSTS] = {0};
    for (r = 0; r < rounds; r++) {
        for (s = 0; s < NSIZES; s++) {
            int n = sizes[s];
            for (i = 0; i < nhost; i++) {
                if (!tids[i])
                    continue;
                for (k = 0; k < n; k++)
                    buf[k] = k * 7 + r * 131 + i * 1009 + s;
                pvm_initsend(PvmDataRaw);
                pvm_pkint(&n, 1, 1);
                pvm_pkint(buf, n, 1);
                pvm_send(tids[i], TAG_PING);
                int m = -1;
                if (!recv_from(tids[i], TAG_PONG) || pvm_upkint(&m, 1, 1) < 0 || m != n ||
                    pvm_upkint(buf, n, 1) < 0) {
                    fprintf(stderr, "cluster-ping: round %d, %d ints: bad reply from t%x (%s)\n", r, n,
                            tids[i], hosts[i].hi_name);
                    tids[i] = 0;
                    bad = 1;
                    continue;
                }
                for (k = 0; k < n; k++) {
                    if (buf[k] != k * 7 + r * 131 + i * 1009 + s + 1) {
                        fprintf(stderr, "cluster-ping: round %d, %d ints: int %d from t%x (%s) is wrong\n",
                                r, n, k, tids[i], hosts[i].hi_name);
                        tids[i] = 0;
                        bad = 1;
                        break;
                    }
                }
                if (tids[i])
                    ok[i]++;
            }
        }
    }
    for (i = 0; i < nhost; i++) {
        if (!tids[i])
            continue;
        pvm_initsend(PvmDataDefault);
        pvm_send(tids[i], TAG_QUIT);
        printf("host %s: child t%x on %s, %d round trips ok\n", hosts[i].hi_name, tids[i],
               hosts[i].hi_name, ok[i]);
    }
    for (i = 0; i < nhost; i++) /* a child that went wrong is not left waiting */
        if (spawned[i] > 0 && !tids[i])
            pvm_kill(spawned[i]);
    fflush(stdout);
    pvm_exit();
    return bad;
}
