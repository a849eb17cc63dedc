/* The cache of frozen (static) groups: pvmgs sends a frozen group's whole map with its
 * replies, and members answer gettid/getinst/gsize and the host queries from it. */
#include <stdlib.h>
#include <string.h>

#include "gpvm.h"

static struct frozen_group *frozen_list;

/* Upper bounds on what a reply may announce; beyond them it is malformed, not a big group. */
enum { MAX_NAME = 1 << 16, MAX_SLOTS = 1 << 22 };

struct frozen_group *frozen_find(const char *name)
{
	for (struct frozen_group *g = frozen_list; g; g = g->next)
		if (strcmp(g->name, name) == 0)
			return g;
	return NULL;
}

static void frozen_free(struct frozen_group *g)
{
	free(g->name);
	free(g->tids);
	free(g->members_on_host);
	free(g->coordinators);
	free(g);
}

void frozen_forget(const char *name)
{
	for (struct frozen_group **p = &frozen_list; *p; p = &(*p)->next) {
		if (strcmp((*p)->name, name) == 0) {
			struct frozen_group *g = *p;
			*p = g->next;
			frozen_free(g);
			return;
		}
	}
}

void frozen_forget_all(void)
{
	while (frozen_list) {
		struct frozen_group *g = frozen_list;
		frozen_list = g->next;
		frozen_free(g);
	}
}

static int unpack_count(int *n, int max)
{
	int cc = pvm_upkint(n, 1, 1);
	if (cc < 0)
		return cc;
	return *n < 0 || *n > max ? PvmBadMsg : 0;
}

static int unpack_ints(int **v, int n)
{
	*v = calloc((size_t)n + 1, sizeof **v);
	if (!*v)
		return PvmNoMem;
	return n ? pvm_upkint(*v, n, 1) : 0;
}

static int unpack_group(struct frozen_group *g)
{
	int len = 0;
	int cc = unpack_count(&len, MAX_NAME);
	if (cc < 0)
		return cc;
	if (!(g->name = calloc((size_t)len + 1, 1)))
		return PvmNoMem;
	/* the name is a packed string; one longer than announced is malformed */
	int room = 0, tag = 0, src = 0;
	if ((cc = pvm_bufinfo(pvm_getrbuf(), &room, &tag, &src)) < 0)
		return cc;
	char *name = calloc((size_t)room + 1, 1);
	if (!name)
		return PvmNoMem;
	cc = pvm_upkstr(name);
	if (cc >= 0 && strlen(name) != (size_t)len)
		cc = PvmBadMsg;
	if (cc >= 0)
		memcpy(g->name, name, (size_t)len);
	free(name);
	if (cc < 0)
		return cc;
	if ((cc = unpack_count(&g->ntids, MAX_SLOTS)) < 0 ||
	    (cc = unpack_count(&g->maxntids, MAX_SLOTS)) < 0)
		return cc;
	if (g->ntids > g->maxntids)
		return PvmBadMsg;
	if ((cc = unpack_ints(&g->tids, g->maxntids)) < 0 ||
	    (cc = unpack_count(&g->nhosts, g->maxntids)) < 0 ||
	    (cc = unpack_ints(&g->members_on_host, g->nhosts)) < 0 ||
	    (cc = unpack_ints(&g->coordinators, g->nhosts)) < 0)
		return cc;
	return 0;
}

int frozen_unpack(void)
{
	struct frozen_group *g = calloc(1, sizeof *g);
	if (!g)
		return PvmNoMem;
	int cc = unpack_group(g);
	if (cc < 0) {
		frozen_free(g);
		return cc;
	}
	frozen_forget(g->name);
	g->next = frozen_list;
	frozen_list = g;
	return 0;
}
