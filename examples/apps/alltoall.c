/* alltoall.c — the fabric under many tasks: every task sends --iters rounds of one
 * --size-byte message to every other task and checks every message it gets (sender, round,
 * content). With N tasks on one host over AN2 that is N(N-1)/2 VCs. Prints the messages per
 * second; exits non-zero if a message is missing, repeated, out of its sender's order or
 * damaged (counted as bad=, out of order as out_of_order=). */
#include "app_team.h"

#include <pvm3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_DATA = APP_TAG_USER, TAG_COUNT };

/* Byte k of the message from rank r in round i. */
static unsigned char pattern(int r, long i, size_t k)
{
	return (unsigned char)(r * 31 + i * 7 + (long)k * 13 + (long)(k >> 8));
}

int main(int argc, char **argv)
{
	struct app_options o;
	app_parse(argc, argv, "all-to-all: --size message bytes (default 1024), --iters rounds "
	          "(default 20)", &o);
	size_t size = (size_t)(o.size ? o.size : 1024);
	long rounds = o.iters ? o.iters : 20;
	o.size = (long)size;
	o.iters = rounds;
	struct app_team t;
	app_team_start(argc, argv, &o, &t);
	int p = t.ntasks;
	size_t bytes = size < 8 ? 8 : size;   /* (room for the header: rank, round) */
	unsigned char *out = malloc(bytes), *in = malloc(bytes);
	if (!out || !in)
		app_fail("out of memory");
	/* per sender: messages taken, the latest round seen; damaged, out of order */
	long taken[APP_MAX_TASKS] = {0}, latest[APP_MAX_TASKS], bad = 0, disorder = 0;
	for (int r = 0; r < APP_MAX_TASKS; r++)
		latest[r] = -1;

	app_barrier(&t);
	for (long i = 0; i < rounds; i++) {
		for (size_t k = 0; k < bytes; k++)
			out[k] = pattern(t.me, i, k);
		int32_t head[2] = {t.me, (int32_t)i};
		memcpy(out, head, sizeof head);
		for (int k = 1; k < p; k++)
			app_send(t.tids[(t.me + k) % p], TAG_DATA, out, bytes);
		for (int k = 1; k < p; k++) {
			app_recv(&t, -1, TAG_DATA);
			app_unpack(in, bytes);
			if (t.me == 0 && i == 0 && k == 1 && app_test_corrupt())
				in[bytes - 1] ^= 1;
			memcpy(head, in, sizeof head);
			int ok = head[0] >= 0 && head[0] < p && head[0] != t.me && head[1] >= 0 &&
			         head[1] < rounds;
			for (size_t b = sizeof head; ok && b < bytes; b++)
				ok = in[b] == pattern(head[0], head[1], b);
			if (!ok) {
				bad++;
				continue;
			}
			if (head[1] <= latest[head[0]])
				disorder++;   /* PVM keeps each sender's order */
			else
				latest[head[0]] = head[1];
			taken[head[0]]++;
		}
	}
	for (int r = 0; r < p; r++)   /* each sender's every round, once */
		if (r != t.me && taken[r] != rounds)
			bad++;
	/* everyone's counts to the master */
	long counts[2] = {bad, disorder};
	if (t.me != 0) {
		app_send(t.tids[0], TAG_COUNT, counts, sizeof counts);
	} else {
		for (int r = 1; r < p; r++) {
			long theirs[2];
			app_recv(&t, t.tids[r], TAG_COUNT);
			app_unpack(theirs, sizeof theirs);
			counts[0] += theirs[0];
			counts[1] += theirs[1];
		}
	}
	double seconds = t.me == 0 ? app_seconds() : 0;
	char detail[96];
	long messages = (long)p * (p - 1) * rounds;
	snprintf(detail, sizeof detail, "messages=%ld msgs_per_s=%.0f bad=%ld out_of_order=%ld",
	         messages, seconds > 0 ? messages / seconds : 0.0, counts[0], counts[1]);
	free(out);
	free(in);
	return app_finish(&t, "alltoall", &o, seconds, counts[0] == 0 && counts[1] == 0, detail);
}
