/* mandel.c — master and workers over PVM: the Mandelbrot set, one image row per piece of
 * work (many small tasks). The master hands out rows, two outstanding per worker, computes
 * rows itself between looking for results, and checks the image against a serial run. It
 * prints how many rows the workers computed (worker_rows=); the master computed the rest. */
#include "app_team.h"

#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_WORK = APP_TAG_USER, TAG_RESULT };
enum { IN_FLIGHT = 2 };   /* rows outstanding per worker */

/* Iterations before point (x, y) of a size x size view of [-2, 1] x [-1.5, 1.5] escapes. */
static int escape(long x, long y, long size, int limit)
{
	double cr = -2.0 + 3.0 * (double)x / (double)size, ci = -1.5 + 3.0 * (double)y / (double)size;
	double zr = 0, zi = 0;
	int it = 0;
	while (it < limit && zr * zr + zi * zi <= 4.0) {
		double t = zr * zr - zi * zi + cr;
		zi = 2.0 * zr * zi + ci;
		zr = t;
		it++;
	}
	return it;
}

static void compute_row(int *out, long y, long size, int limit)
{
	for (long x = 0; x < size; x++)
		out[x] = escape(x, y, size, limit);
}

static void worker(struct app_team *t, long size, int limit)
{
	int *row = malloc((size_t)size * sizeof *row);
	if (!row)
		app_fail("out of memory");
	for (;;) {
		int y;
		app_recv(t, t->tids[0], TAG_WORK);
		pvm_upkint(&y, 1, 1);
		if (y < 0)
			break;
		compute_row(row, y, size, limit);
		pvm_initsend(PvmDataRaw);
		pvm_pkint(&y, 1, 1);
		pvm_pkint(row, (int)size, 1);
		if (pvm_send(t->tids[0], TAG_RESULT) < 0)
			app_fail("send failed");
	}
	free(row);
}

static void hand_out(int tid, int y)
{
	pvm_initsend(PvmDataRaw);
	pvm_pkint(&y, 1, 1);
	if (pvm_send(tid, TAG_WORK) < 0)
		app_fail("send to t%x failed", tid);
}

/* Takes one result row into the image; returns the worker's tid. */
static int take_result(int *image, long size)
{
	int bytes, tag, tid, y;
	pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &tid);
	if (pvm_upkint(&y, 1, 1) < 0 || y < 0 || y >= size ||
	    pvm_upkint(image + (size_t)y * (size_t)size, (int)size, 1) < 0)
		app_fail("bad result from t%x", tid);
	return tid;
}

int main(int argc, char **argv)
{
	struct app_options o;
	app_parse(argc, argv, "Mandelbrot, master and workers: --size N for an N x N image, one "
	          "row per piece of work (default 256), --iters limit per point (default 256)", &o);
	long size = o.size ? o.size : 256;
	int limit = (int)(o.iters ? o.iters : 256);
	o.size = size;
	o.iters = limit;
	struct app_team t;
	app_team_start(argc, argv, &o, &t);
	app_barrier(&t);
	if (t.me != 0) {
		worker(&t, size, limit);
		return app_finish(&t, "mandel", &o, 0, 1, NULL);
	}
	int *image = malloc((size_t)(size * size) * sizeof *image);
	if (!image)
		app_fail("out of memory");
	long next = 0, done = 0, worker_rows = 0;   /* rows handed out, rows in, rows from workers */
	for (int k = 0; k < IN_FLIGHT; k++)
		for (int r = 1; r < t.ntasks && next < size; r++)
			hand_out(t.tids[r], (int)next++);
	while (done < size) {
		int buf;
		/* results first, each answered with the next row; else a row of our own */
		while ((buf = pvm_nrecv(-1, TAG_RESULT)) > 0) {
			int tid = take_result(image, size);
			done++;
			worker_rows++;
			if (next < size)
				hand_out(tid, (int)next++);
		}
		if (buf < 0)
			app_fail("receive failed: %d", buf);
		if (next < size) {
			compute_row(image + next * size, next, size, limit);
			next++;
			done++;
		} else if (done < size) {
			app_recv(&t, -1, TAG_RESULT);
			take_result(image, size);
			done++;
			worker_rows++;
		}
	}
	for (int r = 1; r < t.ntasks; r++)
		hand_out(t.tids[r], -1);
	double seconds = app_seconds();

	if (app_test_corrupt())
		image[0] += 1;
	int *serial = malloc((size_t)(size * size) * sizeof *serial);
	if (!serial)
		app_fail("out of memory");
	long total = 0;
	for (long y = 0; y < size; y++)
		compute_row(serial + y * size, y, size, limit);
	for (long k = 0; k < size * size; k++)
		total += serial[k];
	int ok = memcmp(image, serial, (size_t)(size * size) * sizeof *serial) == 0;
	char detail[64];
	snprintf(detail, sizeof detail, "iterations=%ld worker_rows=%ld", total, worker_rows);
	free(image);
	free(serial);
	return app_finish(&t, "mandel", &o, seconds, ok, detail);
}
