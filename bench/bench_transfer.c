/* Sends and receives one benchmark message with the chosen PVM calls and encoding. */
#include "bench_transfer.h"

#include <pvm3.h>
#include <stdio.h>

static unsigned char pattern_byte(size_t index)
{
    return (unsigned char)(index * 131 + 17);
}

void bench_fill_pattern(char *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        data[i] = (char)pattern_byte(i);
}

static int check_pattern(const char *data, size_t len, int peer)
{
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)data[i] != pattern_byte(i)) {
            fprintf(stderr, "pvmbench: message from t%x corrupted at byte %zu of %zu\n", peer, i, len);
            return -1;
        }
    }
    return 0;
}

static int report(const char *call, int status)
{
    fprintf(stderr, "pvmbench: %s failed with PVM error %d\n", call, status);
    return -1;
}

int bench_send(const struct bench_transfer *how, int peer, int tag, const char *data, size_t len)
{
    int status;
    if (how->api == BENCH_API_PSEND) {
        status = pvm_psend(peer, tag, (void *)data, (int)len, PVM_BYTE);
        return status < 0 ? report("pvm_psend", status) : 0;
    }
    status = pvm_initsend(how->encoding == BENCH_ENC_INPLACE ? PvmDataInPlace : PvmDataRaw);
    if (status < 0)
        return report("pvm_initsend", status);
    status = pvm_pkbyte((char *)data, (int)len, 1);
    if (status < 0)
        return report("pvm_pkbyte", status);
    status = pvm_send(peer, tag);
    return status < 0 ? report("pvm_send", status) : 0;
}

int bench_recv(const struct bench_transfer *how, int peer, int tag, char *data, size_t len,
               bool verify)
{
    int received_len, status;
    if (how->api == BENCH_API_PSEND) {
        int source, received_tag;
        status = pvm_precv(peer, tag, data, (int)len, PVM_BYTE, &source, &received_tag, &received_len);
        if (status < 0)
            return report("pvm_precv", status);
    } else {
        int bufid = pvm_recv(peer, tag);
        if (bufid < 0)
            return report("pvm_recv", bufid);
        int source, received_tag;
        status = pvm_bufinfo(bufid, &received_len, &received_tag, &source);
        if (status < 0)
            return report("pvm_bufinfo", status);
        if (received_len == (int)len && (status = pvm_upkbyte(data, (int)len, 1)) < 0)
            return report("pvm_upkbyte", status);
    }
    if (received_len != (int)len) {
        fprintf(stderr, "pvmbench: expected %zu bytes from t%x, got %d\n", len, peer, received_len);
        return -1;
    }
    return verify ? check_pattern(data, len, peer) : 0;
}
