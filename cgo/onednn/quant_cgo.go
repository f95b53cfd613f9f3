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

func (l *Library) quantJob(s QuantSpec, opt JobOptions) (unsafe.Pointer, error) {
	errb := cbuf(errLen)
	defer C.free(unsafe.Pointer(errb))
	n := len(s.Scales)
	scales := (*C.float)(C.malloc(C.size_t(n) * C.sizeof_float))
	zps := (*C.int32_t)(C.malloc(C.size_t(n) * C.sizeof_int32_t))
	defer C.free(unsafe.Pointer(scales))
	defer C.free(unsafe.Pointer(zps))
	copy(unsafe.Slice((*float32)(unsafe.Pointer(scales)), n), s.Scales)
	copy(unsafe.Slice((*int32)(unsafe.Pointer(zps)), n), s.ZeroPoints)
	flag := func(b bool) C.int {
		if b {
			return 1
		}
		return 0
	}
	o := C.pb_job_opts{copies: C.int(max(opt.Copies, 1)), threads: C.int(opt.Threads)}
	var j *C.pb_job
	st := C.pb_dnnl_quant_job(l.h, C.pb_dnnl_quant_op(s.Op), flag(s.Unsigned), C.int64_t(s.Rows),
		C.int64_t(s.Cols), flag(s.PerChannel), scales, zps, &o, &j, errb, errLen)
	if st != C.PB_OK {
		return nil, native.NewError(int(st), "", C.GoString(errb))
	}
	return unsafe.Pointer(j), nil
}
