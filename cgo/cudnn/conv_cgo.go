//go:build cgo

package cudnn

/*
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

type jobPtr = unsafe.Pointer

func (l *Library) convJob(dt gpurt.DType, g Layer, opt gpurt.JobOptions) (jobPtr, error) {
	var cg C.pb_layer
	cg.n, cg.c, cg.k = C.int64_t(g.N), C.int64_t(g.C), C.int64_t(g.K)
	for i := range 3 {
		cg.in[i], cg.window[i], cg.stride[i] = C.int64_t(g.In[i]), C.int64_t(g.Window[i]), C.int64_t(g.Stride[i])
		cg.pad[i], cg.dil[i], cg.out[i] = C.int64_t(g.Pad[i]), C.int64_t(g.Dil[i]), C.int64_t(g.Out[i])
	}
	cg.rank, cg.groups = C.int(g.Rank), C.int(g.Groups)
	if g.NHWC {
		cg.nhwc = 1
	}
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := opts(opt)
	defer C.free(unsafe.Pointer(o))
	var j *C.pb_gpu_job
	if st := C.pb_cudnn_conv_job(l.h, C.pb_gpu_dtype(dt), &cg, o, &j, errb, errLen); st != C.PB_OK {
		return nil, cerr(st, errb)
	}
	return unsafe.Pointer(j), nil
}
