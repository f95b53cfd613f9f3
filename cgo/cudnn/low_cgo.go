//go:build cgo

package cudnn

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"strings"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

type handle = *C.pb_cudnn

const (
	errLen   = 4096
	triedLen = 16384
	infoLen  = 4096
)

func cbuf(n int) *C.char {
	p := (*C.char)(C.malloc(C.size_t(n)))
	*p = 0
	return p
}

func cerr(st C.pb_status, errb *C.char) error {
	return &gpurt.Error{Status: native.Status(st), Msg: C.GoString(errb)}
}

func open(gpu unsafe.Pointer, path string) (handle, string, error) {
	var cpath *C.char
	if path != "" {
		cpath = C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
	}
	errb, tried, info := cbuf(errLen), cbuf(triedLen), cbuf(infoLen)
	defer C.free(unsafe.Pointer(errb))
	defer C.free(unsafe.Pointer(tried))
	defer C.free(unsafe.Pointer(info))
	var h *C.pb_cudnn
	if st := C.pb_cudnn_open((*C.pb_gpu)(gpu), cpath, &h, tried, triedLen, errb, errLen); st != C.PB_OK {
		le := &gpurt.LoadError{Library: "libcudnn", Path: path, Reason: C.GoString(errb), Err: cerr(st, errb)}
		if t := C.GoString(tried); t != "" {
			le.Tried = strings.Split(t, "\n")
		}
		return nil, "", le
	}
	if st := C.pb_cudnn_info(h, info, infoLen, errb, errLen); st != C.PB_OK {
		C.pb_cudnn_close(h)
		return nil, "", cerr(st, errb)
	}
	return h, C.GoString(info), nil
}

func (l *Library) free() { C.pb_cudnn_close(l.h) }

func freeJob(p unsafe.Pointer) { C.pb_gpu_job_free((*C.pb_gpu_job)(p)) }

func opts(o gpurt.JobOptions) *C.pb_gpu_job_opts {
	p := (*C.pb_gpu_job_opts)(C.calloc(1, C.sizeof_pb_gpu_job_opts))
	p.copies = C.int(max(o.Copies, 1))
	return p
}

func (l *Library) job(op Op, dt gpurt.DType, rows, cols int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := opts(opt)
	defer C.free(unsafe.Pointer(o))
	var j *C.pb_gpu_job
	if st := C.pb_cudnn_job(l.h, C.pb_cudnn_op(op), C.pb_gpu_dtype(dt), C.int64_t(rows), C.int64_t(cols), o, &j, errb, errLen); st != C.PB_OK {
		return nil, cerr(st, errb)
	}
	return unsafe.Pointer(j), nil
}

var _ = [1]int{}[int(Add)-C.PB_CUDNN_ADD+int(Mul)-C.PB_CUDNN_MUL+int(ReLU)-C.PB_CUDNN_RELU+int(Sigmoid)-C.PB_CUDNN_SIGMOID+int(Tanh)-C.PB_CUDNN_TANH+int(Softmax)-C.PB_CUDNN_SOFTMAX+int(Sum)-C.PB_CUDNN_SUM+int(Max)-C.PB_CUDNN_MAX]
