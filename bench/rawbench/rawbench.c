/* rawbench.c — an2-rawbench: raw AAL5 ping-pong (one-way latency) and streaming bandwidth
 * between two processes over one VC, unpaced and at OC-3c, each on a private an2d; medians
 * of repeated runs, as a table and as CSV rows transport,bytes,reps,one_way_us,MBps. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "an2.h"
#include "rawbench.h"

#define OC3_CELLS_PER_SECOND (149760000.0 / 424.0)
/* Deep rings, so that a side descheduled for a few ms (2 cores shared with an2d and others)
 * leaves the link work queued: 1000 receive buffers of 64 KiB, 4096 transmit slots. */
#define NBUF 1000u         /* receive buffers posted per side */
#define BUF 65536u         /* each receive buffer */
#define TX_OFF (NBUF * BUF) /* the send buffer, above the receive buffers */

struct side {
    an2_ep *ep;
    uint16_t vc;
    int to, from;          /* pipes to the other process (commands, not timed) */
    uint64_t tx_done;      /* TX reports seen */
};

struct cmd {
    char op;               /* 'p' ping-pong, 's' stream, 'q' quit */
    uint32_t size;
    uint32_t count;
};

static void die(const char *what, int err)
{
    fprintf(stderr, "an2-rawbench [%d]: %s: %s (%s)\n", (int)getpid(), what, an2_strerror(err),
            an2_error_detail());
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define RX_YIELD_S 0.002 /* a receive polls and yields this long, then sleeps in an2_wait */

/* One report, for a receive: polls and yields with the hint that only a received PDU ends the
 * wait (an2_yield), so that an an2d sharing our CPU keeps it rather than hand it to us for a
 * transmit report and take it back; then sleeps in an2_wait. */
static int wait_for_rx(struct side *s, struct an2_report *r)
{
    double give_up = now_s() + RX_YIELD_S;
    int n;
    while ((n = an2_poll(s->ep, r, 1)) == 0 && now_s() < give_up)
        an2_yield(s->ep, true);
    an2_yield_end(s->ep);
    return n ? n : an2_wait(s->ep, r, 1, 20000);
}

/* Waits for the next received PDU, reposting its buffer; TX reports are counted. */
static uint32_t recv_pdu(struct side *s)
{
    for (;;) {
        struct an2_report r[16];
        int n = wait_for_rx(s, r);
        if (n <= 0)
            die("waiting for a PDU", n ? n : -ETIMEDOUT);
        if (r[0].status != AN2_STATUS_OK)
            die(an2_status_str(r[0].status), -EIO);
        if (r[0].kind == AN2_REPORT_TX) {
            s->tx_done++;
            continue;
        }
        struct an2_frag f = {(uint32_t)r[0].cookie * BUF, BUF};
        int rc = an2_post_recv(s->ep, s->vc, &f, 1, r[0].cookie);
        if (rc != 0)
            die("reposting a buffer", rc);
        return r[0].length;
    }
}

static void send_pdu(struct side *s, uint32_t size)
{
    struct an2_frag f = {TX_OFF, size};
    int rc;
    while ((rc = an2_send(s->ep, s->vc, &f, 1, 0, 0)) == -EAGAIN) {
        struct an2_report r[64];
        int n = an2_wait(s->ep, r, 64, 20000);
        if (n <= 0)
            die("waiting for transmit room", n ? n : -ETIMEDOUT);
        for (int i = 0; i < n; i++) {
            if (r[i].kind != AN2_REPORT_TX || r[i].status != AN2_STATUS_OK)
                die("unexpected report while streaming", -EIO);
            s->tx_done++;
        }
    }
    if (rc != 0)
        die("an2_send", rc);
}

/* Reads TX reports until `sent` have come back (between runs, untimed). */
static void drain_tx(struct side *s, uint64_t sent)
{
    while (s->tx_done < sent) {
        struct an2_report r[64];
        int n = an2_wait(s->ep, r, 64, 20000);
        if (n <= 0)
            die("draining transmit reports", n ? n : -ETIMEDOUT);
        for (int i = 0; i < n; i++)
            if (r[i].kind == AN2_REPORT_TX)
                s->tx_done++;
    }
}

static void pipe_write(int fd, const void *p, size_t n)
{
    if (write(fd, p, n) != (ssize_t)n)
        die("pipe", -errno);
}

static void pipe_read(int fd, void *p, size_t n)
{
    if (read(fd, p, n) != (ssize_t)n)
        die("pipe (the other process died?)", -EPIPE);
}

/* The partner process: echoes ping-pongs, sinks streams, acknowledges. */
static void partner(struct side *s)
{
    uint64_t sent = 0;
    for (;;) {
        struct cmd c;
        pipe_read(s->from, &c, sizeof c);
        if (c.op == 'q')
            return;
        char ok = 1;
        pipe_write(s->to, &ok, 1);
        for (uint32_t i = 0; i < c.count; i++) {
            uint32_t len = recv_pdu(s);
            if (len != c.size)
                die("wrong PDU length", -EIO);
            if (c.op == 'p') {
                send_pdu(s, c.size);
                sent++;
            }
        }
        if (c.op == 's') {
            send_pdu(s, 0); /* the acknowledgement */
            sent++;
        }
        drain_tx(s, sent);
    }
}

/* One timed ping-pong run: seconds for count round trips. */
static double run_pingpong(struct side *s, uint32_t size, uint32_t count, uint64_t *sent)
{
    struct cmd c = {'p', size, count};
    char ok;
    pipe_write(s->to, &c, sizeof c);
    pipe_read(s->from, &ok, 1);
    double t0 = now_s();
    for (uint32_t i = 0; i < count; i++) {
        send_pdu(s, size);
        if (recv_pdu(s) != size)
            die("wrong echo length", -EIO);
    }
    double t = now_s() - t0;
    *sent += count;
    drain_tx(s, *sent);
    return t;
}

/* One timed streaming run: seconds from the first send to the receiver's acknowledgement. */
static double run_stream(struct side *s, uint32_t size, uint32_t count, uint64_t *sent)
{
    struct cmd c = {'s', size, count};
    char ok;
    pipe_write(s->to, &c, sizeof c);
    pipe_read(s->from, &ok, 1);
    double t0 = now_s();
    for (uint32_t i = 0; i < count; i++)
        send_pdu(s, size);
    if (recv_pdu(s) != 0)
        die("wrong acknowledgement", -EIO);
    double t = now_s() - t0;
    *sent += count;
    drain_tx(s, *sent);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint32_t clamp_count(double want, uint32_t lo, uint32_t hi)
{
    return want < lo ? lo : want > hi ? hi : (uint32_t)want;
}

struct result {
    uint32_t size, reps;
    double one_way_us, mbps;          /* medians */
    double one_way_min, mbps_max;     /* best runs, to show the noise */
};

struct config {
    const char *socket, *peer_socket;  /* --sockets: the two an2d to use, else private ones */
    int runs;
    double trial_s;
    uint32_t sizes[32];
    int nsizes;
    FILE *csv;
};

/* Both processes for one link rate; fills res[] in the parent. 0 or -errno. unpaced: the
 * receive buffers are warmed before anything is timed (below). */
static int measure_rate(const struct config *cfg, bool unpaced, struct result *res)
{
    int down[2], up[2];
    if (pipe(down) || pipe(up))
        return -errno;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    struct side s = {.to = pid ? down[1] : up[1], .from = pid ? up[0] : down[0]};
    if (cfg->peer_socket)
        setenv("AN2_SOCKET", pid ? cfg->socket : cfg->peer_socket, 1);
    close(pid ? down[0] : up[0]);
    close(pid ? up[1] : down[1]);
    struct an2_open_params params = {.buf_size = TX_OFF + BUF, .max_vcs = 1,
                                     .rx_slots = 1024, .tx_slots = 4096};
    int rc = an2_open(&params, &s.ep);
    if (rc != 0)
        die("an2_open", rc);
    uint32_t mine = an2_endpoint_id(s.ep), peer;
    pipe_write(s.to, &mine, sizeof mine);
    pipe_read(s.from, &peer, sizeof peer);
    struct an2_vc_info vi;
    if ((rc = an2_vc_open(s.ep, peer, 10000, &vi)) != 0)
        die("an2_vc_open", rc);
    s.vc = vi.vc;
    memset((char *)an2_buf_base(s.ep) + TX_OFF, 0x5a, 65536);
    for (uint32_t i = 0; i < NBUF; i++) {
        struct an2_frag f = {i * BUF, BUF};
        if ((rc = an2_post_recv(s.ep, s.vc, &f, 1, i)) != 0)
            die("posting buffers", rc);
    }
    if (pid == 0) {
        partner(&s);
        an2_close(s.ep);
        _exit(0);
    }
    uint64_t sent = 0;
    /* Untimed, every receive buffer of both sides filled once (the controller takes them in
     * the order posted): the first PDU into a buffer costs the controller a page fault per
     * page it writes, 16 for 64 KiB (an2d maps our buffer area page by page as it first
     * touches it; about 4 us each on the 2-core machines), the price of a cold buffer pool,
     * which timed trials would otherwise pay for their first 1000 PDUs of each side. At a
     * paced rate the link is far slower than those faults, and a pass would take seconds. */
    if (unpaced)
        run_pingpong(&s, AN2_MAX_PDU, NBUF, &sent);
    for (int k = 0; k < cfg->nsizes; k++) {
        uint32_t size = cfg->sizes[k];
        /* calibrate: one short untimed run of each, then size the trials to trial_s */
        double t = run_pingpong(&s, size, 20, &sent);
        uint32_t reps = clamp_count(cfg->trial_s / (t / 20), 10, 1000000);
        t = run_stream(&s, size, 20, &sent);
        uint32_t count = clamp_count(cfg->trial_s / (t / 20), 20, 1000000);
        double lat[64], bw[64];
        for (int r = 0; r < cfg->runs; r++) {
            lat[r] = run_pingpong(&s, size, reps, &sent) / reps / 2 * 1e6;
            bw[r] = (double)size * count / run_stream(&s, size, count, &sent) / 1e6;
        }
        res[k] = (struct result){.size = size, .reps = reps,
                                 .one_way_us = median(lat, cfg->runs),
                                 .mbps = median(bw, cfg->runs)};
        res[k].one_way_min = lat[0]; /* median() sorted them */
        res[k].mbps_max = bw[cfg->runs - 1];
    }
    struct cmd q = {'q', 0, 0};
    pipe_write(s.to, &q, sizeof q);
    int st;
    waitpid(pid, &st, 0);
    an2_close(s.ep);
    close(s.to);
    close(s.from);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

/* Cell-payload capacity at cells_per_second less AAL5 pad and trailer, in MB/s. */
static double aal5_capacity_mbps(double cells_per_second, uint32_t size)
{
    uint32_t cells = (size + 8 + 47) / 48;
    return cells_per_second * size / cells / 1e6;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: an2-rawbench [--rate RATE]... [--csv FILE] [--runs N] [--trial-ms MS]\n"
            "                    [--sizes a,b,...] [--quick]\n"
            "                    [--sockets A,B --transport NAME]\n"
            "Raw AAL5 between two processes over an2d: ping-pong one-way latency and streaming\n"
            "bandwidth. Each rate gets its own private an2d. Default rates: unpaced and oc3\n"
            "(transports raw-aal5 and raw-aal5-oc3). CSV rows (appended):\n"
            "transport,bytes,reps,one_way_us,MBps. MB = 10^6 bytes; medians of --runs runs.\n"
            "--sockets A,B: no private an2d; the two processes use the running an2d at control\n"
            "socket A and at B (e.g. two hosts of a fabric); --rate then only names the link\n"
            "rate those were started with (for the OC-3c percentage), and --transport names\n"
            "the CSV rows.\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"rate", required_argument, 0, 'r'},  {"csv", required_argument, 0, 'c'},
        {"runs", required_argument, 0, 'n'},  {"trial-ms", required_argument, 0, 't'},
        {"sizes", required_argument, 0, 's'}, {"quick", no_argument, 0, 'q'},
        {"sockets", required_argument, 0, 'S'}, {"transport", required_argument, 0, 'T'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    const char *transport_opt = NULL;
    static char sockets_buf[512];
    struct config cfg = {.runs = 5, .trial_s = 0.1,
                         .sizes = {0, 40, 256, 1024, 4096, 16384, 65535}, .nsizes = 7};
    const char *rates[8];
    int nrates = 0;
    const char *csv_path = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "r:c:n:t:s:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (nrates < 8)
                rates[nrates++] = optarg;
            break;
        case 'c': csv_path = optarg; break;
        case 'n': cfg.runs = atoi(optarg); break;
        case 't': cfg.trial_s = atof(optarg) / 1000; break;
        case 'q': cfg.runs = 3; cfg.trial_s = 0.03; break;
        case 's': {
            cfg.nsizes = 0;
            for (char *tok = strtok(optarg, ","); tok && cfg.nsizes < 32; tok = strtok(NULL, ","))
                cfg.sizes[cfg.nsizes++] = (uint32_t)strtoul(tok, NULL, 0);
            break;
        }
        case 'S': {
            snprintf(sockets_buf, sizeof sockets_buf, "%s", optarg);
            char *comma = strchr(sockets_buf, ',');
            if (!comma) {
                fprintf(stderr, "an2-rawbench: --sockets A,B\n");
                return 2;
            }
            *comma = 0;
            cfg.socket = sockets_buf;
            cfg.peer_socket = comma + 1;
            break;
        }
        case 'T': transport_opt = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (cfg.socket && nrates > 1) {
        fprintf(stderr, "an2-rawbench: --sockets measures one fabric: at most one --rate\n");
        return 2;
    }
    if (cfg.runs < 1 || cfg.runs > 64 || !(cfg.trial_s > 0)) {
        fprintf(stderr, "an2-rawbench: --runs 1..64 and --trial-ms > 0\n");
        return 2;
    }
    for (int k = 0; k < cfg.nsizes; k++)
        if (cfg.sizes[k] > AN2_MAX_PDU) {
            fprintf(stderr, "an2-rawbench: %u bytes: AAL5 carries at most 65535\n", cfg.sizes[k]);
            return 2;
        }
    if (nrates == 0) {
        rates[nrates++] = "unpaced";
        if (!cfg.socket)
            rates[nrates++] = "oc3";
    }
    if (csv_path && !(cfg.csv = fopen(csv_path, "a"))) {
        fprintf(stderr, "an2-rawbench: %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    if (cfg.csv && ftell(cfg.csv) == 0)
        fprintf(cfg.csv, "transport,bytes,reps,one_way_us,MBps\n");
    int status = 0;
    double one_cell_us = NAN, big_mbps = NAN, oc3_ratio = NAN;
    for (int i = 0; i < nrates; i++) {
        bool unpaced = strcmp(rates[i], "unpaced") == 0;
        bool oc3 = strcmp(rates[i], "oc3") == 0;
        char transport[64];
        snprintf(transport, sizeof transport, unpaced ? "raw-aal5" : "raw-aal5-%s", rates[i]);
        if (transport_opt)
            snprintf(transport, sizeof transport, "%s", transport_opt);
        struct rb_an2d d;
        if (!cfg.socket && rb_an2d_start(&d, rates[i]) != 0) {
            status = 1;
            continue;
        }
        struct result res[32];
        int rc = measure_rate(&cfg, unpaced, res);
        if (!cfg.socket)
            rb_an2d_stop(&d);
        if (rc != 0) {
            fprintf(stderr, "an2-rawbench: %s: the measurement failed\n", transport);
            status = 1;
            continue;
        }
        printf("\n%s (link %s; medians of %d runs; noisy if other work shares the cores)\n",
               transport, rates[i], cfg.runs);
        printf("%8s %9s %12s %12s %12s %12s%s\n", "bytes", "reps", "one_way_us", "(best)",
               "MB/s", "(best)", oc3 ? "   % of OC-3c AAL5 capacity" : "");
        for (int k = 0; k < cfg.nsizes; k++) {
            const struct result *r = &res[k];
            printf("%8u %9u %12.2f %12.2f %12.2f %12.2f", r->size, r->reps, r->one_way_us,
                   r->one_way_min, r->mbps, r->mbps_max);
            if (oc3 && r->size > 0) {
                double pct = 100 * r->mbps / aal5_capacity_mbps(OC3_CELLS_PER_SECOND, r->size);
                printf("   %6.2f %%", pct);
                if (r->size == 65535)
                    oc3_ratio = pct;
            }
            printf("\n");
            if (cfg.csv)
                fprintf(cfg.csv, "%s,%u,%u,%.6g,%.6g\n", transport, r->size, r->reps,
                        r->one_way_us, r->mbps);
            if (unpaced && r->size == 40)
                one_cell_us = r->one_way_us;
            if (unpaced && r->size == 65535)
                big_mbps = r->mbps;
        }
    }
    if (cfg.socket) { /* the one-host targets below are not this fabric's */
        if (cfg.csv)
            fclose(cfg.csv);
        return status;
    }
    printf("\nTargets (2-core machine):\n");
    if (!isnan(one_cell_us))
        printf("  one-cell PDU (40 B) one-way, unpaced: %.2f us (target <= 3 us) %s\n",
               one_cell_us, one_cell_us <= 3 ? "met" : "MISSED");
    if (!isnan(big_mbps))
        printf("  65,535 B streaming, unpaced: %.0f MB/s (target >= 2000 MB/s) %s\n", big_mbps,
               big_mbps >= 2000 ? "met" : "MISSED");
    if (!isnan(oc3_ratio))
        printf("  65,535 B streaming at OC-3c: %.2f %% of 135.6 Mb/s less AAL5 overhead "
               "(target >= 99 %%) %s\n", oc3_ratio, oc3_ratio >= 99 ? "met" : "MISSED");
    if (cfg.csv)
        fclose(cfg.csv);
    return status;
}
