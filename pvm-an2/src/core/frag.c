/* Fragment allocation through a replaceable allocator (default malloc). */
#include "frag.h"

#include <stdlib.h>

static void *malloc_alloc(size_t size, void *ctx)
{
	(void)ctx;
	return malloc(size);
}

static void malloc_free(void *mem, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	free(mem);
}

static const struct frag_allocator malloc_allocator = { malloc_alloc, malloc_free, NULL };
static const struct frag_allocator *current = &malloc_allocator;

const struct frag_allocator *frag_set_allocator(const struct frag_allocator *a)
{
	const struct frag_allocator *old = current;
	current = a ? a : &malloc_allocator;
	return old;
}

struct frag *frag_new(size_t cap)
{
	struct frag *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->mem_size = FRAG_HEADROOM + cap;
	f->mem = current->alloc(f->mem_size, current->ctx);
	if (!f->mem) {
		free(f);
		return NULL;
	}
	f->owner = current;
	f->data = f->mem + FRAG_HEADROOM;
	f->cap = cap;
	return f;
}

struct frag *frag_new_inplace(const void *data, size_t len)
{
	struct frag *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->data = (char *)data;  /* never written through: in-place data is only sent */
	f->len = len;
	f->cap = len;
	return f;
}

void frag_free(struct frag *f)
{
	if (!f)
		return;
	if (f->mem)
		f->owner->free(f->mem, f->mem_size, f->owner->ctx);
	free(f);
}
