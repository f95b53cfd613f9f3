//go:build cgo

package onednn

/*
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// gemmImplC is the implementation oneDNN picks for a matmul of t, "" when
// it has none.
func (l *Library) gemmImplC(t GEMMType) string {
	const n = 256
	impl := cbuf(n)
	defer C.free(unsafe.Pointer(impl))
	if C.pb_dnnl_gemm_has(l.h, C.pb_dnnl_gemm_type(t), impl, n) == 0 {
		return ""
	}
	if s := C.GoString(impl); s != "" {
		return s
	}
	return "unknown"
}

func (l *Library) gemmJob(t GEMMType, transA, transB bool, m, n, k int, opt JobOptions) (unsafe.Pointer, error) {
	trans := func(b bool) C.pb_trans {
		if b {
			return C.PB_TRANS
		}
		return C.PB_NO_TRANS
	}
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := C.pb_job_opts{copies: C.int(max(opt.Copies, 1)), threads: C.int(opt.Threads)}
	var j *C.pb_job
	st := C.pb_dnnl_gemm_job(l.h, C.pb_dnnl_gemm_type(t), trans(transA), trans(transB),
		C.int64_t(m), C.int64_t(n), C.int64_t(k), &o, &j, errb, errLen)
	if st != C.PB_OK {
		return nil, native.NewError(int(st), "", C.GoString(errb))
	}
	return unsafe.Pointer(j), nil
}
