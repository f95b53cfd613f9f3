// Package cusparse loads NVIDIA's cuSPARSE (11.2 or later: the generic API)
// at run time and prepares its sparse products as GPU jobs on a device
// opened with github.com/peakbench/peakbench/cgo/gpurt: y = A·x
// (cusparseSpMV) and Y = A·X (cusparseSpMM, X and Y row-major), A in CSR
// with int32 indices, in f32 and f64, with the library's default
// algorithm; and the format conversions CSR → COO, COO → CSR and CSR → CSC
// (PrepareConversion: cusparseXcsr2coo, cusparseXcoo2csr,
// cusparseCsr2cscEx2).
//
//	rt, _ := gpurt.Open()
//	dev, _ := rt.OpenDevice(0)
//	lib, err := cusparse.Open(dev) // PEAKBENCH_CUSPARSE, or libcusparse.so.12/.11
//	job, err := lib.PrepareCSR(gpurt.F32, rows, cols, 0, rowPtr, colIdx, gpurt.JobOptions{})
//	job.SetInput(0, values); job.SetInput(1, x)
//	elapsed, err := job.Run(10)
//
// Built without cgo, Open returns an error wrapping gpurt.ErrNoCgo.
package cusparse

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

// Library is cuSPARSE with a handle on one device.
type Library struct {
	*gpurt.VendorLib
	h           handle
	conversions [3]bool // HasConversion, read when the library is opened
}

// Open loads cuSPARSE (PEAKBENCH_CUSPARSE, when set, names the only file
// tried) and creates a handle on dev's stream.
func Open(dev *gpurt.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads cuSPARSE from path (the search when empty).
func OpenPath(dev *gpurt.Device, path string) (*Library, error) {
	l := &Library{}
	v, err := gpurt.OpenVendorLib(dev, "cusparse", func(gpu unsafe.Pointer) (string, error) {
		h, info, err := open(gpu, path)
		l.h = h
		if err == nil {
			l.conversions = conversionsOf(h)
		}
		return info, err
	}, func() { l.free() }, freeJob)
	if err != nil {
		return nil, err
	}
	l.VendorLib = v
	return l, nil
}

// PrepareCSR prepares y = A·x (k = 0) or Y = A·X (X cols×k, row-major), A
// rows×cols in CSR (rowPtr: rows+1 offsets from 0; colIdx: the columns,
// copied to the device for every buffer copy), in dt (F32 or F64).
// Arguments: 0 the values (one per column index), 1 x or X, 2 y or Y (the
// output); the job holds the indices as arguments 3 and 4. A product the
// library cannot run is an error wrapping gpurt.ErrUnsupported with the
// reason.
func (l *Library) PrepareCSR(dt gpurt.DType, rows, cols, k int, rowPtr, colIdx []int32, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("cusparse: copies %d outside [1, %d]", opt.Copies, maxCopies)
	}
	if rows < 1 || cols < 1 || k < 0 || rows > math.MaxInt32 || cols > math.MaxInt32 || k > math.MaxInt32 {
		return nil, fmt.Errorf("cusparse: %d×%d, k=%d: dimensions must lie in [1, %d]", rows, cols, k, math.MaxInt32)
	}
	if len(rowPtr) != rows+1 || len(colIdx) == 0 || rowPtr[0] != 0 || int(rowPtr[rows]) != len(colIdx) {
		return nil, fmt.Errorf("cusparse: %d row pointers and %d column indices for %d rows", len(rowPtr), len(colIdx), rows)
	}
	for _, c := range colIdx {
		if c < 0 || int(c) >= cols {
			return nil, fmt.Errorf("cusparse: column index %d outside [0, %d)", c, cols)
		}
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.job(dt, rows, cols, k, rowPtr, colIdx, opt) })
}

// maxCopies bounds JobOptions.Copies (PB_MAX_COPIES).
const maxCopies = 65536
