/* samplesort.c — parallel sample sort over PVM: each task sorts its share of the keys, the
 * master picks splitters from everyone's samples, every task sends each other task the keys
 * of its range (all-to-all, large messages) and sorts what it got; the master gathers the
 * ranges and checks the whole against a serial sort. */
#include "app_team.h"

#include <pvm3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_SAMPLES = APP_TAG_USER, TAG_SPLITTERS, TAG_BUCKET, TAG_SORTED };

/* Key number i of the whole input (splitmix64's mixer: the same keys for any team). */
static uint32_t key(uint64_t i)
{
	uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31));
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t *keys_alloc(size_t n)
{
	uint32_t *k = malloc((n ? n : 1) * sizeof *k);
	if (!k)
		app_fail("out of memory for %zu keys", n);
	return k;
}

/* The first index in sorted k[0..n) whose key exceeds v. */
static size_t upper_bound(const uint32_t *k, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The byte length of the current receive buffer, in keys. */
static size_t received_keys(void)
{
	int bytes, tag, tid;
	if (pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &tid) < 0 || bytes % 4)
		app_fail("bad key message");
	return (size_t)bytes / 4;
}

/* Splitters: the master gathers ntasks-1 samples per task and sends back every
 * (ntasks-1)-th of them, sorted. */
static void splitters(struct app_team *t, const uint32_t *mine, size_t n, uint32_t *split)
{
	int p = t->ntasks;
	uint32_t samples[APP_MAX_TASKS];
	for (int s = 0; s < p - 1; s++)
		samples[s] = n ? mine[(size_t)(s + 1) * n / (size_t)p] : 0;
	if (t->me != 0) {
		app_send(t->tids[0], TAG_SAMPLES, samples, (size_t)(p - 1) * sizeof *samples);
		app_recv(t, t->tids[0], TAG_SPLITTERS);
		app_unpack(split, (size_t)(p - 1) * sizeof *split);
		return;
	}
	uint32_t *all = keys_alloc((size_t)p * (size_t)(p - 1));
	memcpy(all, samples, (size_t)(p - 1) * sizeof *all);
	for (int r = 1; r < p; r++) {
		app_recv(t, t->tids[r], TAG_SAMPLES);
		app_unpack(all + (size_t)r * (size_t)(p - 1), (size_t)(p - 1) * sizeof *all);
	}
	qsort(all, (size_t)p * (size_t)(p - 1), sizeof *all, by_value);
	for (int s = 0; s < p - 1; s++)
		split[s] = all[(size_t)(s + 1) * (size_t)(p - 1)];
	free(all);
	app_mcast(t->tids + 1, p - 1, TAG_SPLITTERS, split, (size_t)(p - 1) * sizeof *split);
}

int main(int argc, char **argv)
{
	struct app_options o;
	app_parse(argc, argv, "sample sort: --size N keys in all (default 1048576), --iters unused",
	          &o);
	long total = o.size ? o.size : 1L << 20;
	o.size = total;
	o.iters = 1;
	struct app_team t;
	app_team_start(argc, argv, &o, &t);
	int p = t.ntasks;
	long lo, hi;
	app_block(total, p, t.me, &lo, &hi);
	size_t n = (size_t)(hi - lo);
	uint32_t *mine = keys_alloc(n);
	for (size_t i = 0; i < n; i++)
		mine[i] = key((uint64_t)lo + i);

	app_barrier(&t);
	qsort(mine, n, sizeof *mine, by_value);
	uint32_t split[APP_MAX_TASKS];
	if (p > 1)
		splitters(&t, mine, n, split);
	/* bucket r: keys above splitter r-1 and up to splitter r */
	size_t edge[APP_MAX_TASKS + 1];
	edge[0] = 0;
	for (int r = 0; r < p - 1; r++)
		edge[r + 1] = upper_bound(mine, n, split[r]);
	edge[p] = n;
	for (int k = 1; k < p; k++) {   /* everyone starts with a different partner */
		int r = (t.me + k) % p;
		app_send(t.tids[r], TAG_BUCKET, mine + edge[r], (edge[r + 1] - edge[r]) * sizeof *mine);
	}
	size_t have = edge[t.me + 1] - edge[t.me], room = have + 1;
	uint32_t *range = keys_alloc(room);
	memcpy(range, mine + edge[t.me], have * sizeof *range);
	for (int k = 1; k < p; k++) {
		int r = (t.me - k + p) % p;
		app_recv(&t, t.tids[r], TAG_BUCKET);
		size_t got = received_keys();
		if (have + got > room) {
			room = 2 * (have + got);
			range = realloc(range, room * sizeof *range);
			if (!range)
				app_fail("out of memory for %zu keys", room);
		}
		app_unpack(range + have, got * sizeof *range);
		have += got;
	}
	qsort(range, have, sizeof *range, by_value);
	free(mine);
	if (t.me != 0) {
		app_send(t.tids[0], TAG_SORTED, range, have * sizeof *range);
		free(range);
		return app_finish(&t, "samplesort", &o, 0, 1, NULL);
	}
	uint32_t *sorted = keys_alloc((size_t)total);
	memcpy(sorted, range, have * sizeof *sorted);
	size_t at = have;
	int ok = 1;
	for (int r = 1; r < p; r++) {
		app_recv(&t, t.tids[r], TAG_SORTED);
		size_t got = received_keys();
		if (at + got > (size_t)total) {
			ok = 0;
			break;
		}
		app_unpack(sorted + at, got * sizeof *sorted);
		at += got;
	}
	double seconds = app_seconds();

	if (app_test_corrupt())
		sorted[0] ^= 1;
	uint32_t *serial = keys_alloc((size_t)total);
	for (long i = 0; i < total; i++)
		serial[i] = key((uint64_t)i);
	qsort(serial, (size_t)total, sizeof *serial, by_value);
	ok = ok && at == (size_t)total && memcmp(sorted, serial, (size_t)total * sizeof *serial) == 0;
	char detail[64];
	snprintf(detail, sizeof detail, "master_keys=%zu", have);
	free(serial);
	free(sorted);
	free(range);
	return app_finish(&t, "samplesort", &o, seconds, ok, detail);
}
