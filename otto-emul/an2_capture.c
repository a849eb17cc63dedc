/* an2_capture.c — gzip-compressed pcap of AAL5 PDUs with the SunATM pseudo-header. */
#include "an2_capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define PCAP_MAGIC_NS   0xa1b23c4du /* timestamps in nanoseconds */
#define LINKTYPE_SUNATM 123u
#define SNAPLEN         (4u + 65535u + 56u)
#define SUNATM_TYPE_AAL5 0x00u       /* traffic type unknown: AAL5 PDU shown as data */

struct an2_capture {
    gzFile gz;
    int error;
    int64_t realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC when opened */
};

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4); /* pcap is written in the host's byte order; the magic tells readers */
}

static int write_all(struct an2_capture *cap, const void *p, unsigned len)
{
    if (cap->error)
        return cap->error;
    if (len && gzwrite(cap->gz, p, len) != (int)len)
        cap->error = -EIO;
    return cap->error;
}

struct an2_capture *an2_capture_open(const char *path)
{
    struct an2_capture *cap = calloc(1, sizeof *cap);
    if (!cap)
        return NULL;
    cap->gz = gzopen(path, "wb6");
    if (!cap->gz) {
        int e = errno ? errno : EIO;
        free(cap);
        errno = e;
        return NULL;
    }
    cap->realtime_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    uint8_t hdr[24];
    put32(hdr, PCAP_MAGIC_NS);
    uint16_t major = 2, minor = 4;
    memcpy(hdr + 4, &major, 2);
    memcpy(hdr + 6, &minor, 2);
    put32(hdr + 8, 0);  /* thiszone */
    put32(hdr + 12, 0); /* sigfigs */
    put32(hdr + 16, SNAPLEN);
    put32(hdr + 20, LINKTYPE_SUNATM);
    if (write_all(cap, hdr, sizeof hdr)) {
        gzclose(cap->gz);
        free(cap);
        errno = EIO;
        return NULL;
    }
    return cap;
}

int an2_capture_pdu(struct an2_capture *cap, uint64_t time_ns, uint16_t vpi, uint16_t vci,
                    const void *payload, size_t length)
{
    if (!cap)
        return -EINVAL;
    if (length > SNAPLEN - 4)
        length = SNAPLEN - 4;
    uint64_t wall = time_ns + (uint64_t)cap->realtime_offset_ns;
    uint8_t rec[16 + 4];
    put32(rec, (uint32_t)(wall / 1000000000u));
    put32(rec + 4, (uint32_t)(wall % 1000000000u));
    put32(rec + 8, (uint32_t)length + 4);
    put32(rec + 12, (uint32_t)length + 4);
    rec[16] = 0x80 | SUNATM_TYPE_AAL5; /* direction bit: DTE->DCE, sent by this host */
    rec[17] = (uint8_t)vpi;
    rec[18] = (uint8_t)(vci >> 8);
    rec[19] = (uint8_t)vci;
    if (write_all(cap, rec, sizeof rec))
        return cap->error;
    return write_all(cap, payload, (unsigned)length);
}

int an2_capture_close(struct an2_capture *cap)
{
    if (!cap)
        return 0;
    int rc = cap->error;
    int z = gzclose(cap->gz);
    if (!rc && z != Z_OK)
        rc = -EIO;
    free(cap);
    return rc;
}
