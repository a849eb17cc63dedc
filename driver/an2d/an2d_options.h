/* an2d_options.h — an2d's command line: what it asks for, parsed and checked. */
#ifndef AN2D_OPTIONS_H
#define AN2D_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "an2d_files.h"
#include "driver.h"

struct an2d_options {
    struct an2d_files files;  /* socket, pid and log paths */
    bool log_derived;         /* the log is the default one beside the socket */
    bool keep_log;            /* ... and stays after a clean stop */
    uint64_t idle_exit_s;     /* stop after this long without a client; 0: never */
    bool max_clients_given;
    const char *capture;
    double cells_per_second;
    double ber, cell_loss;
    uint64_t fault_seed;
    uint32_t vc_credits;
    bool derive_window;           /* the uplink's window from its round trip (no --vc-credits) */
    bool daemonise, stop;
    bool system;              /* --system: serves every uid (limits.multiuser) */
    int activated_fd;         /* the listening socket socket activation passed, or -1 */
    struct an2_driver_limits limits;
    uint64_t spin_us, yield_us, pace_spin_us, hold_us;
    const char *switch_addr;  /* the fabric's switch, or NULL: this host alone */
    const char *auth;         /* how the uplink authenticates (an2_link_auth.h) */
};

/* The command line into o, with the socket, pid and log paths derived where not given
 * (exits 0 after --help). 0, or -1 (said on stderr). */
int an2d_parse_options(int argc, char **argv, struct an2d_options *o);

#endif
