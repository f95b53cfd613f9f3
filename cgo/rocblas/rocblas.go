// Package rocblas loads AMD's rocBLAS at run time and prepares gemm (f32,
// f64) as GPU jobs on a HIP device opened with
// github.com/peakbench/peakbench/cgo/gpurt (gpurt.OpenHIP). rocBLAS is
// column-major like cuBLAS: the C layer computes the row-major product as
// the column-major transpose, operands swapped.
//
//	rt, _ := gpurt.OpenHIP()        // PEAKBENCH_HIP, or libamdhip64.so.7/.6/.5
//	dev, _ := rt.OpenDevice(0)
//	lib, err := rocblas.Open(dev)  // PEAKBENCH_ROCBLAS, or librocblas.so.5/.4/.3/.0
//
// Built without cgo, Open returns an error wrapping gpurt.ErrNoCgo.
package rocblas

import (
	"fmt"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Library is rocBLAS with a handle on one device.
type Library struct {
	*gpurt.VendorLib
	h handle
}

// Open loads rocBLAS (PEAKBENCH_ROCBLAS, when set, names the only file tried)
// and creates a handle on dev's stream.
func Open(dev *gpurt.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads rocBLAS from path (the search when empty).
func OpenPath(dev *gpurt.Device, path string) (*Library, error) {
	l := &Library{}
	v, err := gpurt.OpenVendorLib(dev, "rocblas", func(gpu unsafe.Pointer) (string, error) {
		h, info, err := open(gpu, path)
		l.h = h
		return info, err
	}, func() { l.free() }, freeJob)
	if err != nil {
		return nil, err
	}
	l.VendorLib = v
	return l, nil
}

// PrepareGEMM prepares row-major C (m×n) = op(A)·op(B), A m×k (k×m when
// transA), B k×n (n×k when transB), in F32 (rocblas_sgemm) or F64
// (rocblas_dgemm). Arguments: 0 A, 1 B, 2 C (the output).
func (l *Library) PrepareGEMM(dt gpurt.DType, transA, transB bool, m, n, k int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("rocblas: gemm: copies %d outside [1, %d]", opt.Copies, maxCopies)
	}
	if m < 1 || n < 1 || k < 1 || m > maxDim || n > maxDim || k > maxDim {
		return nil, fmt.Errorf("rocblas: gemm: dimensions %d×%d×%d must lie in [1, %d]", m, n, k, maxDim)
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.gemm(dt, transA, transB, m, n, k, opt) })
}

const (
	maxDim    = 1<<31 - 1 // rocblas_int is 32-bit
	maxCopies = 65536     // PB_MAX_COPIES
)
