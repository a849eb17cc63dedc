/* heat.c — 2-D heat diffusion (Jacobi relaxation) over PVM: the grid's rows split in blocks
 * among the tasks, each iteration trading one boundary row with each neighbour (halo
 * exchange); the master gathers the grid and checks it against a serial run, bit for bit. */
#include "app_team.h"

#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_HALO_DOWN = APP_TAG_USER, TAG_HALO_UP, TAG_ROWS };

/* One row of the next grid from three rows of this one: the same operations, in the same
 * order, in the parallel and the serial run. */
static void relax_row(const double *up, const double *mid, const double *down, double *out, long n)
{
	for (long j = 1; j <= n; j++)
		out[j] = 0.25 * ((up[j] + down[j]) + (mid[j - 1] + mid[j + 1]));
}

/* The initial value of grid row i (0 and n+1 are the fixed boundary rows): the top edge is
 * hot, the left edge warm, everything else cold. */
static void initial_row(double *row, long i, long n)
{
	for (long j = 0; j <= n + 1; j++)
		row[j] = i == 0 ? 100.0 : j == 0 ? 50.0 : 0.0;
}

/* Rows first..last of the grid (halo rows included) into a fresh array of width n+2. */
static double *grid_rows(long first, long last, long n)
{
	double *g = malloc((size_t)(last - first + 1) * (size_t)(n + 2) * sizeof *g);
	if (!g)
		app_fail("out of memory for %ld rows", last - first + 1);
	for (long i = first; i <= last; i++)
		initial_row(g + (i - first) * (n + 2), i, n);
	return g;
}

/* iters Jacobi sweeps over rows 1..rows of cur (rows 0 and rows+1 fixed or halos). With a
 * team, the halos are traded before each sweep. */
static double *relax(struct app_team *t, double *cur, double *next, long rows, long n, long iters)
{
	size_t w = (size_t)(n + 2);
	int up = t->me > 0 ? t->tids[t->me - 1] : 0;
	int down = t->me < t->ntasks - 1 ? t->tids[t->me + 1] : 0;
	for (long it = 0; it < iters; it++) {
		if (up)
			app_send(up, TAG_HALO_UP, cur + w, w * sizeof *cur);
		if (down)
			app_send(down, TAG_HALO_DOWN, cur + rows * w, w * sizeof *cur);
		if (up) {
			app_recv(t, up, TAG_HALO_DOWN);
			app_unpack(cur, w * sizeof *cur);
		}
		if (down) {
			app_recv(t, down, TAG_HALO_UP);
			app_unpack(cur + (rows + 1) * w, w * sizeof *cur);
		}
		for (long i = 1; i <= rows; i++)
			relax_row(cur + (i - 1) * w, cur + i * w, cur + (i + 1) * w, next + i * w, n);
		double *swap = cur;
		cur = next;
		next = swap;
	}
	return cur;
}

int main(int argc, char **argv)
{
	struct app_options o;
	app_parse(argc, argv, "2-D heat diffusion: --size N grid of N x N points (default 256), "
	          "--iters sweeps (default 200)", &o);
	long n = o.size ? o.size : 256, iters = o.iters ? o.iters : 200;
	o.size = n;
	o.iters = iters;
	struct app_team t;
	app_team_start(argc, argv, &o, &t);
	if (n < t.ntasks)
		app_fail("--size %ld is smaller than the team (%d tasks)", n, t.ntasks);
	long lo, hi;
	app_block(n, t.ntasks, t.me, &lo, &hi);
	long rows = hi - lo;
	size_t w = (size_t)(n + 2);
	double *cur = grid_rows(lo, hi + 1, n), *next = grid_rows(lo, hi + 1, n);

	app_barrier(&t);
	double *mine = relax(&t, cur, next, rows, n, iters);
	if (t.me != 0) {
		app_send(t.tids[0], TAG_ROWS, mine + w, (size_t)rows * w * sizeof *mine);
		free(cur);
		free(next);
		return app_finish(&t, "heat", &o, 0, 1, NULL);
	}
	double *grid = grid_rows(0, n + 1, n);
	memcpy(grid + w, mine + w, (size_t)rows * w * sizeof *grid);
	for (int r = 1; r < t.ntasks; r++) {
		long rlo, rhi;
		app_block(n, t.ntasks, r, &rlo, &rhi);
		app_recv(&t, t.tids[r], TAG_ROWS);
		app_unpack(grid + (rlo + 1) * w, (size_t)(rhi - rlo) * w * sizeof *grid);
	}
	double seconds = app_seconds();

	if (app_test_corrupt())
		grid[w + 1] += 1.0;
	struct app_team alone = {.me = 0, .ntasks = 1};
	double *s0 = grid_rows(0, n + 1, n), *s1 = grid_rows(0, n + 1, n);
	double *serial = relax(&alone, s0, s1, n, n, iters);
	int ok = memcmp(grid, serial, w * (size_t)(n + 2) * sizeof *grid) == 0;
	double sum = 0;
	for (size_t k = 0; k < w * (size_t)(n + 2); k++)
		sum += grid[k];
	char detail[64];
	snprintf(detail, sizeof detail, "sum=%.6f", sum);
	free(grid);
	free(s0);
	free(s1);
	free(cur);
	free(next);
	return app_finish(&t, "heat", &o, seconds, ok, detail);
}
