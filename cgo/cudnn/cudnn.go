// Package cudnn loads NVIDIA's cuDNN (8 or 9) at run time and prepares
// its legacy tensor operations as GPU jobs on a device opened with
// github.com/peakbench/peakbench/cgo/gpurt: cudnnOpTensor (add, mul),
// cudnnActivationForward (relu, sigmoid, tanh), cudnnSoftmaxForward
// (accurate, over each row) and cudnnReduceTensor (sum, max), in f32.
// cuDNN has no exp activation.
//
// cuDNN 9 and 8 are shims (libcudnn.so.9, .8) over sub-libraries; the
// loader loads those found beside them first, by full path. cuDNN 8 aborts
// the process when a sub-library does not load mid-call, so Open makes its
// sub-libraries resident first: it fails without libcudnn_ops_infer.so.8,
// and without libcudnn_cnn_infer.so.8 PrepareConv returns the reason
// (Details "conv"). Open refuses a cuDNN built for another CUDA major than
// the runtime's (cudnnGetCudartVersion; Details "built_for_cuda"). See
// native/cudnn.c.
//
// Built without cgo, Open returns an error wrapping gpurt.ErrNoCgo.
package cudnn

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/peakbench/peakbench/cgo/gpurt"
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
	*gpurt.VendorLib
	h handle
}

// Open loads cuDNN (PEAKBENCH_CUDNN, when set, names the only file tried)
// and creates a handle on dev's stream.
func Open(dev *gpurt.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads cuDNN from path (the search when empty).
func OpenPath(dev *gpurt.Device, path string) (*Library, error) {
	l := &Library{}
	v, err := gpurt.OpenVendorLib(dev, "cudnn", func(gpu unsafe.Pointer) (string, error) {
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

// Prepare prepares op on n elements (Softmax: use PrepareSoftmax). dt must
// be gpurt.F32: other types return an error wrapping gpurt.ErrUnsupported.
func (l *Library) Prepare(op Op, dt gpurt.DType, n int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if op == Softmax {
		return nil, errors.New("cudnn: softmax takes rows and columns: use PrepareSoftmax")
	}
	return l.prep(op, dt, 1, n, opt)
}

// PrepareSoftmax prepares a softmax over each of rows rows of cols columns
// (row-major). Arguments: 0 x, 1 y.
func (l *Library) PrepareSoftmax(dt gpurt.DType, rows, cols int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	return l.prep(Softmax, dt, rows, cols, opt)
}

func (l *Library) prep(op Op, dt gpurt.DType, rows, cols int, opt gpurt.JobOptions) (*gpurt.Job, error) {
	if op < Add || op > Max {
		return nil, fmt.Errorf("cudnn: bad op %d", int(op))
	}
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("cudnn: %s: shape %d×%d: rows and columns must be at least 1", op, rows, cols)
	}
	if opt.Copies < 0 || opt.Copies > maxCopies {
		return nil, fmt.Errorf("cudnn: %s: copies %d outside [1, %d]", op, opt.Copies, maxCopies)
	}
	return l.MakeJob(func() (unsafe.Pointer, error) { return l.job(op, dt, rows, cols, opt) })
}

// maxCopies bounds JobOptions.Copies (PB_MAX_COPIES).
const maxCopies = 65536
