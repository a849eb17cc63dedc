/* matmul.c — dense matrix multiply C = A B over PVM on a grid of tasks (SUMMA): task (i, j)
 * holds block (i, j) of A, B and C; for each panel of the inner dimension the owner of A's
 * panel multicasts it along its grid row and the owner of B's panel down its grid column.
 * The master gathers C and checks it against a serial product (small integer entries: every
 * sum is exact). */
#include "app_team.h"

#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_A = APP_TAG_USER, TAG_B, TAG_C };

static double a_entry(long i, long k) { return (double)((i * 7 + k * 3) % 13) - 6; }
static double b_entry(long k, long j) { return (double)((k * 5 + j * 11) % 9) - 4; }

static double *matrix(long rows, long cols)
{
	double *m = calloc((size_t)(rows ? rows : 1) * (size_t)(cols ? cols : 1), sizeof *m);
	if (!m)
		app_fail("out of memory for a %ld x %ld matrix", rows, cols);
	return m;
}

/* c[rows x cols] += a[rows x depth] b[depth x cols], row by row (i, k, j). */
static void multiply_add(double *c, const double *a, const double *b, long rows, long depth, long cols)
{
	for (long i = 0; i < rows; i++)
		for (long k = 0; k < depth; k++) {
			double aik = a[i * depth + k];
			for (long j = 0; j < cols; j++)
				c[i * cols + j] += aik * b[k * cols + j];
		}
}

struct grid { int rows, cols, i, j; };

/* rows x cols tasks, rows the largest divisor of the team's size not above its root. */
static struct grid grid_of(int ntasks, int me)
{
	struct grid g = {1, ntasks, 0, 0};
	for (int d = 1; d * d <= ntasks; d++)
		if (ntasks % d == 0)
			g.rows = d;
	g.cols = ntasks / g.rows;
	g.i = me / g.cols;
	g.j = me % g.cols;
	return g;
}

/* The owner (block index) of inner index k when n is split in p blocks. */
static int owner(long n, int p, long k)
{
	for (int b = 0; b < p; b++) {
		long lo, hi;
		app_block(n, p, b, &lo, &hi);
		if (k < hi)
			return b;
	}
	return p - 1;
}

/* Copies columns [k0, k1) of the rows x width block a (its first column is global col0). */
static void cut_columns(double *out, const double *a, long rows, long width, long col0, long k0, long k1)
{
	for (long i = 0; i < rows; i++)
		memcpy(out + i * (k1 - k0), a + i * width + (k0 - col0), (size_t)(k1 - k0) * sizeof *out);
}

int main(int argc, char **argv)
{
	struct app_options o;
	app_parse(argc, argv, "matrix multiply: --size N for N x N matrices (default 256), "
	          "--iters unused", &o);
	long n = o.size ? o.size : 256;
	o.size = n;
	o.iters = 1;
	struct app_team t;
	app_team_start(argc, argv, &o, &t);
	struct grid g = grid_of(t.ntasks, t.me);
	if (n < g.cols)
		app_fail("--size %ld is smaller than the task grid (%d x %d)", n, g.rows, g.cols);
	long r0, r1, c0, c1, kr0, kr1;   /* my rows of A and C, my columns of B and C */
	app_block(n, g.rows, g.i, &r0, &r1);
	app_block(n, g.cols, g.j, &c0, &c1);
	long ak0, ak1;                   /* my columns of A: the inner dimension split by columns */
	app_block(n, g.cols, g.j, &ak0, &ak1);
	app_block(n, g.rows, g.i, &kr0, &kr1);   /* my rows of B: split by grid rows */
	long rows = r1 - r0, cols = c1 - c0;
	double *a = matrix(rows, ak1 - ak0), *b = matrix(kr1 - kr0, cols), *c = matrix(rows, cols);
	for (long i = 0; i < rows; i++)
		for (long k = ak0; k < ak1; k++)
			a[i * (ak1 - ak0) + (k - ak0)] = a_entry(r0 + i, k);
	for (long k = kr0; k < kr1; k++)
		for (long j = 0; j < cols; j++)
			b[(k - kr0) * cols + j] = b_entry(k, c0 + j);
	double *apanel = matrix(rows, n), *bpanel = matrix(n, cols);
	int row_peers[APP_MAX_TASKS], col_peers[APP_MAX_TASKS], nrow = 0, ncol = 0;
	for (int x = 0; x < g.cols; x++)
		if (x != g.j)
			row_peers[nrow++] = t.tids[g.i * g.cols + x];
	for (int y = 0; y < g.rows; y++)
		if (y != g.i)
			col_peers[ncol++] = t.tids[y * g.cols + g.j];

	app_barrier(&t);
	/* panels: the inner dimension cut wherever either split has a block edge */
	for (long k0 = 0; k0 < n;) {
		int ao = owner(n, g.cols, k0), bo = owner(n, g.rows, k0);
		long alo, ahi, blo, bhi;
		app_block(n, g.cols, ao, &alo, &ahi);
		app_block(n, g.rows, bo, &blo, &bhi);
		long k1 = ahi < bhi ? ahi : bhi, w = k1 - k0;
		if (ao == g.j) {
			cut_columns(apanel, a, rows, ak1 - ak0, ak0, k0, k1);
			app_mcast(row_peers, nrow, TAG_A, apanel, (size_t)(rows * w) * sizeof *apanel);
		}
		if (bo == g.i) {
			memcpy(bpanel, b + (k0 - kr0) * cols, (size_t)(w * cols) * sizeof *bpanel);
			app_mcast(col_peers, ncol, TAG_B, bpanel, (size_t)(w * cols) * sizeof *bpanel);
		}
		if (ao != g.j) {
			app_recv(&t, t.tids[g.i * g.cols + ao], TAG_A);
			app_unpack(apanel, (size_t)(rows * w) * sizeof *apanel);
		}
		if (bo != g.i) {
			app_recv(&t, t.tids[bo * g.cols + g.j], TAG_B);
			app_unpack(bpanel, (size_t)(w * cols) * sizeof *bpanel);
		}
		multiply_add(c, apanel, bpanel, rows, w, cols);
		k0 = k1;
	}
	free(a);
	free(b);
	free(apanel);
	free(bpanel);
	if (t.me != 0) {
		app_send(t.tids[0], TAG_C, c, (size_t)(rows * cols) * sizeof *c);
		free(c);
		return app_finish(&t, "matmul", &o, 0, 1, NULL);
	}
	double *full = matrix(n, n), *block = matrix(n, n);
	for (int r = 0; r < t.ntasks; r++) {
		struct grid rg = grid_of(t.ntasks, r);
		long rr0, rr1, rc0, rc1;
		app_block(n, g.rows, rg.i, &rr0, &rr1);
		app_block(n, g.cols, rg.j, &rc0, &rc1);
		long bc = rc1 - rc0;
		if (r == 0) {
			memcpy(block, c, (size_t)((rr1 - rr0) * bc) * sizeof *block);
		} else {
			app_recv(&t, t.tids[r], TAG_C);
			app_unpack(block, (size_t)((rr1 - rr0) * bc) * sizeof *block);
		}
		for (long i = rr0; i < rr1; i++)
			memcpy(full + i * n + rc0, block + (i - rr0) * bc, (size_t)bc * sizeof *full);
	}
	double seconds = app_seconds();

	if (app_test_corrupt())
		full[0] += 1;
	double *sa = matrix(n, n), *sb = matrix(n, n), *sc = matrix(n, n);
	for (long i = 0; i < n; i++)
		for (long k = 0; k < n; k++) {
			sa[i * n + k] = a_entry(i, k);
			sb[i * n + k] = b_entry(i, k);
		}
	multiply_add(sc, sa, sb, n, n, n);
	int ok = memcmp(full, sc, (size_t)(n * n) * sizeof *sc) == 0;
	char detail[64];
	snprintf(detail, sizeof detail, "grid=%dx%d c00=%.0f", g.rows, g.cols, full[0]);
	free(sa);
	free(sb);
	free(sc);
	free(full);
	free(block);
	free(c);
	return app_finish(&t, "matmul", &o, seconds, ok, detail);
}
