/* an2_credit_window.c — a link's credit window from its measured round trip and rate. */
#include "an2_credit_window.h"

#include <string.h>

void an2_credit_window_init(struct an2_credit_window *w)
{
    memset(w, 0, sizeof *w);
    w->window = AN2_WINDOW_FLOOR;
}

uint32_t an2_credit_window_for(uint64_t rtt_ns, double cells_per_second)
{
    double rate = cells_per_second > 0 ? cells_per_second : AN2_WINDOW_UNPACED_CELLS_PER_S;
    double cells = (double)rtt_ns * 1e-9 * rate * 4.0 / 3.0;
    if (!(cells < AN2_WINDOW_CAP)) /* also a NaN */
        return AN2_WINDOW_CAP;
    uint32_t n = ((uint32_t)cells + 63u) & ~63u;
    return n < AN2_WINDOW_FLOOR ? AN2_WINDOW_FLOOR : n > AN2_WINDOW_CAP ? AN2_WINDOW_CAP : n;
}

/* The median of the samples (the upper one of the middle two). */
static uint64_t median(const struct an2_credit_window *w)
{
    uint64_t s[AN2_WINDOW_SAMPLES];
    uint32_t n = w->nsamples;
    memcpy(s, w->rtt_ns, n * sizeof s[0]);
    for (uint32_t i = 1; i < n; i++) /* insertion sort of at most 8 */
        for (uint32_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            uint64_t t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return s[n / 2];
}

uint32_t an2_credit_window_sample(struct an2_credit_window *w, uint64_t rtt_ns,
                                  double cells_per_second)
{
    if (!rtt_ns || rtt_ns == w->last_rtt_ns)
        return 0;
    w->last_rtt_ns = rtt_ns;
    w->rtt_ns[w->next] = rtt_ns;
    w->next = (w->next + 1) % AN2_WINDOW_SAMPLES;
    if (w->nsamples < AN2_WINDOW_SAMPLES)
        w->nsamples++;
    if (w->nsamples < AN2_WINDOW_SAMPLES)
        return 0;
    w->median_ns = median(w);
    uint32_t want = an2_credit_window_for(w->median_ns, cells_per_second);
    if (want < w->window + w->window / 4 && want < AN2_WINDOW_CAP)
        return 0;
    if (want <= w->window)
        return 0;
    w->window = want;
    return want;
}
