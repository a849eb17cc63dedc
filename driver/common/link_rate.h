/* link_rate.h — a link's parameters in words: its rate (unpaced, oc3, oc12, or linux-atm
 * QoS text) and injected fault rates; shared by an2d and an2switch. */
#ifndef LINK_RATE_H
#define LINK_RATE_H

#define AN2_OC3_CELLS_PER_SECOND (149760000.0 / 424.0) /* SONET payload / cell bits */

/* "unpaced" (0), "oc3", "oc12", or a linux-atm QoS specification parsed with text2qos (its
 * transmit PCR, else its maximum PCR, in cells/s; e.g. "cbr:pcr=100000" or
 * "ubr:max_pcr=100Mbps"; QoS text without a rate, e.g. "ubr", is unpaced). 0 on success,
 * -EINVAL for text that is neither. */
int an2_parse_rate(const char *text, double *cells_per_second);

/* A probability in [0, 1] (e.g. --ber 2e-6). 0, or -EINVAL. */
int an2_parse_probability(const char *text, double *out);

#endif
