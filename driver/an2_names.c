/* an2_names.c — the endpoint registry from the task's side: name our endpoint, find a peer's. */
#include "an2_internal.h"

#include <errno.h>

static int name_call(an2_ep *ep, uint16_t op, uint16_t reply_op, uint32_t name,
                     uint32_t *endpoint_id)
{
    struct an2_ctl_req q = {.magic = AN2_CTL_MAGIC, .version = AN2_CTL_VERSION, .op = op,
                            .name = name};
    int rc = an2_ctl_send(ep, &q);
    if (rc != 0)
        return rc;
    uint64_t deadline = an2_now_ns() + 10000000000ull;
    for (;;) {
        struct an2_ctl_reply r;
        int left = an2_ms_left(deadline);
        if (left == 0)
            return -ETIMEDOUT;
        rc = an2_ctl_recv(ep, &r, left);
        if (rc < 0)
            return rc;
        if (rc == 1 && r.op == AN2_CTL_R_ERROR) {
            an2_set_detail(r.detail);
            return r.status ? r.status : -EPROTO;
        }
        if (rc == 1 && r.op == reply_op && r.peer_id == name) {
            if (r.status != 0) {
                an2_set_detail(r.detail);
                return r.status;
            }
            if (endpoint_id)
                *endpoint_id = r.endpoint_id;
            return 0;
        }
    }
}

int an2_register_name(an2_ep *ep, uint32_t name)
{
    return name_call(ep, AN2_CTL_REGISTER, AN2_CTL_R_REGISTER, name, NULL);
}

int an2_lookup_name(an2_ep *ep, uint32_t name, uint32_t *endpoint_id)
{
    return name_call(ep, AN2_CTL_LOOKUP, AN2_CTL_R_LOOKUP, name, endpoint_id);
}
