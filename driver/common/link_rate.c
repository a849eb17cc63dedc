/* link_rate.c — turns --rate text into cells per second (libatm's text2qos for QoS text),
 * and fault rates into probabilities. */
#include "link_rate.h"

#include <atm.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int an2_parse_rate(const char *text, double *cells_per_second)
{
    if (strcasecmp(text, "unpaced") == 0 || strcmp(text, "0") == 0) {
        *cells_per_second = 0;
        return 0;
    }
    if (strcasecmp(text, "oc3") == 0 || strcasecmp(text, "oc3c") == 0 ||
        strcasecmp(text, "oc-3c") == 0) {
        *cells_per_second = AN2_OC3_CELLS_PER_SECOND;
        return 0;
    }
    if (strcasecmp(text, "oc12") == 0 || strcasecmp(text, "oc12c") == 0 ||
        strcasecmp(text, "oc-12c") == 0) {
        *cells_per_second = 4 * AN2_OC3_CELLS_PER_SECOND;
        return 0;
    }
    struct atm_qos qos;
    memset(&qos, 0, sizeof qos);
    if (text2qos(text, &qos, 0) < 0)
        return -EINVAL;
    int pcr = qos.txtp.pcr > 0 ? qos.txtp.pcr : qos.txtp.max_pcr;
    if (pcr <= 0 && qos.txtp.min_pcr > 0)
        pcr = qos.txtp.min_pcr;
    *cells_per_second = pcr > 0 ? pcr : 0; /* no rate named, or "max": the link is unpaced */
    return 0;
}

int an2_parse_probability(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0 && v <= 1))
        return -EINVAL;
    *out = v;
    return 0;
}
