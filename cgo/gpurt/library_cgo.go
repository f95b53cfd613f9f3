//go:build cgo

package gpurt

/*
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"strings"
	"unsafe"
)

type libHandle = *C.pb_gpu_vlib

const fileLen = 256

func openLibrary(gpu unsafe.Pointer, name, path string) (libHandle, string, error) {
	cname, cpath := C.CString(name), cstr(path)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(cpath))
	errb, tried, info, file := newBuf(errLen), newBuf(triedLen), newBuf(infoLen), newBuf(fileLen)
	defer errb.free()
	defer tried.free()
	defer info.free()
	defer file.free()
	var h *C.pb_gpu_vlib
	if st := C.pb_gpu_vlib_open(cname, (*C.pb_gpu)(gpu), cpath, &h, file.p, file.len(), tried.p, tried.len(), errb.p, errb.len()); st != C.PB_OK {
		if st == C.PB_ERR_INVALID { // an unregistered name, a device of another vendor: no load tried
			return nil, "", newError(int(st), 0, errb.String())
		}
		return nil, "", loadError(file.String(), path, st, 0, errb, tried)
	}
	if st := C.pb_gpu_vlib_info(h, info.p, info.len(), errb.p, errb.len()); st != C.PB_OK {
		C.pb_gpu_vlib_close(h)
		return nil, "", newError(int(st), 0, errb.String())
	}
	return h, info.String(), nil
}

func (l *Library) free() { C.pb_gpu_vlib_close(l.h) }

func freeLibraryJob(p unsafe.Pointer) { C.pb_gpu_job_free((*C.pb_gpu_job)(p)) }

// job passes params and reported as Go memory: neither holds a Go pointer,
// and C keeps neither past the call.
func (l *Library) job(dt DType, params []int64, opt JobOptions, reported []int64) (unsafe.Pointer, error) {
	errb := newBuf(errLen)
	defer errb.free()
	o := (*C.pb_gpu_job_opts)(C.calloc(1, C.sizeof_pb_gpu_job_opts))
	defer C.free(unsafe.Pointer(o))
	o.copies = C.int(max(opt.Copies, 1))
	var pp, rp *C.int64_t
	if len(params) > 0 {
		pp = (*C.int64_t)(unsafe.Pointer(&params[0]))
	}
	if len(reported) > 0 {
		rp = (*C.int64_t)(unsafe.Pointer(&reported[0]))
	}
	var j *C.pb_gpu_job
	if st := C.pb_gpu_vlib_job(l.h, C.pb_gpu_dtype(dt), pp, C.int(len(params)), o, &j, rp, C.int(len(reported)), errb.p, errb.len()); st != C.PB_OK {
		return nil, newError(int(st), 0, errb.String())
	}
	return unsafe.Pointer(j), nil
}

func registeredLibraries() []string {
	b := newBuf(4096)
	defer b.free()
	C.pb_gpu_vlib_names(b.p, b.len())
	return strings.Fields(b.String())
}
