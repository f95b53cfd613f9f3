// Package onednn loads oneDNN (Intel's deep-learning primitives library,
// formerly MKL-DNN) at run time and runs its CPU primitives as timed jobs:
// eltwise relu, sigmoid (logistic), tanh and exp; binary add and mul;
// reduction sum and max; softmax over the rows of a matrix; the layers
// (layers.go); matmul in f32, bf16, f16, s8×s8 and u8×s8 (gemm.go);
// quantize and dequantize (f32 ↔ s8/u8) as reorders with scales and zero
// points (quant.go).
//
// The C layer (package github.com/peakbench/peakbench/native) finds
// libdnnl with dlopen over its usual sonames, or the file named by
// PEAKBENCH_ONEDNN, and speaks oneDNN 2.x's C API with enum values of its
// own: a library of another major version is refused with a clear error.
// oneDNN 2.x has no f64 data type: f64 jobs return an error wrapping
// ErrUnsupported.
//
// Thread count: oneDNN uses its CPU runtime's. With the OpenMP runtime
// (Debian's build) SetThreads and JobOptions.Threads are applied with
// omp_set_num_threads of the OpenMP library oneDNN is bound to, on the
// thread that runs the job, right before each run.
//
// Built without cgo, Open returns an error wrapping ErrNoCgo.
package onednn

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// DType is an element type of a prepared Job.
type DType = native.DType

// The element types.
const (
	F32 = native.F32
	F64 = native.F64
)

// Job is an operation prepared in C buffers and timed in C; see native.Job.
type Job = native.Job

// Error is a failed call into the C layer, with its status.
type Error = native.Error

// Errors that returned errors match with errors.Is.
var (
	ErrUnsupported = native.ErrUnsupported // oneDNN cannot do this (e.g. f64)
	ErrInvalid     = native.ErrInvalid     // a bad argument
	ErrNoCgo       = native.ErrNoCgo       // built with CGO_ENABLED=0
)

// MinThreads and MaxThreads bound SetThreads.
const (
	MinThreads = native.MinThreads
	MaxThreads = native.MaxThreads
)

// IdleWait returns the idle-wait settings of the threaded libraries'
// workers in force (see native.IdleWait), for a backend's details.
func IdleWait() string { return native.IdleWait() }

// LoadError says why oneDNN could not be opened.
type LoadError struct {
	// Path is the file asked for by OpenPath; empty when searching.
	Path string
	// Tried lists each file tried and why it failed ("FILE: dlerror text"),
	// when no file could be loaded.
	Tried []string
	// Reason is the loader's one-line message: what failed (the files tried,
	// a missing symbol, an unsupported version) and how to install oneDNN.
	Reason string
	// Err is the underlying error: an *Error with its Status, or ErrNoCgo.
	Err error
}

func (e *LoadError) Error() string { return "onednn: " + strings.TrimPrefix(e.Reason, "onednn: ") }

func (e *LoadError) Unwrap() error { return e.Err }

// Op is a oneDNN primitive peakbench runs.
type Op int

// The operations, with their job arguments (inputs first, output last).
const (
	ReLU    Op = iota // eltwise relu: x, y
	Sigmoid           // eltwise logistic: x, y
	Tanh              // eltwise tanh: x, y
	Exp               // eltwise exp: x, y
	Add               // binary add: x, y, z
	Mul               // binary mul: x, y, z
	Sum               // reduction sum: x, r (1 element)
	Max               // reduction max: x, r (1 element)
	Softmax           // softmax over each row (axis 1): x (rows×cols), y
)

var opNames = [...]string{"relu", "sigmoid", "tanh", "exp", "add", "mul", "sum", "max", "softmax"}

func (op Op) String() string {
	if op >= 0 && int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// ParseOp returns the Op named s ("relu", "sigmoid", ...).
func ParseOp(s string) (Op, error) {
	for i, n := range opNames {
		if n == s {
			return Op(i), nil
		}
	}
	return 0, fmt.Errorf("onednn: unknown op %q (accepted: %s)", s, strings.Join(opNames[:], ", "))
}

// Library is oneDNN, loaded, with a CPU engine.
type Library struct {
	path    string
	version string
	details map[string]string
	isa     string // dnnl_get_effective_cpu_isa's name, "" when unknown
	h       handle

	gemmOnce sync.Once
	gemmImpl [GEMMU8S8 + 1]string

	quantOnce sync.Once
	quantImpl string // QuantImplementation's

	closed atomic.Bool
	mu     sync.Mutex
	jobs   int
	freed  bool
}

// Open loads oneDNN (PEAKBENCH_ONEDNN, when set, names the only file tried).
func Open() (*Library, error) { return OpenPath("") }

// OpenPath loads oneDNN from the file path (the standard places when empty).
func OpenPath(path string) (*Library, error) {
	h, info, err := open(path)
	if err != nil {
		return nil, err
	}
	l := &Library{h: h, details: map[string]string{}}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			l.details[k] = v
		}
	}
	l.version, l.path = l.details["version"], l.details["path"]
	delete(l.details, "version")
	delete(l.details, "name")
	delete(l.details, "threads")
	l.isa = l.details["isa"]
	delete(l.details, "isa") // code_path says it for people
	return l, nil
}

// Path returns the file loaded (symbolic links resolved).
func (l *Library) Path() string { return l.path }

// Version returns the version dnnl_version() reports, e.g. "2.6.3".
func (l *Library) Version() string { return l.version }

// Details describes the library: "path", "threading" (its CPU runtime),
// "threading_runtime" (the OpenMP library it is bound to), "code_path"
// (the widest ISA it may dispatch to), "hash". The map is a copy.
func (l *Library) Details() map[string]string {
	m := make(map[string]string, len(l.details))
	for k, v := range l.details {
		m[k] = v
	}
	return m
}

func (l *Library) String() string { return fmt.Sprintf("onednn %s (%s)", l.version, l.path) }

func (l *Library) check() {
	if l == nil || l.closed.Load() {
		panic("onednn: use of a closed or nil Library")
	}
}

// SetThreads sets the thread count of jobs prepared afterwards without
// JobOptions.Threads. n must lie in [MinThreads, MaxThreads]; with a CPU
// runtime other than OpenMP only what it runs anyway is accepted.
func (l *Library) SetThreads(n int) error {
	l.check()
	if n < MinThreads || n > MaxThreads {
		return &Error{Status: native.Invalid, Msg: fmt.Sprintf("onednn: thread count %d out of range (accepted: %d to %d)", n, MinThreads, MaxThreads)}
	}
	return l.setThreads(n)
}

// Threads returns the thread count jobs get by default.
func (l *Library) Threads() int {
	l.check()
	return l.threads()
}

// Close releases the engine once every job is closed. oneDNN stays mapped.
// Closing twice is a no-op.
func (l *Library) Close() error {
	if l == nil || l.closed.Swap(true) {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.jobs == 0 && !l.freed {
		l.freed = true
		l.free()
	}
	return nil
}

func (l *Library) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.jobs--
	if l.jobs == 0 && l.closed.Load() && !l.freed {
		l.freed = true
		l.free()
	}
}

// JobOptions says how a prepared job runs.
type JobOptions struct {
	// Copies is the number of buffer sets rotated through, one per
	// iteration (1, the default, for hot-cache runs).
	Copies int
	// Threads is the thread count for this job, applied before each Run;
	// 0 takes the library's (SetThreads).
	Threads int
}

// HasDType reports whether the loaded oneDNN computes Prepare's and
// PrepareLayer's primitives in dt: f32 only, as oneDNN 2.x has no f64 data
// type (they refuse it). The matmul's types are HasGEMM's.
func (l *Library) HasDType(dt DType) bool {
	l.check()
	return dt == F32
}

// Prepare creates the primitive for op on n elements (Softmax: use
// PrepareSoftmax). f64 returns an error wrapping ErrUnsupported: oneDNN 2.x
// has no f64 data type.
func (l *Library) Prepare(op Op, dt DType, n int, opt JobOptions) (*Job, error) {
	l.check()
	if op == Softmax {
		return nil, fmt.Errorf("onednn: softmax takes rows and columns: use PrepareSoftmax")
	}
	return l.prepare(op, dt, 1, n, opt)
}

// PrepareSoftmax creates a softmax over each of rows rows of cols columns
// (row-major, axis 1). Arguments: 0 x, 1 y (the output).
func (l *Library) PrepareSoftmax(dt DType, rows, cols int, opt JobOptions) (*Job, error) {
	l.check()
	return l.prepare(Softmax, dt, rows, cols, opt)
}

func (l *Library) prepare(op Op, dt DType, rows, cols int, opt JobOptions) (*Job, error) {
	if op < ReLU || op > Softmax {
		return nil, fmt.Errorf("onednn: bad op %d", int(op))
	}
	if dt != F32 && dt != F64 {
		return nil, fmt.Errorf("onednn: %s: bad dtype %v (accepted: F32, F64)", op, dt)
	}
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("onednn: %s: shape %d×%d: rows and columns must be at least 1", op, rows, cols)
	}
	return l.newJob(op.String(), opt, func() (unsafe.Pointer, error) { return l.job(op, dt, rows, cols, opt) })
}

// newJob checks the options every job takes, counts the job against the
// library (refusing a closed one), creates it with create and wraps it;
// what names the job in messages. The count is released when the job is
// closed, or here when it could not be made.
func (l *Library) newJob(what string, opt JobOptions, create func() (unsafe.Pointer, error)) (*Job, error) {
	if opt.Copies < 0 || opt.Copies > native.MaxCopies {
		return nil, fmt.Errorf("onednn: %s: copies %d outside [1, %d]", what, opt.Copies, native.MaxCopies)
	}
	if opt.Threads != 0 && (opt.Threads < MinThreads || opt.Threads > MaxThreads) {
		return nil, &Error{Status: native.Invalid, Msg: fmt.Sprintf("onednn: thread count %d out of range (accepted: %d to %d)", opt.Threads, MinThreads, MaxThreads)}
	}
	l.mu.Lock()
	if l.closed.Load() {
		l.mu.Unlock()
		return nil, fmt.Errorf("onednn: library is closed")
	}
	l.jobs++
	l.mu.Unlock()
	p, err := create()
	if err != nil {
		l.release()
		return nil, err
	}
	j, err := native.NewJob(p, "onednn: ", l.release)
	if err != nil {
		l.release()
		return nil, err
	}
	return j, nil
}
