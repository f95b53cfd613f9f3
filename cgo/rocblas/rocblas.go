// Package rocblas loads AMD's rocBLAS at run time and prepares gemm (f32,
// f64) as GPU jobs on a HIP device opened with
// github.com/peakbench/peakbench/cgo/cuda (cuda.OpenHIP). rocBLAS is
// column-major like cuBLAS: the C layer computes the row-major product as
// the column-major transpose, operands swapped.
//
//	rt, _ := cuda.OpenHIP()        // PEAKBENCH_HIP, or libamdhip64.so.7/.6/.5
//	dev, _ := rt.OpenDevice(0)
//	lib, err := rocblas.Open(dev)  // PEAKBENCH_ROCBLAS, or librocblas.so.5/.4/.3
//
// Built without cgo, Open returns an error wrapping cuda.ErrNoCgo.
package rocblas

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/cuda"
)

// Library is rocBLAS with a handle on one device.
type Library struct {
	dev     *cuda.Device
	h       handle
	details map[string]string
	release func()

	mu     sync.Mutex
	jobs   int
	closed bool
	freed  bool
}

// Open loads rocBLAS (PEAKBENCH_ROCBLAS, when set, names the only file tried)
// and creates a handle on dev's stream.
func Open(dev *cuda.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads rocBLAS from path (the search when empty).
func OpenPath(dev *cuda.Device, path string) (*Library, error) {
	if dev == nil {
		return nil, errors.New("rocblas: Open: nil device")
	}
	release, err := dev.Retain()
	if err != nil {
		return nil, fmt.Errorf("rocblas: %w", err)
	}
	var (
		h    handle
		info string
	)
	err = dev.Do(func(gpu unsafe.Pointer) error {
		var err error
		h, info, err = open(gpu, path)
		return err
	})
	if err != nil {
		release()
		return nil, err
	}
	return &Library{dev: dev, h: h, details: cuda.ParseInfo(info), release: release}, nil
}

// Version returns rocBLAS's version, e.g. "4.2.0".
func (l *Library) Version() string { return l.details["version"] }

// Path returns the file loaded.
func (l *Library) Path() string { return l.details["path"] }

// Details describes the library: "path".
func (l *Library) Details() map[string]string {
	m := map[string]string{}
	for k, v := range l.details {
		if k != "version" {
			m[k] = v
		}
	}
	return m
}

// Device returns the device the handle is on.
func (l *Library) Device() *cuda.Device { return l.dev }

func (l *Library) String() string {
	return fmt.Sprintf("rocblas %s (%s) on %s", l.Version(), l.Path(), l.dev)
}

// Close destroys the handle once every job is closed. Closing twice is a no-op.
func (l *Library) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	last := l.jobs == 0 && !l.freed
	l.freed = l.freed || last
	l.mu.Unlock()
	if last {
		l.destroy()
	}
	return nil
}

func (l *Library) destroy() {
	l.dev.Do(func(unsafe.Pointer) error { l.free(); return nil })
	l.release()
}

func (l *Library) jobDone() {
	l.mu.Lock()
	l.jobs--
	last := l.jobs == 0 && l.closed && !l.freed
	l.freed = l.freed || last
	l.mu.Unlock()
	if last {
		l.destroy()
	}
}

// prepare makes a job with mk (called holding the device) and wraps it.
func (l *Library) prepare(mk func() (unsafe.Pointer, error)) (*cuda.Job, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errors.New("rocblas: library is closed")
	}
	l.jobs++
	l.mu.Unlock()
	var job *cuda.Job
	err := l.dev.Do(func(unsafe.Pointer) error {
		p, err := mk()
		if err != nil {
			return err
		}
		job, err = cuda.NewJob(l.dev, p, "rocblas: ", l.jobDone)
		if err != nil {
			freeJob(p)
		}
		return err
	})
	if err != nil {
		l.jobDone()
		return nil, err
	}
	return job, nil
}

// PrepareGEMM prepares row-major C (m×n) = op(A)·op(B), A m×k (k×m when
// transA), B k×n (n×k when transB), in F32 (rocblas_sgemm) or F64
// (rocblas_dgemm). Arguments: 0 A, 1 B, 2 C (the output).
func (l *Library) PrepareGEMM(dt cuda.DType, transA, transB bool, m, n, k int, opt cuda.JobOptions) (*cuda.Job, error) {
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("rocblas: gemm: copies %d outside [1, %d]", opt.Copies, maxCopies)
	}
	if m < 1 || n < 1 || k < 1 || m > maxDim || n > maxDim || k > maxDim {
		return nil, fmt.Errorf("rocblas: gemm: dimensions %d×%d×%d must lie in [1, %d]", m, n, k, maxDim)
	}
	return l.prepare(func() (unsafe.Pointer, error) { return l.gemm(dt, transA, transB, m, n, k, opt) })
}

const (
	maxDim    = 1<<31 - 1 // rocblas_int is 32-bit
	maxCopies = 65536     // PB_MAX_COPIES
)
