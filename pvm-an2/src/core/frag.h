/* Message fragments and the replaceable allocator their memory comes from. */
#ifndef AN2PVM_FRAG_H
#define AN2PVM_FRAG_H

#include <stddef.h>

/* Bytes reserved in front of every fragment's data, so a route can prepend its headers
 * (task-daemon fragment header 16 + message header 32, or AN2 descriptors) without a copy. */
#define FRAG_HEADROOM 64

/* Where fragment memory comes from. The default is malloc/free; the AN2 fast path installs
 * one that carves fragments out of the task's DMA-able buffer area. */
struct frag_allocator {
	void *(*alloc)(size_t size, void *ctx);          /* NULL when out of memory */
	void (*free)(void *mem, size_t size, void *ctx);
	void *ctx;
};

struct frag {
	struct frag *next;
	char *mem;               /* allocation (NULL for an in-place fragment) */
	size_t mem_size;         /* size of mem */
	const struct frag_allocator *owner;  /* allocator that gave mem */
	char *data;              /* first data byte; mem + FRAG_HEADROOM when owned */
	size_t len;              /* data bytes in use */
	size_t cap;              /* data bytes available from data on */
};

/* Installs the allocator used for new fragments (NULL restores malloc); returns the old one. */
const struct frag_allocator *frag_set_allocator(const struct frag_allocator *a);

/* New empty fragment with cap data bytes after FRAG_HEADROOM bytes of headroom. */
struct frag *frag_new(size_t cap);
/* Fragment that points at caller memory (PvmDataInPlace); nothing is copied. */
struct frag *frag_new_inplace(const void *data, size_t len);
void frag_free(struct frag *f);

#endif
