/* an2stat.c — netstat for the AN2 fabric: switch port counters, endpoints and their VCs
 * with controller and switch counters, read from an2d over the control socket. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "an2.h"
#include "an2_ctl_proto.h"
#include "an2_detail.h"
#include "an2_netaddr.h"
#include "an2_sockpath.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: an2stat [-s SOCKET] [-p] [-e] [-v] [--summary]\n"
               "       an2stat --switch CONTROL   an an2switch's ports, links and VCs\n"
               "  -s, --socket PATH  an2d's control socket (default: as liban2 finds it)\n"
               "  -p, --ports        switch port counters only\n"
               "  -e, --endpoints    endpoints only\n"
               "  -v, --vcs          VCs only\n"
               "      --summary      one line: endpoints, vcs, routes, pending\n");
}

/* A registered name as text: PVM tasks register their tid, shown as PVM does ("t40001"). */
static void name_text(char *buf, size_t len, uint32_t name)
{
    snprintf(buf, len, name ? "t%x" : "-", name);
}

static uint32_t name_of(const struct an2_stat_ep *eps, uint32_t n, uint32_t endpoint_id)
{
    for (uint32_t i = 0; i < n; i++)
        if (eps[i].endpoint_id == endpoint_id)
            return eps[i].name;
    return 0;
}

/* One STATS request on a connection of its own (an2_ctl_connect checks who serves it). */
static int fetch(const char *path, bool system, char *buf, size_t len, size_t *got)
{
    int fd = system ? an2_ctl_connect_system(path) : an2_ctl_connect(path);
    if (fd < 0)
        return fd;
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION,
                            .op = AN2_CTL_STATS};
    int rc = 0;
    if (send(fd, &q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q)
        rc = -errno;
    /* an2d may have refused the connection with a reason before our request reached it */
    if (rc == 0 || rc == -EPIPE || rc == -ECONNRESET) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        errno = ETIMEDOUT;
        ssize_t n = poll(&p, 1, 10000) == 1 ? recv(fd, buf, len, 0) : -1;
        if (n < 0 && errno == ECONNRESET) /* a refusal's reason comes after the reset */
            n = recv(fd, buf, len, MSG_DONTWAIT);
        int recv_errno = errno;
        struct an2_ctl_reply r = {0};
        if (n == (ssize_t)sizeof r)
            memcpy(&r, buf, sizeof r);
        if (r.magic == AN2_CTL_MAGIC && r.op == AN2_CTL_R_ERROR) {
            r.detail[sizeof r.detail - 1] = 0;
            an2_set_detail(r.detail);
            rc = r.status < 0 ? r.status : -EPROTO;
        } else if (n < (ssize_t)sizeof(struct an2_stat_hdr)) {
            rc = n < 0 ? -recv_errno : -EPROTO;
        } else {
            *got = (size_t)n;
            rc = 0;
        }
    }
    close(fd);
    return rc;
}

/* What an an2switch answers on its --control socket. */
static int switch_report(const char *path)
{
    char spec[300], err[300];
    snprintf(spec, sizeof spec, "unix:%s", path);
    int fd = an2_net_connect(spec, 2000, err, sizeof err);
    if (fd < 0) {
        fprintf(stderr, "an2stat: --switch %s\n", err);
        return 1;
    }
    char buf[4096];
    for (int i = 0; i < 4096; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 5000) != 1)
            break;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        fwrite(buf, 1, (size_t)n, stdout);
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    enum { O_SUMMARY = 256, O_SWITCH };
    static const struct option longopts[] = {
        {"socket", required_argument, 0, 's'}, {"ports", no_argument, 0, 'p'},
        {"endpoints", no_argument, 0, 'e'},    {"vcs", no_argument, 0, 'v'},
        {"summary", no_argument, 0, O_SUMMARY}, {"help", no_argument, 0, 'h'},
        {"switch", required_argument, 0, O_SWITCH},
        {0, 0, 0, 0},
    };
    char path[108] = "";
    bool ports = false, eps = false, vcs = false, summary = false;
    int c;
    while ((c = getopt_long(argc, argv, "s:pevh", longopts, NULL)) != -1) {
        switch (c) {
        case 's': snprintf(path, sizeof path, "%s", optarg); break;
        case 'p': ports = true; break;
        case 'e': eps = true; break;
        case 'v': vcs = true; break;
        case O_SUMMARY: summary = true; break;
        case O_SWITCH: return switch_report(optarg);
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!ports && !eps && !vcs && !summary)
        ports = eps = vcs = true;
    bool system = false;
    if (!path[0] && an2_ctl_target(path, sizeof path, &system) != 0) {
        fprintf(stderr, "an2stat: control socket path too long\n");
        return 2;
    }
    char *buf = malloc(AN2_CTL_STATS_MAX);
    size_t got = 0;
    int rc = buf ? fetch(path, system, buf, AN2_CTL_STATS_MAX, &got) : -ENOMEM;
    if (rc != 0) {
        const char *why = an2_error_detail();
        fprintf(stderr, "an2stat: %s: %s\n", path, *why ? why : an2_strerror(rc));
        free(buf);
        return 1;
    }
    struct an2_stat_hdr h;
    memcpy(&h, buf, sizeof h);
    size_t need = sizeof h + h.nports * sizeof(struct an2_stat_port) +
                  h.nendpoints * sizeof(struct an2_stat_ep) + h.nvcs * sizeof(struct an2_stat_vc);
    if (h.magic != AN2_CTL_MAGIC || h.op != AN2_CTL_R_STATS || need != got) {
        fprintf(stderr, "an2stat: garbled answer from an2d\n");
        free(buf);
        return 1;
    }
    const char *p = buf + sizeof h;
    if (summary)
        printf("an2d pid %d: endpoints %u vcs %u routes %u pending %u\n", h.pid, h.nendpoints,
               h.nvcs, h.nroutes, h.npending);
    if (ports || eps || vcs) {
        if (h.cells_per_second > 0)
            printf("an2d pid %d, up %.1f s, link %.1f cells/s (%.2f Mb/s of cell payload)\n",
                   h.pid, h.uptime_ns / 1e9, h.cells_per_second,
                   h.cells_per_second * 384 / 1e6);
        else
            printf("an2d pid %d, up %.1f s, link unpaced\n", h.pid, h.uptime_ns / 1e9);
        char nsap[80] = "";
        if (h.host_addr && an2_host_nsap_format(nsap, sizeof nsap, h.host_addr) == 0)
            printf("host %u.%u of the fabric (%s); uplink to the switch %s, round trip %.1f us\n",
                   h.host_addr >> 8, h.host_addr & 0xffu, nsap, h.uplink_up ? "up" : "DOWN",
                   h.uplink_rtt_ns / 1e3);
    }
    if (ports) {
        printf("\nSwitch ports\n%-5s %14s %14s %14s %10s %8s\n", "PORT", "CELLS_IN",
               "CELLS_OUT", "CREDITS", "STALLS", "DROPS");
    }
    for (uint32_t i = 0; i < h.nports; i++, p += sizeof(struct an2_stat_port)) {
        struct an2_stat_port s;
        memcpy(&s, p, sizeof s);
        if (ports)
            printf("%-5u %14llu %14llu %14llu %10llu %8llu\n", s.port,
                   (unsigned long long)s.cells_in, (unsigned long long)s.cells_out,
                   (unsigned long long)s.credits_granted, (unsigned long long)s.stalls,
                   (unsigned long long)s.drops);
    }
    if (eps)
        printf("\nEndpoints\n%-9s %8s %8s %8s %14s %14s %-10s %s\n", "ENDPOINT", "PID", "VCS",
               "MAX_VCS", "BUF_BYTES", "PORTION_BYTES", "TID", "UID");
    struct an2_stat_ep *names = calloc(h.nendpoints ? h.nendpoints : 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "an2stat: out of memory\n");
        free(buf);
        return 1;
    }
    for (uint32_t i = 0; i < h.nendpoints; i++, p += sizeof(struct an2_stat_ep)) {
        struct an2_stat_ep s;
        memcpy(&s, p, sizeof s);
        names[i] = s;
        char tid[16];
        name_text(tid, sizeof tid, s.name);
        if (s.lingering)
            snprintf(tid, sizeof tid, "(left)");
        if (eps)
            printf("%-9u %8d %8u %8u %14llu %14llu %-10s %u\n", s.endpoint_id, s.pid,
                   s.vcs_open, s.max_vcs, (unsigned long long)s.buf_size,
                   (unsigned long long)s.portion_size, tid, s.uid);
    }
    if (vcs)
        printf("\nVCs (controller counters of this end; switch counters of its cells; the task's "
               "own: PDUs it resent, duplicates it dropped, losses it repaired; POSTED: the most "
               "receive buffers the controller found posted at once)\n"
               "%-9s %4s %-12s %12s %10s %10s %10s %10s %6s %6s %6s %6s %10s %10s %8s %6s %5s "
               "%7s %7s %6s %6s %s\n",
               "ENDPOINT", "VC", "ADDR", "PEER", "TX_PDUS", "TX_CELLS", "RX_PDUS", "RX_CELLS",
               "CRC", "LEN", "PROT", "ABORT", "SW_IN", "SW_OUT", "STALLS", "DROPS", "BUF",
               "RESENT", "DUPS", "RECOV", "POSTED", "PVM_TASKS");
    for (uint32_t i = 0; i < h.nvcs; i++, p += sizeof(struct an2_stat_vc)) {
        struct an2_stat_vc s;
        memcpy(&s, p, sizeof s);
        if (!vcs)
            continue;
        char addr[AN2_ADDR_LEN], peer[32];
        an2_addr_format(addr, sizeof addr, s.itf, s.vpi, s.vci);
        if (s.peer_id >> 16 != h.host_addr) /* on another host: say which */
            snprintf(peer, sizeof peer, "%u.%u/%u%s", s.peer_id >> 24, s.peer_id >> 16 & 0xffu,
                     s.peer_id & 0xffffu, s.peer_gone ? "-gone" : "");
        else
            snprintf(peer, sizeof peer, s.peer_gone ? "%u-gone" : "%u", s.peer_id);
        char mine[16], theirs[16], tasks[48] = "-";
        name_text(mine, sizeof mine, name_of(names, h.nendpoints, s.endpoint_id));
        name_text(theirs, sizeof theirs, name_of(names, h.nendpoints, s.peer_id));
        if (name_of(names, h.nendpoints, s.endpoint_id))
            snprintf(tasks, sizeof tasks, "%s<->%s", mine, theirs);
        if (s.closing)
            snprintf(tasks + strlen(tasks), sizeof tasks - strlen(tasks), " (closing)");
        printf("%-9u %4u %-12s %12s %10llu %10llu %10llu %10llu %6llu %6llu %6llu %6llu %10llu "
               "%10llu %8llu %6llu %5u %7llu %7llu %6llu %6u %s\n",
               s.endpoint_id, s.vc, addr, peer, (unsigned long long)s.tx_pdus,
               (unsigned long long)s.tx_cells, (unsigned long long)s.rx_pdus,
               (unsigned long long)s.rx_cells, (unsigned long long)s.crc_errors,
               (unsigned long long)s.length_errors, (unsigned long long)s.protection_errors,
               (unsigned long long)s.aborted, (unsigned long long)s.sw_cells_in,
               (unsigned long long)s.sw_cells_out, (unsigned long long)s.sw_stalls,
               (unsigned long long)s.sw_drops, s.sw_buffered, (unsigned long long)s.host_resent,
               (unsigned long long)s.host_dups_dropped, (unsigned long long)s.host_recoveries,
               s.rx_posted_max, tasks);
    }
    if (h.truncated)
        printf("(more than fits one answer: list truncated)\n");
    free(names);
    free(buf);
    return 0;
}
