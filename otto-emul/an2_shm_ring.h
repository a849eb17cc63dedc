/* an2_shm_ring.h — the memory of the shared-memory carrier (an2_carrier_shm.c): each end of a
 * link owns one ring, a sealed memfd that only it can write, and hands it to the other end over
 * the link's Unix socket. The owner writes the bytes it sends into its ring; the other end reads
 * them from there and says in ITS ring how far it has read. The socket carries the memfd once,
 * then only wake-ups (one byte) to an end that said it sleeps, and the end of the link.
 *
 * The counters take the first page and the data starts on the next, so that the owner can map
 * the data twice in a row: from any position a stretch of up to the ring's size is then one
 * run of memory, and the link builds its records in place (an2_carrier_window).
 *
 * Everything the other end's ring holds is untrusted: its counters are checked against the
 * ring's size before they are used, and the bytes are copied out before the link parses them.
 */
#ifndef AN2_SHM_RING_H
#define AN2_SHM_RING_H

#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define AN2_SHM_RING_MAGIC   0x414e3252u    /* "AN2R" */
#define AN2_SHM_RING_VERSION 2u
#define AN2_SHM_RING_DATA    (1u << 20)     /* data bytes, a power of two */
#define AN2_SHM_RING_HEADER  4096u          /* the counters' page: data starts page-aligned */

/* The counters are shared between processes: they must be lock-free (address-free) atomics. */
static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2, "lock-free atomics");

struct an2_shm_ring {
    uint32_t magic, version, data_bytes, pad;
    /* bytes the owner has written into data, ever (data[produced % data_bytes] is next) */
    _Alignas(64) _Atomic uint64_t produced;
    /* bytes of the OTHER end's ring the owner has read, ever */
    _Alignas(64) _Atomic uint64_t consumed;
    /* 1: the owner is about to sleep until its socket is readable: whoever produces for it, or
     * consumes what it waits to send, writes a byte to the socket */
    _Alignas(64) _Atomic uint32_t sleeping;
    _Alignas(AN2_SHM_RING_HEADER) uint8_t data[AN2_SHM_RING_DATA];
};
static_assert(offsetof(struct an2_shm_ring, data) == AN2_SHM_RING_HEADER, "data after one page");
static_assert(sizeof(struct an2_shm_ring) == AN2_SHM_RING_HEADER + AN2_SHM_RING_DATA,
              "ring layout");
static_assert((AN2_SHM_RING_DATA & (AN2_SHM_RING_DATA - 1)) == 0, "ring size a power of two");

#endif
