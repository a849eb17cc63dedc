/* fp_bufpool.c — the AN2 route's buffer area as fragment memory (a buddy allocator). */
/* Packing writes into DMA-able memory. Book-keeping lives outside the area (the controller
 * writes into it; we never trust it). */
#include "fp_bufpool.h"

#include <stdlib.h>
#include <string.h>

#define UNIT POOL_MIN_BLOCK
#define MIN_ORDER 8                 /* 256 bytes */
#define MAX_ORDER 16                /* 65536 bytes */
#define NORDERS (MAX_ORDER - MIN_ORDER + 1)
#define NIL UINT32_MAX

#define SMALL_CACHE 64

enum { U_INSIDE = 0, U_FREE_HEAD = 1, U_USED_HEAD = 2 };

struct bufpool {
	char *base;
	size_t size;
	uint32_t nunits;
	uint32_t free_head[NORDERS];
	uint32_t *next, *prev;          /* free-list links per unit (heads only) */
	uint8_t *state, *order;         /* per unit: block head state and its order */
	uint16_t *txref;                /* transmit references per used head */
	uint8_t *zombie;                /* freed while referenced */
	size_t free_bytes, blocks_out, reserve;
	uint32_t small[SMALL_CACHE];    /* free minimum-size blocks kept out of the buddy lists */
	unsigned nsmall;                /* (headers and small copies come and go per message) */
	struct frag_allocator alloc;
};

static void list_push(struct bufpool *p, uint32_t u, int ord)
{
	int k = ord - MIN_ORDER;
	p->state[u] = U_FREE_HEAD;
	p->order[u] = (uint8_t)ord;
	p->prev[u] = NIL;
	p->next[u] = p->free_head[k];
	if (p->free_head[k] != NIL)
		p->prev[p->free_head[k]] = u;
	p->free_head[k] = u;
}

static void list_remove(struct bufpool *p, uint32_t u)
{
	int k = p->order[u] - MIN_ORDER;
	if (p->prev[u] != NIL)
		p->next[p->prev[u]] = p->next[u];
	else
		p->free_head[k] = p->next[u];
	if (p->next[u] != NIL)
		p->prev[p->next[u]] = p->prev[u];
	p->state[u] = U_INSIDE;
}

static int order_for(size_t size)
{
	int ord = MIN_ORDER;
	while (((size_t)1 << ord) < size)
		ord++;
	return ord;
}

void *bufpool_alloc_area(struct bufpool *p, size_t size)
{
	if (!p || size > POOL_MAX_BLOCK)
		return NULL;
	int want = order_for(size), ord = want;
	if (want == MIN_ORDER && p->nsmall) {
		uint32_t u = p->small[--p->nsmall];
		p->txref[u] = 0;
		p->zombie[u] = 0;
		p->free_bytes -= UNIT;
		p->blocks_out++;
		return p->base + (size_t)u * UNIT;
	}
	while (ord <= MAX_ORDER && p->free_head[ord - MIN_ORDER] == NIL)
		ord++;
	if (ord > MAX_ORDER)
		return NULL;
	uint32_t u = p->free_head[ord - MIN_ORDER];
	list_remove(p, u);
	while (ord > want) {     /* split: the upper half stays free */
		ord--;
		list_push(p, u + (1u << (ord - MIN_ORDER)), ord);
	}
	p->state[u] = U_USED_HEAD;
	p->order[u] = (uint8_t)want;
	p->txref[u] = 0;
	p->zombie[u] = 0;
	p->free_bytes -= (size_t)1 << want;
	p->blocks_out++;
	return p->base + (size_t)u * UNIT;
}

static void release(struct bufpool *p, uint32_t u)
{
	int ord = p->order[u];
	p->free_bytes += (size_t)1 << ord;
	p->blocks_out--;
	if (ord == MIN_ORDER && p->nsmall < SMALL_CACHE) {
		p->small[p->nsmall++] = u;   /* stays a used head in the buddy's view */
		return;
	}
	p->state[u] = U_INSIDE;
	while (ord < MAX_ORDER) {   /* merge with a free buddy of the same order */
		uint32_t buddy = u ^ (1u << (ord - MIN_ORDER));
		if (buddy >= p->nunits || p->state[buddy] != U_FREE_HEAD || p->order[buddy] != ord)
			break;
		list_remove(p, buddy);
		if (buddy < u)
			u = buddy;
		ord++;
	}
	list_push(p, u, ord);
}

int bufpool_owns(const struct bufpool *p, const void *mem)
{
	const char *c = mem;
	return p && c >= p->base && c < p->base + p->size;
}

uint32_t bufpool_offset(const struct bufpool *p, const void *mem)
{
	return (uint32_t)((const char *)mem - p->base);
}

void bufpool_free(struct bufpool *p, void *mem)
{
	if (!bufpool_owns(p, mem)) {
		free(mem);
		return;
	}
	uint32_t u = bufpool_offset(p, mem) / UNIT;
	if (p->state[u] != U_USED_HEAD)
		abort();   /* double free or a pointer we never gave out: a bug */
	if (p->txref[u])
		p->zombie[u] = 1;
	else
		release(p, u);
}

void bufpool_tx_ref(struct bufpool *p, void *block)
{
	p->txref[bufpool_offset(p, block) / UNIT]++;
}

void bufpool_tx_unref(struct bufpool *p, void *block)
{
	uint32_t u = bufpool_offset(p, block) / UNIT;
	if (--p->txref[u] == 0 && p->zombie[u])
		release(p, u);
}

void bufpool_set_reserve(struct bufpool *p, size_t bytes)
{
	p->reserve = bytes;
}

static void *pool_alloc(size_t size, void *ctx)
{
	struct bufpool *p = ctx;
	void *m = p->free_bytes >= size + p->reserve ? bufpool_alloc_area(p, size) : NULL;
	return m ? m : malloc(size);
}

static void pool_free(void *mem, size_t size, void *ctx)
{
	(void)size;
	bufpool_free(ctx, mem);
}

const struct frag_allocator *bufpool_allocator(struct bufpool *p)
{
	return &p->alloc;
}

size_t bufpool_free_bytes(const struct bufpool *p)
{
	return p->free_bytes;
}

size_t bufpool_blocks_out(const struct bufpool *p)
{
	return p->blocks_out;
}

struct bufpool *bufpool_new(void *base, size_t size)
{
	size -= size % POOL_MAX_BLOCK;
	struct bufpool *p = calloc(1, sizeof *p);
	if (!p || size == 0) {
		free(p);
		return NULL;
	}
	p->base = base;
	p->size = size;
	p->nunits = (uint32_t)(size / UNIT);
	p->next = malloc(p->nunits * sizeof *p->next);
	p->prev = malloc(p->nunits * sizeof *p->prev);
	p->state = calloc(p->nunits, 1);
	p->order = calloc(p->nunits, 1);
	p->txref = calloc(p->nunits, sizeof *p->txref);
	p->zombie = calloc(p->nunits, 1);
	if (!p->next || !p->prev || !p->state || !p->order || !p->txref || !p->zombie) {
		bufpool_destroy(p);
		return NULL;
	}
	for (int k = 0; k < NORDERS; k++)
		p->free_head[k] = NIL;
	uint32_t step = POOL_MAX_BLOCK / UNIT;
	for (uint32_t u = p->nunits; u >= step; u -= step)   /* low addresses first out */
		list_push(p, u - step, MAX_ORDER);
	p->free_bytes = size;
	p->alloc = (struct frag_allocator){ pool_alloc, pool_free, p };
	return p;
}

void bufpool_destroy(struct bufpool *p)
{
	if (!p)
		return;
	free(p->next);
	free(p->prev);
	free(p->state);
	free(p->order);
	free(p->txref);
	free(p->zombie);
	free(p);
}
