//go:build cgo

package cblas

/*
#include "peakbench.h"
*/
import "C"

import "unsafe"

func (l *Library) hasSparse() bool { return C.pb_mkl_sparse_has(l.h) != 0 }

func (l *Library) jobSparse(dt DType, rows, cols, k int, rowPtr, colIdx []int32, optimized bool, opt JobOptions) (jobPtr, error) {
	opt32 := C.int(0)
	if optimized {
		opt32 = 1
	}
	// The C side copies the indices before it returns.
	rp, ci := (*C.int32_t)(unsafe.Pointer(&rowPtr[0])), (*C.int32_t)(unsafe.Pointer(&colIdx[0]))
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_mkl_job_sparse(l.h, C.pb_dtype(dt), C.int(rows), C.int(cols), C.size_t(len(colIdx)), C.int(k), rp, ci, opt32, o, out, e, el)
	}, opt)
}
