/*
 * MKL's discrete Fourier transforms (DFTI), through the MKL a CBLAS handle
 * opened as "mkl" loaded (native/mkl_dft.c): no second copy of MKL is
 * opened. Our own prototypes of the few DFTI calls used are in
 * native/mkl_dft.c.
 */
#ifndef PEAKBENCH_MKL_DFT_H
#define PEAKBENCH_MKL_DFT_H

#include "peakbench.h"

/* The transforms: kind of pb_mkl_job_dft. */
typedef enum pb_dft_kind {
	PB_DFT_FORWARD = 0,  /* complex → complex, e^(−2πi·jk/n) */
	PB_DFT_BACKWARD = 1, /* complex → complex, e^(+2πi·jk/n), unnormalized */
	PB_DFT_R2C = 2       /* real → the n/2+1 complex outputs of the last dimension */
} pb_dft_kind;

/* pb_mkl_dft_has reports (1/0) whether lib is MKL and exports the DFTI calls. */
int pb_mkl_dft_has(const pb_cblas *lib);

/*
 * pb_mkl_job_dft prepares batch transforms of rank 1 (dims: n) or 2 (dims:
 * rows, columns) in dt (f32: complex64, f64: complex128), contiguous one
 * after another, out of place: a DFTI descriptor committed for
 * opts->threads threads (DFTI_THREAD_LIMIT; the job applies the count to
 * MKL before each run as every MKL job does). Arguments: 0 the input
 * (interleaved complex, or reals for R2C), 1 the output (interleaved
 * complex; R2C: each row's n/2+1 outputs). *commit_ns receives
 * DftiCommitDescriptor's time. A transform DFTI refuses (DFTI_UNIMPLEMENTED,
 * an inconsistent configuration) is PB_ERR_UNSUPPORTED with its message;
 * a library other than MKL, or an MKL without DFTI, too.
 */
pb_status pb_mkl_job_dft(pb_cblas *lib, pb_dtype dt, pb_dft_kind kind, int rank, const int *dims,
                         int batch, const pb_job_opts *opts, pb_job **out, double *commit_ns,
                         char *err, size_t errlen);

#endif
