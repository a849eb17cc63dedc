/* an2_text.c — words for numbers: VC addresses in linux-atm's itf.vpi.vci notation, error
 * and report-status texts. */
#include "an2.h"

#include <atm.h>
#include <errno.h>
#include <string.h>

int an2_addr_format(char *buf, size_t len, uint16_t itf, uint16_t vpi, uint16_t vci)
{
    struct sockaddr_atmpvc a;
    memset(&a, 0, sizeof a);
    a.sap_family = AF_ATMPVC;
    a.sap_addr.itf = (short)itf;
    a.sap_addr.vpi = (short)vpi;
    a.sap_addr.vci = vci;
    int n = atm2text(buf, (int)len, (struct sockaddr *)&a, 0);
    return n < 0 ? -EINVAL : 0;
}

int an2_host_nsap_format(char *buf, size_t len, uint32_t host_addr)
{
    struct sockaddr_atmsvc a;
    memset(&a, 0, sizeof a);
    a.sas_family = AF_ATMSVC;
    /* ICD-format NSAP: AFI 47, ICD 0005 (as linux-atm's examples), then the switch and port
     * of the host in the end-system identifier; selector 0 */
    static const uint8_t prefix[13] = {0x47, 0x00, 0x05, 0x80, 0xff, 0xe1, 0x00,
                                       0x00, 0x00, 0xf2, 0x1a, 0x00, 0x00};
    memcpy(a.sas_addr.prv, prefix, sizeof prefix);
    a.sas_addr.prv[17] = (uint8_t)(host_addr >> 8);
    a.sas_addr.prv[18] = (uint8_t)host_addr;
    return atm2text(buf, (int)len, (struct sockaddr *)&a, A2T_PRETTY) < 0 ? -EINVAL : 0;
}

int an2_addr_parse(const char *text, uint16_t *itf, uint16_t *vpi, uint16_t *vci)
{
    struct sockaddr_atmpvc a;
    memset(&a, 0, sizeof a);
    if (text2atm(text, (struct sockaddr *)&a, sizeof a, T2A_PVC) < 0 ||
        a.sap_family != AF_ATMPVC || a.sap_addr.itf < 0 || a.sap_addr.vpi < 0 ||
        a.sap_addr.vci < 0)
        return -EINVAL;
    *itf = (uint16_t)a.sap_addr.itf;
    *vpi = (uint16_t)a.sap_addr.vpi;
    *vci = (uint16_t)a.sap_addr.vci;
    return 0;
}

const char *an2_strerror(int err)
{
    switch (-err) {
    case 0: return "success";
    case E2BIG: return "request exceeds an2d's per-task limit";
    case ENOSPC: return "no free VC (per-endpoint VC limit or VCI space)";
    case ESRCH: return "no such peer endpoint, or it closed before agreeing";
    case ETIMEDOUT: return "timed out";
    case EALREADY: return "already asking that peer for a VC";
    case EAGAIN: return "ring full: read reports and retry";
    case EBADF: return "no such VC open on this endpoint";
    case EFAULT: return "fragment outside the buffer area";
    case EMSGSIZE: return "PDU larger than 65,535 bytes";
    case ECONNREFUSED: return "no an2d answers at the control socket";
    case ENOENT: return "no an2d control socket (or nothing to cancel)";
    case ECONNRESET: return "an2d closed the connection";
    case EPROTO: return "control protocol error with an2d";
    case ENAMETOOLONG: return "control socket path too long";
    case EIO: return "the controller broke the report ring";
    case EACCES: return "that endpoint belongs to another user";
    case EDQUOT: return "over this user's limit on the system an2d";
    default: return strerror(-err);
    }
}

const char *an2_status_str(unsigned status)
{
    static const char *const names[] = {"ok", "CRC error", "length error", "aborted",
                                        "protection violation", "peer gone"};
    return status < sizeof names / sizeof names[0] ? names[status] : "unknown status";
}
