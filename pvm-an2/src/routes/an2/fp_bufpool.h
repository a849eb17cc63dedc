/* fp_bufpool.h — the AN2 route's buffer area as fragment memory (a buddy allocator). */
#ifndef AN2PVM_FP_BUFPOOL_H
#define AN2PVM_FP_BUFPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "frag.h"

/* Largest block: one receive buffer or one fragment of one PDU (headroom included). */
#define POOL_MAX_BLOCK 65536u
#define POOL_MIN_BLOCK 256u

struct bufpool;

/* Manages [base, base + size) (size a multiple of POOL_MAX_BLOCK). NULL when out of memory. */
struct bufpool *bufpool_new(void *base, size_t size);
void bufpool_destroy(struct bufpool *p);
/* The frag_allocator over the pool: blocks from the area while it lasts, malloc beyond
 * (requests above POOL_MAX_BLOCK, or the area exhausted). */
const struct frag_allocator *bufpool_allocator(struct bufpool *p);
/* Area bytes the frag_allocator leaves free (it mallocs instead), for receive buffers. */
void bufpool_set_reserve(struct bufpool *p, size_t bytes);
/* A block from the area only (NULL when exhausted); freed with bufpool_free. */
void *bufpool_alloc_area(struct bufpool *p, size_t size);
void bufpool_free(struct bufpool *p, void *mem);
/* Whether mem lies in the area, and its offset there. */
int bufpool_owns(const struct bufpool *p, const void *mem);
uint32_t bufpool_offset(const struct bufpool *p, const void *mem);
/* Transmit references: a block referenced by a transmit descriptor is given back only when
 * its last reference is dropped, even if freed meanwhile (its message may be freed at once
 * after pvm_send; the controller reads it until the TX report). */
void bufpool_tx_ref(struct bufpool *p, void *block);
void bufpool_tx_unref(struct bufpool *p, void *block);
/* Blocks given out and bytes free (for tests and the log). */
size_t bufpool_free_bytes(const struct bufpool *p);
size_t bufpool_blocks_out(const struct bufpool *p);

#endif
