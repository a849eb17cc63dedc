/* Sends and receives one benchmark message with the chosen PVM calls and encoding. */
#ifndef BENCH_TRANSFER_H
#define BENCH_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>

enum bench_api { BENCH_API_PACK, BENCH_API_PSEND };
enum bench_encoding { BENCH_ENC_RAW, BENCH_ENC_INPLACE };

struct bench_transfer {
    enum bench_api api;
    enum bench_encoding encoding;   /* only used with BENCH_API_PACK */
};

/* Both return 0 on success or -1 after printing a diagnostic to stderr. */
int bench_send(const struct bench_transfer *how, int peer, int tag, const char *data, size_t len);

/* Receives exactly len bytes from peer with tag into data; any other length is an error.
 * With verify, also checks every byte against bench_fill_pattern. */
int bench_recv(const struct bench_transfer *how, int peer, int tag, char *data, size_t len,
               bool verify);

/* The recognisable content every benchmark message carries. */
void bench_fill_pattern(char *data, size_t len);

#endif
