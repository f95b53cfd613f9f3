//go:build cgo

package cublas

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

type handle = *C.pb_cublas

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
	var h *C.pb_cublas
	if st := C.pb_cublas_open((*C.pb_gpu)(gpu), cpath, &h, tried, triedLen, errb, errLen); st != C.PB_OK {
		le := &gpurt.LoadError{Library: "libcublas", Path: path, Reason: C.GoString(errb), Err: cerr(st, errb)}
		if t := C.GoString(tried); t != "" {
			le.Tried = strings.Split(t, "\n")
		}
		return nil, "", le
	}
	if st := C.pb_cublas_info(h, info, infoLen, errb, errLen); st != C.PB_OK {
		C.pb_cublas_close(h)
		return nil, "", cerr(st, errb)
	}
	return h, C.GoString(info), nil
}

func (l *Library) free() { C.pb_cublas_close(l.h) }

func freeJob(p unsafe.Pointer) { C.pb_gpu_job_free((*C.pb_gpu_job)(p)) }

func trans(t bool) C.pb_trans {
	if t {
		return C.PB_TRANS
	}
	return C.PB_NO_TRANS
}

func opts(o gpurt.JobOptions) *C.pb_gpu_job_opts {
	p := (*C.pb_gpu_job_opts)(C.calloc(1, C.sizeof_pb_gpu_job_opts))
	p.copies = C.int(max(o.Copies, 1))
	return p
}

func (l *Library) job(call func(o *C.pb_gpu_job_opts, out **C.pb_gpu_job, errb *C.char) C.pb_status, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := opts(opt)
	defer C.free(unsafe.Pointer(o))
	var j *C.pb_gpu_job
	if st := call(o, &j, errb); st != C.PB_OK {
		return nil, cerr(st, errb)
	}
	return unsafe.Pointer(j), nil
}

func (l *Library) gemm(dt gpurt.DType, ta, tb bool, m, n, k int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return l.job(func(o *C.pb_gpu_job_opts, out **C.pb_gpu_job, errb *C.char) C.pb_status {
		return C.pb_cublas_job_gemm(l.h, C.pb_gpu_dtype(dt), trans(ta), trans(tb), C.int(m), C.int(n), C.int(k), o, out, errb, errLen)
	}, opt)
}

func (l *Library) gemv(dt gpurt.DType, m, n int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return l.job(func(o *C.pb_gpu_job_opts, out **C.pb_gpu_job, errb *C.char) C.pb_status {
		return C.pb_cublas_job_gemv(l.h, C.pb_gpu_dtype(dt), C.int(m), C.int(n), o, out, errb, errLen)
	}, opt)
}

func (l *Library) axpy(dt gpurt.DType, n int, alpha float64, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return l.job(func(o *C.pb_gpu_job_opts, out **C.pb_gpu_job, errb *C.char) C.pb_status {
		return C.pb_cublas_job_axpy(l.h, C.pb_gpu_dtype(dt), C.int(n), C.double(alpha), o, out, errb, errLen)
	}, opt)
}

func (l *Library) dot(dt gpurt.DType, n int, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	return l.job(func(o *C.pb_gpu_job_opts, out **C.pb_gpu_job, errb *C.char) C.pb_status {
		return C.pb_cublas_job_dot(l.h, C.pb_gpu_dtype(dt), C.int(n), o, out, errb, errLen)
	}, opt)
}
