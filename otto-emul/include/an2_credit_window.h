/* an2_credit_window.h — a link's credit window (cells buffered per VC at its receiving end)
 * derived from the link's measured round trip and its rate. */
#ifndef AN2_CREDIT_WINDOW_H
#define AN2_CREDIT_WINDOW_H

#include <stdint.h>

/* One 64 KiB PDU (1366 cells) and half as much again: a whole PDU goes without waiting for
 * credit, with room for the next to start while the credit for the first comes back. */
#define AN2_WINDOW_FLOOR 2048u
/* 868 KB of buffer per VC at most: a round trip of 35 ms at OC-3c, 9 ms at OC-12c. */
#define AN2_WINDOW_CAP 16384u
/* An unpaced link counts as OC-12c (a rate the hosts here sustain; faster, the wake-ups
 * that the round trip includes dominate) */
#define AN2_WINDOW_UNPACED_CELLS_PER_S (4 * 149760000.0 / 424.0)
#define AN2_WINDOW_SAMPLES 8u

/* The round trips a link measured lately, and the window derived so far (only grows). */
struct an2_credit_window {
    uint64_t rtt_ns[AN2_WINDOW_SAMPLES];
    uint32_t nsamples, next;
    uint64_t last_rtt_ns;       /* the last value seen (a new keepalive gives a new one) */
    uint64_t median_ns;         /* of the samples, when the window was last derived */
    uint32_t window;
};

/* Starts at AN2_WINDOW_FLOOR. */
void an2_credit_window_init(struct an2_credit_window *w);
/* The cells a round trip of rtt_ns at cells_per_second (0: unpaced) needs, with a quarter
 * more for the credit updates the receiver batches (it grants once a quarter window has
 * left), rounded up to 64 cells, between the floor and the cap. */
uint32_t an2_credit_window_for(uint64_t rtt_ns, double cells_per_second);
/* The link's current round trip (0: none measured yet): a new sample when it changed. The
 * window follows the median of the last AN2_WINDOW_SAMPLES (a few late wake-ups do not
 * inflate it), once that many are in (1.6 s of keepalives: a link's first moments under
 * load do not size it for good); it grows when that median needs a quarter more than it
 * has. Returns the new window when it grew, else 0. */
uint32_t an2_credit_window_sample(struct an2_credit_window *w, uint64_t rtt_ns,
                                  double cells_per_second);

#endif
