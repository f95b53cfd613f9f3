// Package cublas loads NVIDIA's cuBLAS (11, 12 or 13) at run time and
// prepares its routines as GPU jobs on a device opened with
// github.com/peakbench/peakbench/cgo/gpurt: gemm in f32, f64, f16 and bf16
// (GemmEx, f32 accumulation and output), tf32 (GemmEx with
// CUBLAS_COMPUTE_32F_FAST_TF32), i8 (GemmEx, exact i32 accumulation and
// output) and e4m3 (cuBLASLt's matmul, f32 accumulation and output, on
// compute capability 8.9 or later: see FP8), gemv, axpy and dot.
//
// Matrices are row-major; the C layer computes the row-major product as
// cuBLAS's column-major transpose (operands and m, n swapped), so no data
// is transposed. Dot products run in device pointer mode, so that timed
// iterations never wait for the host.
//
//	rt, _ := gpurt.Open()
//	dev, _ := rt.OpenDevice(0)
//	lib, err := cublas.Open(dev) // PEAKBENCH_CUBLAS, or libcublas.so.13/.12/.11
//	job, err := lib.PrepareGEMM(gpurt.BF16, false, false, 8192, 8192, 8192, gpurt.JobOptions{})
//	job.SetInput(0, a); job.SetInput(1, b)
//	elapsed, err := job.Run(10)
//
// Built without cgo, Open returns an error wrapping gpurt.ErrNoCgo.
package cublas

import (
	"fmt"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Library is cuBLAS with a handle on one device.
type Library struct {
	*gpurt.VendorLib
	h handle
}

// Open loads cuBLAS (PEAKBENCH_CUBLAS, when set, names the only file tried)
// and creates a handle on dev's stream.
func Open(dev *gpurt.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads cuBLAS from path (the search when empty).
func OpenPath(dev *gpurt.Device, path string) (*Library, error) {
	l := &Library{}
	v, err := gpurt.OpenVendorLib(dev, "cublas", func(gpu unsafe.Pointer) (string, error) {
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

func checkCopies(op string, opt gpurt.JobOptions) error {
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return fmt.Errorf("cublas: %s: copies %d outside [1, %d]", op, opt.Copies, maxCopies)
	}
	return nil
}

// FP8 reports whether e4m3 gemm can run (cuBLASLt resolved, cuBLAS 12 or
// later, a device of compute capability 8.9 or later), and if not, why.
func (l *Library) FP8() (bool, string) {
	v := l.Details()["fp8"]
	return v == "cublasLtMatmul", v
}

// PrepareGEMM prepares row-major C (m×n) = op(A)·op(B), A m×k (k×m when
// transA), B k×n (n×k when transB). Arguments: 0 A, 1 B, 2 C (the output).
// dt names the inputs: F32 (Sgemm), F64 (Dgemm), F16 and BF16 (GemmEx, f32
// accumulation and output), TF32 (GemmEx on f32 data with TF32 tensor
// cores), I8 (GemmEx with CUBLAS_COMPUTE_32I, i32 output; the leading
// dimensions of A and B must be multiples of 4), E4M3 (cublasLtMatmul, f32
// output; transB without transA, k a multiple of 16, n of 4). A shape or
// type the library cannot run is an error wrapping gpurt.ErrUnsupported
// with the reason; E5M2 always is (cuBLASLt has no E5M2 × E5M2 kernel).
func (l *Library) PrepareGEMM(dt gpurt.DType, transA, transB bool, m, n, k int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if err := checkCopies("gemm", opt); err != nil {
		return nil, err
	}
	if m < 1 || n < 1 || k < 1 || m > maxDim || n > maxDim || k > maxDim {
		return nil, fmt.Errorf("cublas: gemm: dimensions %d×%d×%d must lie in [1, %d]", m, n, k, maxDim)
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.gemm(dt, transA, transB, m, n, k, opt) })
}

// PrepareGEMV prepares y = A·x, A m×n row-major. Arguments: 0 A, 1 x, 2 y. F32, F64.
func (l *Library) PrepareGEMV(dt gpurt.DType, m, n int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if err := checkCopies("gemv", opt); err != nil {
		return nil, err
	}
	if m < 1 || n < 1 || m > maxDim || n > maxDim {
		return nil, fmt.Errorf("cublas: gemv: dimensions %d×%d must lie in [1, %d]", m, n, maxDim)
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.gemv(dt, m, n, opt) })
}

// PrepareAXPY prepares y += alpha·x on n elements (accumulating on every
// iteration). Arguments: 0 x, 1 y (also the output). F32, F64.
func (l *Library) PrepareAXPY(dt gpurt.DType, n int, alpha float64, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if err := checkCopies("axpy", opt); err != nil {
		return nil, err
	}
	if n < 1 || n > maxDim {
		return nil, fmt.Errorf("cublas: axpy: size %d must lie in [1, %d]", n, maxDim)
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.axpy(dt, n, alpha, opt) })
}

// PrepareDot prepares r = x·y on n elements, in device pointer mode.
// Arguments: 0 x, 1 y, 2 r (one element). F32, F64.
func (l *Library) PrepareDot(dt gpurt.DType, n int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if err := checkCopies("dot", opt); err != nil {
		return nil, err
	}
	if n < 1 || n > maxDim {
		return nil, fmt.Errorf("cublas: dot: size %d must lie in [1, %d]", n, maxDim)
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.dot(dt, n, opt) })
}

// maxDim is the largest dimension cuBLAS's 32-bit interface takes.
const maxDim = 1<<31 - 1

// maxCopies bounds JobOptions.Copies (PB_MAX_COPIES).
const maxCopies = 65536
