/* Our own declarations of the two OpenMP runtime calls we make. */
#ifndef PB_VENDOR_OMP_H
#define PB_VENDOR_OMP_H

typedef void (*omp_set_num_threads_fn)(int n);
typedef int (*omp_get_max_threads_fn)(void);

#endif
