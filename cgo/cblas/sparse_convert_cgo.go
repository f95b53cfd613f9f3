//go:build cgo

package cblas

/*
#include "peakbench.h"
*/
import "C"

func (l *Library) hasSparseConversions() bool { return C.pb_mkl_sparse_convert_has(l.h) != 0 }

func (l *Library) jobSparseConversion(op SparseConversion, dt DType, rows, cols, nnz int, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_mkl_job_sparse_convert(l.h, C.pb_sparse_convert(op), C.pb_dtype(dt), C.int(rows), C.int(cols), C.size_t(nnz), o, out, e, el)
	}, opt)
}
