/* an2_shm_ring.h — the memory of the shared-memory carrier (an2_carrier_shm.c): each end of a
 * link owns one ring, a sealed memfd that only it can write, and hands it to the other end over
 * the link's Unix socket. The owner writes the bytes it sends into its ring; the other end reads
 * them from there and says in ITS ring how far it has read. The socket carries the memfd once,
 * then only wake-ups (one byte) to an end that said it sleeps, and the end of the link.
 *
 * Everything the other end's ring holds is untrusted: its counters are checked against the
 * ring's size before they are used, and the bytes are copied out before the link parses them.
 */
#ifndef AN2_SHM_RING_H
#define AN2_SHM_RING_H

#include <assert.h>
#include <stdatomic.h>
#include <stdint.h>

#define AN2_SHM_RING_MAGIC   0x414e3252u    /* "AN2R" */
#define AN2_SHM_RING_VERSION 1u
#define AN2_SHM_RING_DATA    (1u << 20)     /* data bytes, a power of two */

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
    _Alignas(64) uint8_t data[AN2_SHM_RING_DATA];
};
static_assert(sizeof(struct an2_shm_ring) == 256 + AN2_SHM_RING_DATA, "ring layout");
static_assert((AN2_SHM_RING_DATA & (AN2_SHM_RING_DATA - 1)) == 0, "ring size a power of two");

#endif
