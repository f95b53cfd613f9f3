//go:build cgo

package cblas

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// handle is the C library handle.
type handle = *C.pb_cblas

// jobPtr is a C job handed to native.NewJob.
type jobPtr = unsafe.Pointer

const (
	errLen   = 2048
	triedLen = 16384
	infoLen  = 8192
)

// cbuf is a C-allocated text buffer: no Go pointer crosses into C.
type cbuf struct {
	p *C.char
	n int
}

func newBuf(n int) cbuf {
	p := (*C.char)(C.malloc(C.size_t(n)))
	*p = 0
	return cbuf{p, n}
}

func (b cbuf) free()          { C.free(unsafe.Pointer(b.p)) }
func (b cbuf) len() C.size_t  { return C.size_t(b.n) }
func (b cbuf) String() string { return C.GoString(b.p) }

func cstr(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

func families() []Family {
	var fs []Family
	var info C.pb_cblas_family_info
	for i := C.int(0); C.pb_cblas_family(i, &info) != 0; i++ {
		fs = append(fs, Family{
			Name:        C.GoString(info.name),
			Description: C.GoString(info.description),
			Hint:        C.GoString(info.hint),
			Env:         C.GoString(info.env),
			OneThread:   info.one_thread != 0,
		})
	}
	return fs
}

func open(name, path string) (handle, string, error) {
	cname, cpath := C.CString(name), cstr(path)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(cpath))
	errb, tried, info := newBuf(errLen), newBuf(triedLen), newBuf(infoLen)
	defer errb.free()
	defer tried.free()
	defer info.free()
	var h *C.pb_cblas
	st := C.pb_cblas_open(cname, cpath, &h, tried.p, tried.len(), errb.p, errb.len())
	if st != C.PB_OK {
		le := &LoadError{Library: name, Path: path, Reason: errb.String(), Err: native.NewError(int(st), "cblas: ", errb.String())}
		if t := tried.String(); t != "" {
			le.Tried = strings.Split(t, "\n")
		}
		return nil, "", le
	}
	if st := C.pb_cblas_info(h, info.p, info.len(), errb.p, errb.len()); st != C.PB_OK {
		C.pb_cblas_close(h, nil, 0)
		return nil, "", native.NewError(int(st), "cblas: ", errb.String())
	}
	return h, info.String(), nil
}

func (l *Library) free() { C.pb_cblas_close(l.h, nil, 0) }

func (l *Library) setThreads(n int) error {
	errb := newBuf(errLen)
	defer errb.free()
	st := C.pb_cblas_set_threads(l.h, C.int(n), errb.p, errb.len())
	return native.NewError(int(st), "cblas: ", errb.String())
}

func (l *Library) threads() int {
	var n C.int
	C.pb_cblas_get_threads(l.h, &n, nil, 0)
	return int(n)
}

// must panics on a failed call whose arguments Go already checked: a bug.
func must(st C.pb_status, what string) {
	if st != C.PB_OK {
		panic(fmt.Sprintf("cblas: %s failed after its arguments were checked: %v", what, native.Status(st)))
	}
}

func ctrans(t bool) C.pb_trans {
	if t {
		return C.PB_TRANS
	}
	return C.PB_NO_TRANS
}

func (l *Library) gemm(dt DType, ta, tb bool, m, n, k int, alpha float64, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, beta float64, c unsafe.Pointer, ldc int) {
	if dt == F32 {
		must(C.pb_cblas_sgemm(l.h, ctrans(ta), ctrans(tb), C.int(m), C.int(n), C.int(k), C.float(alpha),
			(*C.float)(a), C.int(lda), (*C.float)(b), C.int(ldb), C.float(beta), (*C.float)(c), C.int(ldc), nil, 0), "sgemm")
		return
	}
	must(C.pb_cblas_dgemm(l.h, ctrans(ta), ctrans(tb), C.int(m), C.int(n), C.int(k), C.double(alpha),
		(*C.double)(a), C.int(lda), (*C.double)(b), C.int(ldb), C.double(beta), (*C.double)(c), C.int(ldc), nil, 0), "dgemm")
}

func (l *Library) gemv(dt DType, ta bool, m, n int, alpha float64, a unsafe.Pointer, lda int, x unsafe.Pointer, incX int, beta float64, y unsafe.Pointer, incY int) {
	if dt == F32 {
		must(C.pb_cblas_sgemv(l.h, ctrans(ta), C.int(m), C.int(n), C.float(alpha), (*C.float)(a), C.int(lda),
			(*C.float)(x), C.int(incX), C.float(beta), (*C.float)(y), C.int(incY), nil, 0), "sgemv")
		return
	}
	must(C.pb_cblas_dgemv(l.h, ctrans(ta), C.int(m), C.int(n), C.double(alpha), (*C.double)(a), C.int(lda),
		(*C.double)(x), C.int(incX), C.double(beta), (*C.double)(y), C.int(incY), nil, 0), "dgemv")
}

func (l *Library) axpy(dt DType, n int, alpha float64, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) {
	if dt == F32 {
		must(C.pb_cblas_saxpy(l.h, C.int(n), C.float(alpha), (*C.float)(x), C.int(incX), (*C.float)(y), C.int(incY), nil, 0), "saxpy")
		return
	}
	must(C.pb_cblas_daxpy(l.h, C.int(n), C.double(alpha), (*C.double)(x), C.int(incX), (*C.double)(y), C.int(incY), nil, 0), "daxpy")
}

func (l *Library) dot(dt DType, n int, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) float64 {
	if dt == F32 {
		var r C.float
		must(C.pb_cblas_sdot(l.h, C.int(n), (*C.float)(x), C.int(incX), (*C.float)(y), C.int(incY), &r, nil, 0), "sdot")
		return float64(r)
	}
	var r C.double
	must(C.pb_cblas_ddot(l.h, C.int(n), (*C.double)(x), C.int(incX), (*C.double)(y), C.int(incY), &r, nil, 0), "ddot")
	return float64(r)
}

func (l *Library) hasExtras() bool {
	for e := C.pb_cblas_ext(0); e < C.PB_EXT_COUNT; e++ {
		if C.pb_cblas_has(l.h, e, C.PB_F32) == 0 || C.pb_cblas_has(l.h, e, C.PB_F64) == 0 {
			return false
		}
	}
	return true
}

func (l *Library) scal(dt DType, n int, alpha float64, x unsafe.Pointer, incX int) {
	must(C.pb_cblas_scal(l.h, C.pb_dtype(dt), C.int(n), C.double(alpha), x, C.int(incX), nil, 0), "scal")
}

func (l *Library) nrm2(dt DType, n int, x unsafe.Pointer, incX int) float64 {
	var r C.double
	must(C.pb_cblas_nrm2(l.h, C.pb_dtype(dt), C.int(n), x, C.int(incX), &r, nil, 0), "nrm2")
	return float64(r)
}

func (l *Library) asum(dt DType, n int, x unsafe.Pointer, incX int) float64 {
	var r C.double
	must(C.pb_cblas_asum(l.h, C.pb_dtype(dt), C.int(n), x, C.int(incX), &r, nil, 0), "asum")
	return float64(r)
}

func (l *Library) iamax(dt DType, n int, x unsafe.Pointer, incX int) int {
	var r C.int
	must(C.pb_cblas_iamax(l.h, C.pb_dtype(dt), C.int(n), x, C.int(incX), &r, nil, 0), "iamax")
	return int(r)
}

func (l *Library) copyv(dt DType, n int, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) {
	must(C.pb_cblas_copy(l.h, C.pb_dtype(dt), C.int(n), x, C.int(incX), y, C.int(incY), nil, 0), "copy")
}

func (l *Library) swap(dt DType, n int, x unsafe.Pointer, incX int, y unsafe.Pointer, incY int) {
	must(C.pb_cblas_swap(l.h, C.pb_dtype(dt), C.int(n), x, C.int(incX), y, C.int(incY), nil, 0), "swap")
}

func (l *Library) trsm(dt DType, left, upper, ta, unit bool, m, n int, alpha float64, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int) {
	side, uplo, diag := C.pb_side(C.PB_RIGHT), C.pb_uplo(C.PB_LOWER), C.pb_diag(C.PB_NON_UNIT)
	if left {
		side = C.PB_LEFT
	}
	if upper {
		uplo = C.PB_UPPER
	}
	if unit {
		diag = C.PB_UNIT
	}
	must(C.pb_cblas_trsm(l.h, C.pb_dtype(dt), side, uplo, ctrans(ta), diag, C.int(m), C.int(n), C.double(alpha),
		a, C.int(lda), b, C.int(ldb), nil, 0), "trsm")
}

func (l *Library) hasVML(op VMLOp, dt DType) bool {
	return C.pb_mkl_vml_has(l.h, C.pb_vml_op(op), C.pb_dtype(dt)) != 0
}

func copts(opt JobOptions) C.pb_job_opts {
	return C.pb_job_opts{copies: C.int(max(opt.Copies, 1)), threads: C.int(opt.Threads)}
}

// jobCall runs a C job constructor with an error buffer.
func (l *Library) jobCall(f func(o *C.pb_job_opts, out **C.pb_job, err *C.char, errlen C.size_t) C.pb_status, opt JobOptions) (jobPtr, error) {
	errb := newBuf(errLen)
	defer errb.free()
	o := (*C.pb_job_opts)(C.malloc(C.size_t(unsafe.Sizeof(C.pb_job_opts{}))))
	defer C.free(unsafe.Pointer(o))
	*o = copts(opt)
	out := (**C.pb_job)(C.malloc(C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(out))
	*out = nil
	if st := f(o, out, errb.p, errb.len()); st != C.PB_OK {
		return nil, native.NewError(int(st), "cblas: ", errb.String())
	}
	return unsafe.Pointer(*out), nil
}

func (l *Library) jobGemm(dt DType, ta, tb bool, m, n, k int, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_cblas_job_gemm(l.h, C.pb_dtype(dt), ctrans(ta), ctrans(tb), C.int(m), C.int(n), C.int(k), o, out, e, el)
	}, opt)
}

func (l *Library) lowpHas(dt LowPrecision) bool {
	return C.pb_cblas_lowp_has(l.h, C.pb_lowp(dt)) != 0
}

func (l *Library) lowpRoutine(dt LowPrecision) string {
	return C.GoString(C.pb_cblas_lowp_routine(l.h, C.pb_lowp(dt)))
}

func (l *Library) jobGemmLowp(dt LowPrecision, ta, tb bool, m, n, k int, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_cblas_job_gemm_lowp(l.h, C.pb_lowp(dt), ctrans(ta), ctrans(tb), C.int(m), C.int(n), C.int(k), o, out, e, el)
	}, opt)
}

func (l *Library) jobGemv(dt DType, m, n int, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_cblas_job_gemv(l.h, C.pb_dtype(dt), C.int(m), C.int(n), o, out, e, el)
	}, opt)
}

func (l *Library) jobAxpy(dt DType, n int, alpha float64, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_cblas_job_axpy(l.h, C.pb_dtype(dt), C.int(n), C.double(alpha), o, out, e, el)
	}, opt)
}

func (l *Library) jobDot(dt DType, n int, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_cblas_job_dot(l.h, C.pb_dtype(dt), C.int(n), o, out, e, el)
	}, opt)
}

func (l *Library) jobVML(op VMLOp, dt DType, n int, opt JobOptions) (jobPtr, error) {
	return l.jobCall(func(o *C.pb_job_opts, out **C.pb_job, e *C.char, el C.size_t) C.pb_status {
		return C.pb_mkl_job_vml(l.h, C.pb_vml_op(op), C.pb_dtype(dt), C.int(n), o, out, e, el)
	}, opt)
}

// The C layer is linked from package native.
var _ = native.OK
