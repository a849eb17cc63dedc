/* an2_capture.h — writes every AAL5 PDU with its VPI/VCI to a gzip-compressed pcap file
 * (LINKTYPE_SUNATM) that `tshark -r` reads as ATM. */
#ifndef AN2_CAPTURE_H
#define AN2_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct an2_capture;

/* Opens path for writing (gzip). NULL with errno set on failure. */
struct an2_capture *an2_capture_open(const char *path);
/* Records one PDU at time_ns (CLOCK_MONOTONIC, as otto_poll's now; written to the file as
 * wall-clock time) as it crossed the link: the CPCS-PDU, i.e. its cells' 48-byte payloads
 * concatenated (payload, pad, trailer; after any injected fault). */
int an2_capture_pdu(struct an2_capture *cap, uint64_t time_ns, uint16_t vpi, uint16_t vci,
                    const void *payload, size_t length);
/* Flushes and closes; 0 or -errno. */
int an2_capture_close(struct an2_capture *cap);

#endif
