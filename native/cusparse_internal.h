/*
 * cusparse_internal.h — what cusparse.c (cuSPARSE: its handle and the
 * sparse products) and cusparse_convert.c (the format conversions) share.
 */
#ifndef PB_CUSPARSE_INTERNAL_H
#define PB_CUSPARSE_INTERNAL_H

#include "pb_gpu.h"
#include "vendor/cusparse.h"

struct pb_cusparse {
	pb_gpu *gpu;
	void *dl;
	char path[PATH_MAX];
	int major, minor, patch;
	cusparseHandle_t h;

	cusparseCreate_fn create;
	cusparseDestroy_fn destroy;
	cusparseSetStream_fn set_stream;
	cusparseGetProperty_fn get_property;
	cusparseGetErrorString_fn error_string;
	cusparseCreateCsr_fn create_csr;
	cusparseDestroySpMat_fn destroy_spmat;
	cusparseCreateDnVec_fn create_dnvec;
	cusparseDestroyDnVec_fn destroy_dnvec;
	cusparseCreateDnMat_fn create_dnmat;
	cusparseDestroyDnMat_fn destroy_dnmat;
	cusparseSpMV_bufferSize_fn spmv_buffer_size;
	cusparseSpMV_fn spmv;
	cusparseSpMM_bufferSize_fn spmm_buffer_size;
	cusparseSpMM_fn spmm;

	/* The format conversions: optional (NULL when the file lacks them, and
	 * the conversion is not offered), so a cuSPARSE that dropped one of
	 * the legacy calls still runs the products. */
	cusparseXcsr2coo_fn csr2coo;
	cusparseXcoo2csr_fn coo2csr;
	cusparseCsr2cscEx2_bufferSize_fn csr2csc_buffer_size;
	cusparseCsr2cscEx2_fn csr2csc;
};

/* pb_cusparse_fail formats "cusparse: LABEL: CALL failed: STATUS (s): TEXT" with its pb_status. */
pb_status pb_cusparse_fail(const pb_cusparse *lib, int s, const char *call, char *err,
                           size_t errlen);

/*
 * pb_cusparse_copy_in copies n int32 values from host src into argument
 * arg of every copy of j, and waits for the copies (they read src).
 */
pb_status pb_cusparse_copy_in(pb_gpu_job *j, int arg, const int32_t *src, size_t n, char *err,
                              size_t errlen);

#endif /* PB_CUSPARSE_INTERNAL_H */
