/* an2_carrier_for.c — the carrier a link address names (an2_carrier.h): "shm:PATH" the
 * shared-memory one, "ofi:HOST:PORT" the libfabric one, any other the stream; and what its
 * owner does before its first link there. */
#include "an2_carrier.h"

#include <string.h>

struct an2_carrier *an2_carrier_for(const char *spec, int fd, bool accepted)
{
    if (!strncmp(spec, "shm:", 4))
        return an2_carrier_shm(fd);
    if (!strncmp(spec, "ofi:", 4))
        return an2_carrier_ofi(fd, accepted);
    return an2_carrier_stream(fd);
}

void an2_carrier_prepare(const char *spec)
{
    if (!strncmp(spec, "ofi:", 4))
        an2_carrier_ofi_warm_up();
}
