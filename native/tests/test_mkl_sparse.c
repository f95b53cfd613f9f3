/*
 * MKL's sparse BLAS jobs (native/mkl_sparse.c): y = A·x and Y = A·X on a
 * small matrix with an empty row, f32 and f64, plain and optimized, two
 * buffer copies; bad arguments; a library other than MKL refused.
 */
#include <stdint.h>

#include "peakbench.h"
#include "pb_test.h"

static char err[4096];
static char tried[16384];

/* A 4×5 matrix, row 2 empty:
 *   [1 0 2 0 0]
 *   [0 0 0 0 3]
 *   [0 0 0 0 0]
 *   [4 5 0 6 0]                                                       */
static const int32_t rowptr[] = {0, 2, 3, 3, 6};
static const int32_t colidx[] = {0, 2, 4, 0, 1, 3};
static const double vals[] = {1, 2, 3, 4, 5, 6};
enum { ROWS = 4, COLS = 5, NNZ = 6 };

static void product(int k, const double *x, double *y)
{
	for (int i = 0; i < ROWS; i++)
		for (int c = 0; c < k; c++) {
			double s = 0;
			for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
				s += vals[p] * x[colidx[p] * k + c];
			y[i * k + c] = s;
		}
}

static void test_products(pb_cblas *lib)
{
	CHECK(pb_mkl_sparse_has(lib), "mkl lacks the sparse BLAS");
	double x[COLS * 3], want[ROWS * 3], out[ROWS * 3];
	for (int i = 0; i < COLS * 3; i++)
		x[i] = i % 7 - 3; /* small integers: every sum exact */
	for (int d = 0; d < 2; d++)
		for (int k = 0; k <= 3; k += 3)
			for (int opt = 0; opt < 2; opt++) {
				pb_dtype dt = d ? PB_F64 : PB_F32;
				int cols = k > 0 ? k : 1;
				pb_job_opts o = {2, 1};
				pb_job *j = NULL;
				CHECK(pb_mkl_job_sparse(lib, dt, ROWS, COLS, NNZ, k, rowptr, colidx, opt, &o, &j,
				                        err, sizeof err) == PB_OK,
				      "sparse job: %s", err);
				if (j == NULL)
					continue;
				pb_job_set_input(j, 0, vals, NNZ, NULL, 0);
				pb_job_set_input(j, 1, x, (size_t)COLS * cols, NULL, 0);
				int64_t ns;
				CHECK(pb_job_run(j, 3, &ns, err, sizeof err) == PB_OK, "run: %s", err);
				CHECK(pb_job_output(j, out, (size_t)ROWS * cols, err, sizeof err) == PB_OK,
				      "output: %s", err);
				product(cols, x, want);
				for (int i = 0; i < ROWS * cols; i++)
					CHECK(out[i] == want[i], "dt %d k=%d opt %d: y[%d] = %g, want %g", (int)dt, k,
					      opt, i, out[i], want[i]);
				pb_job_free(j);
			}
	pb_job *j = NULL;
	CHECK(pb_mkl_job_sparse(lib, PB_F64, ROWS, COLS, NNZ + 1, 0, rowptr, colidx, 0, NULL, &j, err,
	                        sizeof err) == PB_ERR_INVALID &&
	          j == NULL,
	      "nnz disagreeing with the row pointers");
	CHECK(pb_mkl_job_sparse(lib, PB_F64, 0, COLS, NNZ, 0, rowptr, colidx, 0, NULL, &j, err,
	                        sizeof err) == PB_ERR_INVALID,
	      "no rows");
}

int main(void)
{
	pb_cblas *lib = NULL;
	if (pb_cblas_open("mkl", NULL, &lib, tried, sizeof tried, err, sizeof err) != PB_OK) {
		CHECK(!required("mkl"), "PEAKBENCH_REQUIRE_LIBS names mkl: %s", err);
		printf("SKIP mkl: %s\n", err);
	} else {
		test_products(lib);
		pb_cblas_close(lib, err, sizeof err);
	}
	if (pb_cblas_open("openblas", NULL, &lib, tried, sizeof tried, err, sizeof err) == PB_OK) {
		pb_job *j = NULL;
		CHECK(!pb_mkl_sparse_has(lib), "openblas has MKL's sparse BLAS?");
		CHECK(pb_mkl_job_sparse(lib, PB_F64, ROWS, COLS, NNZ, 0, rowptr, colidx, 0, NULL, &j, err,
		                        sizeof err) == PB_ERR_UNSUPPORTED,
		      "openblas sparse job: %s", err);
		pb_cblas_close(lib, err, sizeof err);
	}
	if (pb_failures > 0) {
		fprintf(stderr, "%d failure(s)\n", pb_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
