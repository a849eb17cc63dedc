/* an2switch_options.c — an2switch's command line: its usage text and the options parsed and
 * checked into struct an2sw_options. */
#include "an2switch_daemon.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_rate.h"
#include "number_parse.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: an2switch [options]   a standalone AN2 switch joining hosts' an2d and other\n"
            "                             switches by links over TCP, Unix sockets, shared\n"
            "                             memory or libfabric\n"
            "  -l, --listen ADDR      accept links at ADDR: HOST:PORT, [IPv6]:PORT, :PORT (all\n"
            "                         addresses), unix:PATH, shm:PATH (links of this\n"
            "                         machine in shared memory), or ofi:HOST:PORT (links\n"
            "                         over a libfabric provider, set up over TCP at\n"
            "                         HOST:PORT); repeatable\n"
            "  -t, --trunk ADDR       keep a trunk to the switch at ADDR (retried every second)\n"
            "  -a, --auth SPEC        how every link proves itself, both ways, before HELLO:\n"
            "                         key:FILE (a key file the fabric's daemons share, mode\n"
            "                         0600) or munge[:SOCKET] (MUNGE credentials); default\n"
            "                         $AN2_AUTH. Required: no link goes unauthenticated\n"
            "  -i, --id N             this switch's id, 1..255 (default 1): hosts on port P get\n"
            "                         the address N.P\n"
            "  -p, --ports N          ports (default 16, at most 255)\n"
            "  -r, --rate RATE        rate of every link out of the switch: unpaced (default),\n"
            "                         oc3, oc12, or linux-atm QoS text (cbr:pcr=..., ubr:max_pcr=...)\n"
            "      --port-rate P=RATE the rate of port P's link\n"
            "      --ber RATE         inject bit errors into the cells received on every link\n"
            "                         (per payload bit; default 0)\n"
            "      --cell-loss RATE   inject loss of received cells on every link (per cell)\n"
            "      --port-faults P=BER,LOSS  the faults of port P's link\n"
            "      --fault-seed N     seed of the fault injectors (default 1)\n"
            "      --capture FILE     write every PDU the switch receives to FILE (gzip pcap,\n"
            "                         SunATM: tshark -r FILE), with its VPI/VCI on that link\n"
            "      --vc-credits N     cells buffered per VC and link: the credit window, fixed\n"
            "                         (default: each link's, from its measured round trip times\n"
            "                         its rate, 2048 (a 64 KiB PDU and half) to 16384 cells)\n"
            "      --keepalive-ms N   keepalive period (default 200; a link silent 3 periods is\n"
            "                         down)\n"
            "      --spin-us N        after traffic, poll without yielding the CPU this long\n"
            "                         (default %u)\n"
            "      --yield-us N       then poll yielding the CPU between looks up to this long\n"
            "                         before sleeping in epoll (default %u)\n"
            "      --control PATH     answer an2stat --switch PATH there (a new Unix socket)\n"
            "      --pid-file PATH    write our pid there (a new file, or one of ours)\n"
            "      --log-file PATH    log there (default stderr)\n"
            "      --stop             stop the switch whose pid file is --pid-file, and wait\n",
            SPIN_US, YIELD_US);
}

int an2sw_parse_options(int argc, char **argv, struct an2sw_options *o)
{
    enum { O_PORT_RATE = 256, O_CREDITS, O_KEEPALIVE, O_PID, O_LOG, O_STOP, O_BER, O_LOSS,
           O_PORT_FAULTS, O_SEED, O_CAPTURE, O_CONTROL, O_SPIN, O_YIELD };
    static const struct option longopts[] = {
        {"listen", required_argument, 0, 'l'}, {"trunk", required_argument, 0, 't'},
        {"auth", required_argument, 0, 'a'},
        {"id", required_argument, 0, 'i'},     {"ports", required_argument, 0, 'p'},
        {"rate", required_argument, 0, 'r'},   {"port-rate", required_argument, 0, O_PORT_RATE},
        {"vc-credits", required_argument, 0, O_CREDITS},
        {"keepalive-ms", required_argument, 0, O_KEEPALIVE},
        {"pid-file", required_argument, 0, O_PID}, {"log-file", required_argument, 0, O_LOG},
        {"stop", no_argument, 0, O_STOP},      {"help", no_argument, 0, 'h'},
        {"ber", required_argument, 0, O_BER},  {"cell-loss", required_argument, 0, O_LOSS},
        {"port-faults", required_argument, 0, O_PORT_FAULTS},
        {"fault-seed", required_argument, 0, O_SEED},
        {"capture", required_argument, 0, O_CAPTURE},
        {"control", required_argument, 0, O_CONTROL},
        {"spin-us", required_argument, 0, O_SPIN}, {"yield-us", required_argument, 0, O_YIELD},
        {0, 0, 0, 0}};
    *o = (struct an2sw_options){.id = 1, .nports = 16, .window = AN2_WINDOW_FLOOR, .keepalive_ms = 200,
                          .fault_seed = 1, .spin_us = SPIN_US, .yield_us = YIELD_US};
    const char *port_rates[64], *port_faults[64];
    unsigned nport_rates = 0, nport_faults = 0;
    int c;
    while ((c = getopt_long(argc, argv, "l:t:a:i:p:r:h", longopts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'l':
            ok = o->nlisten < MAX_LISTEN;
            if (ok)
                o->listen[o->nlisten++] = optarg;
            break;
        case 't':
            ok = o->ntrunks < MAX_TRUNKS;
            if (ok)
                o->trunks[o->ntrunks++] = (struct an2sw_trunk){.spec = optarg, .port = -1};
            break;
        case 'a': o->auth = optarg; break;
        case 'i': ok = parse_decimal_u32(optarg, 1, 255, &o->id); break;
        case 'p': ok = parse_decimal_u32(optarg, 1, 255, &o->nports); break;
        case 'r': ok = an2_parse_rate(optarg, &o->rate) == 0; break;
        case O_PORT_RATE:
            ok = nport_rates < 64 && strchr(optarg, '=');
            if (ok)
                port_rates[nport_rates++] = optarg;
            break;
        case O_CREDITS:
            ok = parse_decimal_u32(optarg, 1, 1u << 16, &o->window);
            o->window_given = true;
            break;
        case O_BER: ok = an2_parse_probability(optarg, &o->ber) == 0; break;
        case O_LOSS: ok = an2_parse_probability(optarg, &o->loss) == 0; break;
        case O_PORT_FAULTS:
            ok = nport_faults < 64 && strchr(optarg, '=');
            if (ok)
                port_faults[nport_faults++] = optarg;
            break;
        case O_SEED: {
            char *end;
            o->fault_seed = strtoull(optarg, &end, 0);
            ok = *optarg && !*end;
            break;
        }
        case O_CAPTURE: o->capture = optarg; break;
        case O_CONTROL: o->control = optarg; break;
        case O_KEEPALIVE: ok = parse_decimal_u32(optarg, 10, 10000, &o->keepalive_ms); break;
        case O_SPIN: ok = parse_decimal_u32(optarg, 0, 1000000, &o->spin_us); break;
        case O_YIELD: ok = parse_decimal_u32(optarg, 0, 1000000, &o->yield_us); break;
        case O_PID: o->pid_file = optarg; break;
        case O_LOG: o->log_file = optarg; break;
        case O_STOP: o->stop = true; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
        if (!ok) {
            fprintf(stderr, "an2switch: bad value '%s' for -%c%s\n", optarg,
                    c < 256 ? c : '-', c < 256 ? "" : " (see --help)");
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "an2switch: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (o->stop) {
        if (!o->pid_file) {
            fprintf(stderr, "an2switch: --stop needs --pid-file\n");
            return -1;
        }
        return 0;
    }
    if (!o->nlisten && !o->ntrunks) {
        fprintf(stderr, "an2switch: nothing to do: give --listen or --trunk\n");
        return -1;
    }
    if (!o->auth && getenv("AN2_AUTH") && *getenv("AN2_AUTH"))
        o->auth = getenv("AN2_AUTH");
    if (!o->auth) {
        fprintf(stderr, "an2switch: links must authenticate: give --auth key:FILE or --auth "
                        "munge (or set AN2_AUTH)\n");
        return -1;
    }
    if (o->ntrunks > o->nports) {
        fprintf(stderr, "an2switch: more trunks than ports\n");
        return -1;
    }
    o->port_rate = malloc(o->nports * sizeof *o->port_rate);
    o->port_ber = malloc(o->nports * sizeof *o->port_ber);
    o->port_loss = malloc(o->nports * sizeof *o->port_loss);
    if (!o->port_rate || !o->port_ber || !o->port_loss)
        return -1;
    for (unsigned p = 0; p < o->nports; p++)
        o->port_rate[p] = o->port_ber[p] = o->port_loss[p] = -1;
    for (unsigned i = 0; i < nport_faults; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", port_faults[i]);
        char *eq = strchr(buf, '='), *comma = strchr(buf, ',');
        *eq = 0;
        uint32_t port;
        if (!comma || comma < eq || !parse_decimal_u32(buf, 0, o->nports - 1, &port) ||
            (*comma = 0, an2_parse_probability(eq + 1, &o->port_ber[port])) ||
            an2_parse_probability(comma + 1, &o->port_loss[port])) {
            fprintf(stderr, "an2switch: --port-faults %s: not PORT=BER,LOSS with PORT < %u\n",
                    port_faults[i], o->nports);
            return -1;
        }
    }
    for (unsigned i = 0; i < nport_rates; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", port_rates[i]);
        char *eq = strchr(buf, '=');
        *eq = 0;
        uint32_t port;
        double r;
        if (!parse_decimal_u32(buf, 0, o->nports - 1, &port) || an2_parse_rate(eq + 1, &r) != 0) {
            fprintf(stderr, "an2switch: --port-rate %s: not PORT=RATE with PORT < %u\n",
                    port_rates[i], o->nports);
            return -1;
        }
        o->port_rate[port] = r;
    }
    return 0;
}
