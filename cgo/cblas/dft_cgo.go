//go:build cgo

package cblas

/*
#include <stdlib.h>
#include "peakbench_mkl_dft.h"
*/
import "C"

import "unsafe"

func (l *Library) dftHas() bool { return C.pb_mkl_dft_has(l.h) != 0 }

// jobDFT makes the C job; ns is the descriptor's commit time.
func (l *Library) jobDFT(dt DType, s DFTSpec, opt JobOptions) (jobPtr, float64, error) {
	dims := (*[2]C.int)(C.malloc(C.size_t(unsafe.Sizeof([2]C.int{}))))
	defer C.free(unsafe.Pointer(dims))
	for i, d := range s.Dims {
		dims[i] = C.int(d)
	}
	ns := (*C.double)(C.malloc(C.size_t(unsafe.Sizeof(C.double(0)))))
	defer C.free(unsafe.Pointer(ns))
	*ns = 0
	p, err := l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_mkl_job_dft(l.h, C.pb_dtype(dt), C.pb_dft_kind(s.Kind), C.int(len(s.Dims)), &dims[0],
			C.int(s.Batch), o, out, ns, e, el)
	}, opt)
	return p, float64(*ns), err
}
