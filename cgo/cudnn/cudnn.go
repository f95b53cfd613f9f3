// Package cudnn loads NVIDIA's cuDNN (8 or 9) at run time and prepares
// its legacy tensor operations as GPU jobs on a device opened with
// github.com/peakbench/peakbench/cgo/cuda: cudnnOpTensor (add, mul),
// cudnnActivationForward (relu, sigmoid, tanh), cudnnSoftmaxForward
// (accurate, over each row) and cudnnReduceTensor (sum, max), in f32.
// cuDNN has no exp activation.
//
// cuDNN 9 is a shim (libcudnn.so.9) over sub-libraries; the loader loads
// those found beside it first, by full path (see native/cudnn.c).
//
// Built without cgo, Open returns an error wrapping cuda.ErrNoCgo.
package cudnn

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/cuda"
)

// Op is a cuDNN operation peakbench runs (the values of pb_cudnn_op).
type Op int

// The operations, with their job arguments (inputs first, output last).
const (
	Add     Op = iota // cudnnOpTensor add: x, y, z
	Mul               // cudnnOpTensor mul: x, y, z
	ReLU              // cudnnActivationForward: x, y
	Sigmoid           // x, y
	Tanh              // x, y
	Softmax           // cudnnSoftmaxForward over each row: x (rows×cols), y
	Sum               // cudnnReduceTensor add: x, r (1 element)
	Max               // cudnnReduceTensor max: x, r (1 element)
)

var opNames = [...]string{"add", "mul", "relu", "sigmoid", "tanh", "softmax", "sum", "max"}

func (op Op) String() string {
	if op >= 0 && int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// ParseOp returns the Op named s.
func ParseOp(s string) (Op, error) {
	for i, n := range opNames {
		if n == s {
			return Op(i), nil
		}
	}
	return 0, fmt.Errorf("cudnn: unknown op %q (accepted: %s)", s, strings.Join(opNames[:], ", "))
}

// Library is cuDNN with a handle on one device.
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

// Open loads cuDNN (PEAKBENCH_CUDNN, when set, names the only file tried)
// and creates a handle on dev's stream.
func Open(dev *cuda.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads cuDNN from path (the search when empty).
func OpenPath(dev *cuda.Device, path string) (*Library, error) {
	if dev == nil {
		return nil, errors.New("cudnn: Open: nil device")
	}
	release, err := dev.Retain()
	if err != nil {
		return nil, fmt.Errorf("cudnn: %w", err)
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

// Version returns cuDNN's version, e.g. "9.1.0".
func (l *Library) Version() string { return l.details["version"] }

// Path returns the file loaded.
func (l *Library) Path() string { return l.details["path"] }

// Details describes the library: "path", .
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
	return fmt.Sprintf("cudnn %s (%s) on %s", l.Version(), l.Path(), l.dev)
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
		return nil, errors.New("cudnn: library is closed")
	}
	l.jobs++
	l.mu.Unlock()
	var job *cuda.Job
	err := l.dev.Do(func(unsafe.Pointer) error {
		p, err := mk()
		if err != nil {
			return err
		}
		job, err = cuda.NewJob(l.dev, p, "cudnn: ", l.jobDone)
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

// Prepare prepares op on n elements (Softmax: use PrepareSoftmax). dt must
// be cuda.F32: other types return an error wrapping cuda.ErrUnsupported.
func (l *Library) Prepare(op Op, dt cuda.DType, n int, opt cuda.JobOptions) (*cuda.Job, error) {
	if op == Softmax {
		return nil, errors.New("cudnn: softmax takes rows and columns: use PrepareSoftmax")
	}
	return l.prep(op, dt, 1, n, opt)
}

// PrepareSoftmax prepares a softmax over each of rows rows of cols columns
// (row-major). Arguments: 0 x, 1 y.
func (l *Library) PrepareSoftmax(dt cuda.DType, rows, cols int, opt cuda.JobOptions) (*cuda.Job, error) {
	return l.prep(Softmax, dt, rows, cols, opt)
}

func (l *Library) prep(op Op, dt cuda.DType, rows, cols int, opt cuda.JobOptions) (*cuda.Job, error) {
	if op < Add || op > Max {
		return nil, fmt.Errorf("cudnn: bad op %d", int(op))
	}
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("cudnn: %s: shape %d×%d: rows and columns must be at least 1", op, rows, cols)
	}
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("cudnn: %s: copies %d outside [1, %d]", op, opt.Copies, maxCopies)
	}
	return l.prepare(func() (unsafe.Pointer, error) { return l.job(op, dt, rows, cols, opt) })
}

// maxCopies bounds JobOptions.Copies (PB_MAX_COPIES).
const maxCopies = 65536
