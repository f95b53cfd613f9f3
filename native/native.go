// Package native is peakbench's C layer: the files native/*.c, compiled by
// the go command as part of this package, behind the C ABI in
// include/peakbench.h. They find vendor libraries (OpenBLAS, BLIS, MKL, the
// reference BLAS, oneDNN) at run time with dlopen, so nothing vendor-specific
// is needed to build.
//
// The cgo/<family> packages call the C entry points from their own cgo
// preambles and link this package with a blank import:
//
//	import _ "github.com/peakbench/peakbench/native"
//
// This package also holds what those packages share on the Go side: the
// status codes as a typed error, element types, and Job, an operation
// prepared in C buffers and timed in C. Without cgo it still builds: Job's
// methods then return ErrNoCgo.
//
// CMake builds the same C files into a library with C tests (see
// CMakeLists.txt); the go command does not need CMake.
package native

/*
#cgo CFLAGS: -I${SRCDIR}/../include -std=gnu11 -Wall -Wno-format-truncation
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "peakbench.h"
*/
import "C"

import (
	"strings"
	"unsafe"
)

// The Go constants of types.go must equal the C ones: each index below is
// out of range, a compile error, unless the two agree.
var _ = [1]int{}[OK-C.PB_OK+NotFound-C.PB_ERR_NOT_FOUND+Symbol-C.PB_ERR_SYMBOL+
	Invalid-C.PB_ERR_INVALID+Unsupported-C.PB_ERR_UNSUPPORTED+NoMem-C.PB_ERR_NOMEM+
	Library-C.PB_ERR_LIBRARY+Version-C.PB_ERR_VERSION]
var _ = [1]int{}[F32-C.PB_F32]
var _ = [1]int{}[F64-C.PB_F64]
var _ = [1]int{}[MinThreads-C.PB_MIN_THREADS]
var _ = [1]int{}[MaxThreads-C.PB_MAX_THREADS]
var _ = [1]int{}[MaxCopies-C.PB_MAX_COPIES]
var _ = [1]int{}[CSR2COO-C.PB_CSR2COO]
var _ = [1]int{}[COO2CSR-C.PB_COO2CSR]
var _ = [1]int{}[CSR2CSC-C.PB_CSR2CSC]
var _ = [1]int{}[ConvertInPtr-C.PB_CONVERT_IN_PTR]
var _ = [1]int{}[ConvertInIdx-C.PB_CONVERT_IN_IDX]
var _ = [1]int{}[ConvertInVal-C.PB_CONVERT_IN_VAL]
var _ = [1]int{}[ConvertOutVal-C.PB_CONVERT_OUT_VAL]
var _ = [1]int{}[ConvertOutIdx-C.PB_CONVERT_OUT_IDX]
var _ = [1]int{}[ConvertOutPtr-C.PB_CONVERT_OUT_PTR]

// idleWaitVars are the variables the loader sets, before the first library
// loads, so that idle worker threads sleep instead of spinning on the cores
// the next library measured needs (see quiet_idle_threads in loader.c).
var idleWaitVars = []string{"KMP_BLOCKTIME", "OPENBLAS_THREAD_TIMEOUT", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT"}

// IdleWait reports those variables, and the ones a user may set for
// libgomp, as the C libraries see them, for the record of a result:
// "KMP_BLOCKTIME=1 OPENBLAS_THREAD_TIMEOUT=22".
func IdleWait() string {
	var parts []string
	for _, name := range idleWaitVars {
		cname := C.CString(name)
		v := C.getenv(cname)
		C.free(unsafe.Pointer(cname))
		if v != nil {
			parts = append(parts, name+"="+C.GoString(v))
		}
	}
	return strings.Join(parts, " ")
}
