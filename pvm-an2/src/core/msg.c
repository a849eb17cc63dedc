/* Message objects and the message-id table. */
#include "msg.h"

#include <pvm3.h>

#include "lib_state.h"

#include <stdlib.h>
#include <string.h>

static struct msg **table;   /* table[mid] */
static int table_size;
static int next_free_hint = 1;

static int assign_mid(struct msg *m)
{
	for (int i = next_free_hint; i < table_size; i++)
		if (!table[i]) {
			table[i] = m;
			next_free_hint = i + 1;
			return i;
		}
	int old = table_size;
	int size = old ? old * 2 : 64;
	struct msg **t = realloc(table, (size_t)size * sizeof *t);
	if (!t)
		return PvmNoMem;
	memset(t + old, 0, (size_t)(size - old) * sizeof *t);
	table = t;
	table_size = size;
	int mid = old ? old : 1;
	table[mid] = m;
	next_free_hint = mid + 1;
	return mid;
}

struct msg *msg_new(int enc)
{
	struct msg *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	int mid = assign_mid(m);
	if (mid < 0) {
		free(m);
		return NULL;
	}
	m->mid = mid;
	m->enc = enc;
	m->src = lpvm.mytid;
	m->ctx = lpvm.ctx;
	return m;
}

void msg_free(struct msg *m)
{
	if (!m)
		return;
	if (m->mid > 0 && m->mid < table_size && table[m->mid] == m) {
		table[m->mid] = NULL;
		if (m->mid < next_free_hint)
			next_free_hint = m->mid;
	}
	msg_unlink(m);   /* e.g. a message pvm_probe() showed, freed by the caller */
	if (lpvm.sbuf == m)
		lpvm.sbuf = NULL;
	if (lpvm.rbuf == m)
		lpvm.rbuf = NULL;
	struct frag *f = m->head;
	while (f) {
		struct frag *n = f->next;
		frag_free(f);
		f = n;
	}
	free(m);
}

void msg_unlink(struct msg *m)
{
	if (!m->next)
		return;
	m->prev->next = m->next;
	m->next->prev = m->prev;
	m->prev = m->next = NULL;
}

struct msg *msg_lookup(int mid)
{
	if (mid <= 0 || mid >= table_size)
		return NULL;
	return table[mid];
}

size_t msg_length(const struct msg *m)
{
	size_t n = 0;
	for (const struct frag *f = m->head; f; f = f->next)
		n += f->len;
	return n;
}

void msg_append_frag(struct msg *m, struct frag *f)
{
	f->next = NULL;
	if (m->tail)
		m->tail->next = f;
	else
		m->head = f;
	m->tail = f;
}

void msg_rewind(struct msg *m)
{
	m->mode = MODE_UNPACK;
	m->rfrag = m->head;
	m->rpos = 0;
}

size_t msg_frag_data_size(void)
{
	/* PvmFragSize counts the fragment and message headers as stock does; keep a multiple
	 * of 8 so XDR items and doubles never need splitting at a fragment boundary. */
	size_t s = (size_t)lpvm.frag_size;
	s = s > 2 * MSGHDRLEN ? s - 16 - MSGHDRLEN : 8;
	return s & ~(size_t)7;
}
