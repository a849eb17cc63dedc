/* an2_names.c — the endpoint registry from the task's side: name our endpoint, find a peer's. */
#include "an2_internal.h"

static int name_call(an2_ep *ep, uint16_t op, uint16_t reply_op, uint32_t name,
                     uint32_t *endpoint_id)
{
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION, .op = op,
                            .name = name};
    struct an2_ctl_reply r;
    int rc = an2_ctl_call(ep, &q, reply_op, &r);
    if (rc != 0 || r.status != 0)
        return rc ? rc : r.status;
    if (endpoint_id)
        *endpoint_id = r.endpoint_id;
    return 0;
}

int an2_register_name(an2_ep *ep, uint32_t name)
{
    return name_call(ep, AN2_CTL_REGISTER, AN2_CTL_R_REGISTER, name, NULL);
}

int an2_lookup_name(an2_ep *ep, uint32_t name, uint32_t *endpoint_id)
{
    return name_call(ep, AN2_CTL_LOOKUP, AN2_CTL_R_LOOKUP, name, endpoint_id);
}
