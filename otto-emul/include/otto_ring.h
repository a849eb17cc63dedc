/* otto_ring.h — the one way to touch what otto_hw.h shares between host and controller: ring
 * index arithmetic, publishing and reading ring indices, hints and handshake flags, each
 * with the memory order otto_hw.h's rules need, said here once (C11 stdatomic). The
 * controller model, the driver and liban2 all use it. */
#ifndef OTTO_RING_H
#define OTTO_RING_H

#include <stdatomic.h>
#include <stdint.h>

/* Every word otto_hw.h shares is a naturally aligned uint32_t or uint64_t in a mapping both
 * sides hold, which is what an _Atomic of the same size is on the targets we build for. */
#define OTTO_SHARED32(p) ((_Atomic uint32_t *)(p))
#define OTTO_SHARED64(p) ((_Atomic uint64_t *)(p))

/* The slot a free-running counter names in a ring of `slots` (a power of two). */
static inline uint32_t otto_ring_slot(uint32_t counter, uint32_t slots)
{
    return counter & (slots - 1);
}

/* Entries between the consumer's and the producer's counter: more than the ring holds only if
 * a side wrote garbage, which the reader then ignores until it makes sense again. */
static inline uint32_t otto_ring_used(uint32_t prod, uint32_t cons)
{
    return prod - cons;
}

/* Moves our index of a ring (prod after filling slots, cons after copying them out).
 * release: everything we wrote to the slots, or read from them, happens before the other
 * side can see the index cover them. */
static inline void otto_ring_publish(uint32_t *index, uint32_t value)
{
    atomic_store_explicit(OTTO_SHARED32(index), value, memory_order_release);
}

/* Reads the other side's index of a ring. acquire: pairs with its otto_ring_publish, so the
 * slots it covers are filled (its prod) or copied out and free to reuse (its cons). */
static inline uint32_t otto_ring_peek(const uint32_t *index)
{
    return atomic_load_explicit(OTTO_SHARED32(index), memory_order_acquire);
}

/* Reads a word that only we write, or a hint: relaxed, no ordering is needed from it. */
static inline uint32_t otto_shared_get(const uint32_t *word)
{
    return atomic_load_explicit(OTTO_SHARED32(word), memory_order_relaxed);
}

/* Writes a hint or a handshake flag: relaxed; a stale hint costs time, never correctness, and
 * a flag is ordered by the otto_handshake_fence that follows it. */
static inline void otto_shared_set(uint32_t *word, uint32_t value)
{
    atomic_store_explicit(OTTO_SHARED32(word), value, memory_order_relaxed);
}

static inline uint64_t otto_shared_get64(const uint64_t *word)
{
    return atomic_load_explicit(OTTO_SHARED64(word), memory_order_relaxed);
}

static inline void otto_shared_set64(uint64_t *word, uint64_t value)
{
    atomic_store_explicit(OTTO_SHARED64(word), value, memory_order_relaxed);
}

/* Counts an event another side waits on (the doorbell, irq_count). release: what we
 * published before counting is visible to a side that acquires the new count. */
static inline void otto_shared_count(uint32_t *word)
{
    atomic_fetch_add_explicit(OTTO_SHARED32(word), 1, memory_order_release);
}

/* Reads a count another side increments (irq_count). acquire: pairs with otto_shared_count. */
static inline uint32_t otto_shared_count_get(const uint32_t *word)
{
    return atomic_load_explicit(OTTO_SHARED32(word), memory_order_acquire);
}

/* The fence of otto_hw.h's three Dekker handshakes (doorbell and controller_asleep, interrupt
 * request and reports, report slots wanted and freed): each side stores its flag or index,
 * fences, then reads the other's; seq_cst, so at least one side sees the other's store. */
static inline void otto_handshake_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

#endif
