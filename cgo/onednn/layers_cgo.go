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

func (l *Library) layerJob(op LayerOp, dt DType, g Layer, opt LayerOptions) (unsafe.Pointer, error) {
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
	o := C.pb_job_opts{copies: C.int(max(opt.Copies, 1)), threads: C.int(opt.Threads)}
	var j *C.pb_job
	st := C.pb_dnnl_layer_job(l.h, C.pb_dnnl_layer_op(op), C.pb_dtype(dt), &cg, C.pb_dnnl_conv_alg(opt.Algorithm),
		C.float(opt.Epsilon), &o, &j, errb, errLen)
	if st != C.PB_OK {
		return nil, native.NewError(int(st), "", C.GoString(errb))
	}
	return unsafe.Pointer(j), nil
}
