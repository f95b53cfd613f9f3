//go:build cgo

package cusparse

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

type handle = *C.pb_cusparse

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
	var h *C.pb_cusparse
	if st := C.pb_cusparse_open((*C.pb_gpu)(gpu), cpath, &h, tried, triedLen, errb, errLen); st != C.PB_OK {
		le := &gpurt.LoadError{Library: "libcusparse", Path: path, Reason: C.GoString(errb), Err: cerr(st, errb)}
		if t := C.GoString(tried); t != "" {
			le.Tried = strings.Split(t, "\n")
		}
		return nil, "", le
	}
	if st := C.pb_cusparse_info(h, info, infoLen, errb, errLen); st != C.PB_OK {
		C.pb_cusparse_close(h)
		return nil, "", cerr(st, errb)
	}
	return h, C.GoString(info), nil
}

func (l *Library) free() { C.pb_cusparse_close(l.h) }

func freeJob(p unsafe.Pointer) { C.pb_gpu_job_free((*C.pb_gpu_job)(p)) }

func (l *Library) job(dt gpurt.DType, rows, cols, k int, rowPtr, colIdx []int32, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := (*C.pb_gpu_job_opts)(C.calloc(1, C.sizeof_pb_gpu_job_opts))
	defer C.free(unsafe.Pointer(o))
	o.copies = C.int(max(opt.Copies, 1))
	// The C side copies the indices to the device before it returns.
	rp, ci := (*C.int32_t)(unsafe.Pointer(&rowPtr[0])), (*C.int32_t)(unsafe.Pointer(&colIdx[0]))
	var j *C.pb_gpu_job
	if st := C.pb_cusparse_job(l.h, C.pb_gpu_dtype(dt), C.int(rows), C.int(cols), C.size_t(len(colIdx)), C.int(k), rp, ci, o, &j, errb, errLen); st != C.PB_OK {
		return nil, cerr(st, errb)
	}
	return unsafe.Pointer(j), nil
}

func conversionsOf(h handle) (has [3]bool) {
	for op := range has {
		has[op] = C.pb_cusparse_convert_has(h, C.pb_sparse_convert(op)) != 0
	}
	return has
}

func (l *Library) convertJob(op Conversion, dt gpurt.DType, rows, cols, nnz int, ptr, idx []int32, opt gpurt.JobOptions) (unsafe.Pointer, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := (*C.pb_gpu_job_opts)(C.calloc(1, C.sizeof_pb_gpu_job_opts))
	defer C.free(unsafe.Pointer(o))
	o.copies = C.int(max(opt.Copies, 1))
	// The C side copies the indices to the device before it returns.
	cp := (*C.int32_t)(unsafe.Pointer(&ptr[0]))
	var ci *C.int32_t
	if len(idx) > 0 {
		ci = (*C.int32_t)(unsafe.Pointer(&idx[0]))
	}
	var j *C.pb_gpu_job
	if st := C.pb_cusparse_convert_job(l.h, C.pb_sparse_convert(op), C.pb_gpu_dtype(dt), C.int(rows), C.int(cols), C.size_t(nnz), cp, ci, o, &j, errb, errLen); st != C.PB_OK {
		return nil, cerr(st, errb)
	}
	return unsafe.Pointer(j), nil
}
