//go:build cgo

package onednn

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"strings"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

type handle = *C.pb_dnnl

const (
	errLen   = 2048
	triedLen = 8192
	infoLen  = 4096
)

func cbuf(n int) *C.char {
	p := (*C.char)(C.malloc(C.size_t(n)))
	*p = 0
	return p
}

func open(path string) (handle, string, error) {
	var cpath *C.char
	if path != "" {
		cpath = C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
	}
	errb, tried, info := cbuf(errLen), cbuf(triedLen), cbuf(infoLen)
	defer C.free(unsafe.Pointer(errb))
	defer C.free(unsafe.Pointer(tried))
	defer C.free(unsafe.Pointer(info))
	var h *C.pb_dnnl
	if st := C.pb_dnnl_open(cpath, &h, tried, triedLen, errb, errLen); st != C.PB_OK {
		msg := C.GoString(errb)
		le := &LoadError{Path: path, Reason: msg, Err: native.NewError(int(st), "", msg)}
		if t := C.GoString(tried); t != "" {
			le.Tried = strings.Split(t, "\n")
		}
		return nil, "", le
	}
	if st := C.pb_dnnl_info(h, info, infoLen, errb, errLen); st != C.PB_OK {
		C.pb_dnnl_close(h, nil, 0)
		return nil, "", native.NewError(int(st), "", C.GoString(errb))
	}
	return h, C.GoString(info), nil
}

func (l *Library) free() { C.pb_dnnl_close(l.h, nil, 0) }

func (l *Library) setThreads(n int) error {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	st := C.pb_dnnl_set_threads(l.h, C.int(n), errb, errLen)
	return native.NewError(int(st), "", C.GoString(errb))
}

func (l *Library) threads() int {
	var n C.int
	C.pb_dnnl_get_threads(l.h, &n, nil, 0)
	return int(n)
}

func (l *Library) job(op Op, dt DType, rows, cols int, opt JobOptions) (unsafe.Pointer, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	o := C.pb_job_opts{copies: C.int(max(opt.Copies, 1)), threads: C.int(opt.Threads)}
	var j *C.pb_job
	st := C.pb_dnnl_job(l.h, C.pb_dnnl_op(op), C.pb_dtype(dt), C.int64_t(rows), C.int64_t(cols), &o, &j, errb, errLen)
	if st != C.PB_OK {
		return nil, native.NewError(int(st), "", C.GoString(errb))
	}
	return unsafe.Pointer(j), nil
}
