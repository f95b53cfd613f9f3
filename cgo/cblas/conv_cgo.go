//go:build cgo

package cblas

/*
#include "peakbench.h"
*/
import "C"

// cLayer converts a geometry to pb_layer.
func cLayer(g Layer) C.pb_layer {
	var c C.pb_layer
	c.n, c.c, c.k = C.int64_t(g.N), C.int64_t(g.C), C.int64_t(g.K)
	for i := range 3 {
		c.in[i], c.window[i], c.stride[i] = C.int64_t(g.In[i]), C.int64_t(g.Window[i]), C.int64_t(g.Stride[i])
		c.pad[i], c.dil[i], c.out[i] = C.int64_t(g.Pad[i]), C.int64_t(g.Dil[i]), C.int64_t(g.Out[i])
	}
	c.rank, c.groups = C.int(g.Rank), C.int(g.Groups)
	if g.NHWC {
		c.nhwc = 1
	}
	return c
}

func (l *Library) jobConv(dt DType, g Layer, opt JobOptions) (jobPtr, error) {
	cg := cLayer(g)
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_cblas_job_conv(l.h, C.pb_dtype(dt), &cg, o, out, e, el)
	}, opt)
}
