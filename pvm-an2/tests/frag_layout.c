/* White-box check of the buffer design the AN2 fast path relies on: every packed or received
 * fragment comes from the installed allocator with FRAG_HEADROOM bytes in front of its data;
 * PvmDataInPlace packs pointers, not copies. Needs no pvmd. */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

static int allocs, frees;
static size_t live;

static void *count_alloc(size_t size, void *ctx)
{
	(void)ctx;
	allocs++;
	live += size;
	return malloc(size);
}

static void count_free(void *mem, size_t size, void *ctx)
{
	(void)ctx;
	frees++;
	live -= size;
	free(mem);
}

static int failures;
#define CHECK(c, what) do { if (!(c)) { failures++; fprintf(stderr, "frag_layout: FAIL %s\n", what); } } while (0)

int main(void)
{
	static const struct frag_allocator counting = { count_alloc, count_free, NULL };
	frag_set_allocator(&counting);
	pvm_setopt(PvmAutoErr, 0);

	/* 200 KB of XDR ints: several fragments, all from our allocator, all with headroom */
	static int v[50000];
	for (int i = 0; i < 50000; i++)
		v[i] = i;
	int mid = pvm_initsend(PvmDataDefault);
	CHECK(pvm_pkint(v, 50000, 1) == 0, "pack");
	char odd[3] = "abc";
	CHECK(pvm_pkbyte(odd, 3, 1) == 0, "pack bytes");
	struct msg *m = msg_lookup(mid);
	int nfrags = 0, layout_ok = 1;
	size_t total = 0;
	for (struct frag *f = m->head; f; f = f->next) {
		nfrags++;
		total += f->len;
		layout_ok &= f->mem != NULL && f->data == f->mem + FRAG_HEADROOM;
		layout_ok &= f->len <= f->cap && (f->next == NULL || f->len % 4 == 0);
	}
	CHECK(nfrags > 1, "a 200 KB message spans several fragments");
	CHECK(nfrags == allocs, "every fragment came from the installed allocator");
	CHECK(layout_ok, "headroom in front of every fragment, XDR-aligned lengths");
	CHECK(total == 50000 * 4 + 4, "packed length (ints + padded bytes)");
	CHECK(FRAG_HEADROOM >= 16 + 32, "headroom holds the task-daemon and message headers");

	/* unpacking sees the same data */
	pvm_setrbuf(mid);
	static int back[50000];
	char ob[3];
	CHECK(pvm_upkint(back, 50000, 1) == 0 && !memcmp(v, back, sizeof v), "unpack");
	CHECK(pvm_upkbyte(ob, 3, 1) == 0 && !memcmp(ob, odd, 3), "unpack bytes");
	CHECK(pvm_upkbyte(ob, 1, 1) == PvmNoData, "past the end");
	pvm_freebuf(mid);
	CHECK(frees == allocs && live == 0, "freeing the buffer gives every fragment back");

	/* in place: the fragment is the caller's memory */
	int before = allocs;
	mid = pvm_initsend(PvmDataInPlace);
	CHECK(pvm_pkint(v, 1000, 1) == 0, "in-place pack");
	m = msg_lookup(mid);
	CHECK(m->head && m->head->mem == NULL && m->head->data == (char *)v
	      && m->head->len == 4000 && allocs == before, "in-place packs a pointer, no copy");
	pvm_freebuf(mid);

	frag_set_allocator(NULL);
	printf("frag_layout: %s (%d fragments)\n", failures ? "FAILED" : "ok", nfrags);
	return failures ? 1 : 0;
}
