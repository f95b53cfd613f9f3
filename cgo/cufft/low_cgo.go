//go:build cgo

package cufft

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

type handle = *C.pb_cufft

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
	var h *C.pb_cufft
	if st := C.pb_cufft_open((*C.pb_gpu)(gpu), cpath, &h, tried, triedLen, errb, errLen); st != C.PB_OK {
		le := &gpurt.LoadError{Library: "libcufft", Path: path, Reason: C.GoString(errb), Err: cerr(st, errb)}
		if t := C.GoString(tried); t != "" {
			le.Tried = strings.Split(t, "\n")
		}
		return nil, "", le
	}
	if st := C.pb_cufft_info(h, info, infoLen, errb, errLen); st != C.PB_OK {
		C.pb_cufft_close(h)
		return nil, "", cerr(st, errb)
	}
	return h, C.GoString(info), nil
}

func (l *Library) free() { C.pb_cufft_close(l.h) }

func freeJob(p unsafe.Pointer) { C.pb_gpu_job_free((*C.pb_gpu_job)(p)) }

func (l *Library) job(dt gpurt.DType, s Spec, opt gpurt.JobOptions) (unsafe.Pointer, int64, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := (*C.pb_gpu_job_opts)(C.calloc(1, C.sizeof_pb_gpu_job_opts))
	defer C.free(unsafe.Pointer(o))
	o.copies = C.int(max(opt.Copies, 1))
	var dims [2]C.int
	for i, d := range s.Dims {
		dims[i] = C.int(d)
	}
	var j *C.pb_gpu_job
	var ns C.int64_t
	if st := C.pb_cufft_job(l.h, C.pb_gpu_dtype(dt), C.pb_cufft_kind(s.Kind), C.int(len(s.Dims)), &dims[0], C.int(s.Batch), o, &j, &ns, errb, errLen); st != C.PB_OK {
		return nil, 0, cerr(st, errb)
	}
	return unsafe.Pointer(j), int64(ns), nil
}
