/* Our own declarations of OpenBLAS's extras (cblas.h of OpenBLAS 0.3). */
#ifndef PB_VENDOR_OPENBLAS_H
#define PB_VENDOR_OPENBLAS_H

typedef void (*openblas_set_num_threads_fn)(int n);
typedef int (*openblas_get_num_threads_fn)(void);
/* "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64" */
typedef char *(*openblas_get_config_fn)(void);
/* the kernel set chosen at run time, e.g. "Zen", "SkylakeX", "Haswell" */
typedef char *(*openblas_get_corename_fn)(void);
/* 0 sequential, 1 pthreads, 2 OpenMP */
typedef int (*openblas_get_parallel_fn)(void);

/*
 * cblas_sbgemm (OpenBLAS 0.3.10+, built with BUILD_BFLOAT16): bf16 A and B,
 * f32 C, the shape of cblas_sgemm; bfloat16 is unsigned 16-bit storage.
 * Its type is mkl.h's cblas_gemm_bf16bf16f32_fn: the same arguments.
 */

#define OPENBLAS_SEQUENTIAL 0
#define OPENBLAS_THREAD 1
#define OPENBLAS_OPENMP 2

#endif
