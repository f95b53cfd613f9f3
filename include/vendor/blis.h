/*
 * Our own declarations of the BLIS calls we make (blis.h of BLIS 0.9).
 * dim_t and arch_t follow BLIS's integer size, 64 bits on 64-bit targets
 * (BLIS_INT_TYPE_SIZE chosen automatically); the CBLAS layer uses the
 * 32-bit BLAS int (BLIS_BLAS_INT_TYPE_SIZE 32) in Debian's build.
 */
#ifndef PB_VENDOR_BLIS_H
#define PB_VENDOR_BLIS_H

#include <stdint.h>

typedef int64_t bli_dim_t;
typedef int bli_arch_t; /* an enum */

typedef void (*bli_thread_set_num_threads_fn)(bli_dim_t n);
typedef bli_dim_t (*bli_thread_get_num_threads_fn)(void);
typedef char *(*bli_info_get_version_str_fn)(void);
/* bli_init sets BLIS up; the other calls do it on first use, but
 * bli_arch_query_id does not, and with BLIS_ARCH_TYPE set it aborts
 * ("Accessed uninitialized context in gks") when called first. */
typedef void (*bli_init_fn)(void);
typedef bli_arch_t (*bli_arch_query_id_fn)(void);
typedef char *(*bli_arch_string_fn)(bli_arch_t id);
/* gint_t: 1 when BLIS was configured with that threading model */
typedef bli_dim_t (*bli_info_get_enable_flag_fn)(void);

#endif
