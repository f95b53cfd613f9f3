// Package cblas loads a CBLAS library at run time — OpenBLAS, BLIS, Intel
// MKL, the reference (netlib) BLAS or another row of the C layer's table
// (Families) — and calls it from Go.
//
// Nothing vendor-specific is needed to build: the C layer (package
// github.com/peakbench/peakbench/native) finds the library with dlopen over
// its usual sonames and paths, or the file named by its environment
// variable (Family.Env: PEAKBENCH_OPENBLAS, PEAKBENCH_BLIS, ...).
//
//	lib, err := cblas.Open("openblas")
//	if err != nil { ... } // a *LoadError: the files tried and why each failed
//	defer lib.Close()
//	lib.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n)
//
// The BLAS routines take Go slices with gonum's row-major conventions and
// check their arguments like gonum does: caller mistakes panic with a
// "cblas: " message before the library sees them. Float64 and Float32
// return gonum blas.Float64 and blas.Float32 implementations that route
// gemm, gemv, axpy, dot and a few level-1 routines to the library and the
// rest to gonum, so blas64.Use(lib.Float64()) runs gonum/mat on it.
//
// For benchmarks, Prepare* return a Job whose buffers live in C memory and
// whose Run times its iterations in C.
//
// Built without cgo, Open returns an error wrapping ErrNoCgo.
package cblas

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	ErrUnsupported = native.ErrUnsupported // the library cannot do this
	ErrInvalid     = native.ErrInvalid     // a bad argument
	ErrNoCgo       = native.ErrNoCgo       // built with CGO_ENABLED=0
)

// MinThreads and MaxThreads bound SetThreads.
const (
	MinThreads = native.MinThreads
	MaxThreads = native.MaxThreads
)

// Family is one CBLAS library Open knows: a row of the C layer's table
// (native/cblas_families.c).
type Family struct {
	Name        string // what Open takes, e.g. "openblas"
	Description string // one line: the library and what peakbench runs on it
	Hint        string // how to install it, or point peakbench at it
	Env         string // the environment variable naming its only file
	// OneThread is true for a library without thread control: SetThreads
	// accepts 1 alone (more wraps ErrUnsupported).
	OneThread bool
}

// Families lists the libraries Open knows, in the C layer's order. Built
// without cgo they are read from the table's source (Open then fails with
// ErrNoCgo).
func Families() []Family { return slices.Clone(familyTable()) }

var familyTable = sync.OnceValue(families)

// Names lists the names Open takes, in the order of Families.
func Names() []string {
	var names []string
	for _, f := range familyTable() {
		names = append(names, f.Name)
	}
	return names
}

// Describe returns the description of the library named name ("" for a
// name Open does not know).
func Describe(name string) string {
	for _, f := range familyTable() {
		if f.Name == name {
			return f.Description
		}
	}
	return ""
}

// IdleWait returns the idle-wait settings of the threaded libraries'
// workers in force (see native.IdleWait), for a backend's details.
func IdleWait() string { return native.IdleWait() }

// LoadError says why a library could not be opened.
type LoadError struct {
	Library string // the name asked for, e.g. "openblas"
	// Path is the file asked for by OpenPath; empty when searching.
	Path string
	// Tried lists each file tried and why it failed ("FILE: dlerror text"),
	// when no file could be loaded.
	Tried []string
	// Reason is the loader's one-line message: what failed (the files tried,
	// a missing symbol, a version) and how to install the library.
	Reason string
	// Err is the underlying error: an *Error with its Status, or ErrNoCgo.
	Err error
}

func (e *LoadError) Error() string { return "cblas: " + e.Reason }

func (e *LoadError) Unwrap() error { return e.Err }

// Library is one loaded CBLAS library. Its BLAS methods may be called from
// several goroutines at once (the libraries are thread-safe); the thread
// count is global to the library.
type Library struct {
	name    string
	path    string
	version string
	details map[string]string
	h       handle

	closed atomic.Bool
	mu     sync.Mutex
	jobs   int // open jobs; the C handle is freed when Close ran and none remain
	freed  bool
}

// Open loads the library named name, one of Names. The environment
// variable of its Family (PEAKBENCH_<NAME>, e.g. PEAKBENCH_OPENBLAS), when
// set, names the only file tried.
func Open(name string) (*Library, error) { return OpenPath(name, "") }

// OpenPath loads the library named name from the file path (all standard
// places when path is empty).
func OpenPath(name, path string) (*Library, error) {
	h, info, err := open(name, path)
	if err != nil {
		return nil, err
	}
	l := &Library{name: name, h: h, details: parseInfo(info)}
	l.version = l.details["version"]
	l.path = l.details["path"]
	delete(l.details, "version")
	delete(l.details, "name")
	delete(l.details, "threads")
	return l, nil
}

func parseInfo(info string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Name returns the name the library was opened by.
func (l *Library) Name() string { return l.name }

// Path returns the file loaded (symbolic links resolved).
func (l *Library) Path() string { return l.path }

// Version returns the version the library reports about itself (for the
// reference BLAS, which has none, the one in its file name).
func (l *Library) Version() string { return l.version }

// Details describes the library as loaded: "path", "threading" (pthreads,
// openmp, intel, gnu, sequential...), "code_path" (the kernels chosen for
// this CPU; a library that chooses none at run time gives
// "code_path_unknown", why) and library-specific keys. The map is a copy.
func (l *Library) Details() map[string]string {
	m := make(map[string]string, len(l.details)+1)
	for k, v := range l.details {
		m[k] = v
	}
	return m
}

// String returns e.g. "openblas 0.3.21 (/usr/lib/.../libopenblasp-r0.3.21.so)".
func (l *Library) String() string {
	return fmt.Sprintf("%s %s (%s)", l.name, l.version, l.path)
}

func (l *Library) check() {
	if l == nil || l.closed.Load() {
		panic("cblas: use of a closed or nil Library")
	}
}

// SetThreads sets the library's own thread count, global to the library.
// n must lie in [MinThreads, MaxThreads]; a count the library cannot honour
// (more than 1 on a library without thread control, Family.OneThread, or on
// MKL's sequential layer, or one it reads back differently) is an error
// wrapping ErrUnsupported.
func (l *Library) SetThreads(n int) error {
	l.check()
	if n < MinThreads || n > MaxThreads {
		return &Error{Status: native.Invalid, Msg: fmt.Sprintf("cblas: %s: thread count %d out of range (accepted: %d to %d)", l.name, n, MinThreads, MaxThreads)}
	}
	return l.setThreads(n)
}

// Threads returns the library's thread count.
func (l *Library) Threads() int {
	l.check()
	return l.threads()
}

// Close releases the handle. Jobs still open keep it alive until they are
// closed; the library itself stays mapped (unloading a threaded BLAS is
// unsafe), so a later Open is cheap. Closing twice is a no-op.
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

// acquire counts a new job; release undoes it.
func (l *Library) acquire() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() {
		return fmt.Errorf("cblas: %s: library is closed", l.name)
	}
	l.jobs++
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
	// Threads is the library's thread count for this job, applied before
	// each Run; 0 leaves the library's setting.
	Threads int
}

func (l *Library) checkJob(op string, dt DType, opt JobOptions, dims ...int) error {
	if dt != F32 && dt != F64 {
		return fmt.Errorf("cblas: %s: %s: bad dtype %v (accepted: F32, F64)", l.name, op, dt)
	}
	for _, d := range dims {
		if d < 1 || d > math.MaxInt32 {
			return fmt.Errorf("cblas: %s: %s: dimension %d outside [1, %d] (CBLAS takes 32-bit int dimensions)", l.name, op, d, math.MaxInt32)
		}
	}
	if opt.Copies < 0 || opt.Copies > native.MaxCopies {
		return fmt.Errorf("cblas: %s: %s: copies %d outside [1, %d]", l.name, op, opt.Copies, native.MaxCopies)
	}
	if opt.Threads != 0 && (opt.Threads < MinThreads || opt.Threads > MaxThreads) {
		return &Error{Status: native.Invalid, Msg: fmt.Sprintf("cblas: %s: thread count %d out of range (accepted: %d to %d)", l.name, opt.Threads, MinThreads, MaxThreads)}
	}
	return nil
}

func (l *Library) prefix() string { return "cblas: " + l.name + ": " }

// PrepareGemm prepares C = op(A)·op(B) with alpha 1, beta 0, row-major and
// tight leading dimensions. Arguments: 0 A (m×k, or k×m when transA),
// 1 B (k×n, or n×k when transB), 2 C (m×n, the output).
func (l *Library) PrepareGemm(dt DType, transA, transB bool, m, n, k int, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("gemm", dt, opt, m, n, k); err != nil {
		return nil, err
	}
	return l.job(func() (jobPtr, error) { return l.jobGemm(dt, transA, transB, m, n, k, opt) })
}

// PrepareGemv prepares y = A·x (A m×n, row-major). Arguments: 0 A, 1 x (n),
// 2 y (m, the output).
func (l *Library) PrepareGemv(dt DType, m, n int, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("gemv", dt, opt, m, n); err != nil {
		return nil, err
	}
	return l.job(func() (jobPtr, error) { return l.jobGemv(dt, m, n, opt) })
}

// PrepareAxpy prepares y = alpha·x + y. Arguments: 0 x, 1 y (the output;
// every iteration accumulates into it).
func (l *Library) PrepareAxpy(dt DType, n int, alpha float64, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("axpy", dt, opt, n); err != nil {
		return nil, err
	}
	return l.job(func() (jobPtr, error) { return l.jobAxpy(dt, n, alpha, opt) })
}

// PrepareDot prepares r = x·y. Arguments: 0 x, 1 y, 2 r (1 element, the output).
func (l *Library) PrepareDot(dt DType, n int, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("dot", dt, opt, n); err != nil {
		return nil, err
	}
	return l.job(func() (jobPtr, error) { return l.jobDot(dt, n, opt) })
}

// VMLOp is an MKL Vector Math operation.
type VMLOp int

// The VML operations peakbench uses.
const (
	VMLAdd     VMLOp = iota // z = x + y (vsAdd, vdAdd)
	VMLMul                  // z = x ⊙ y (vsMul, vdMul)
	VMLExp                  // y = eˣ (vsExp, vdExp)
	VMLTanh                 // y = tanh x (vsTanh, vdTanh)
	VMLSigmoid              // y = 1/(1+e⁻ˣ): MKL's VML has none
)

func (op VMLOp) String() string {
	switch op {
	case VMLAdd:
		return "add"
	case VMLMul:
		return "mul"
	case VMLExp:
		return "exp"
	case VMLTanh:
		return "tanh"
	case VMLSigmoid:
		return "sigmoid"
	}
	return fmt.Sprintf("VMLOp(%d)", int(op))
}

// HasVML reports whether the library provides op for dt: only MKL has VML,
// and MKL's VML has no sigmoid.
func (l *Library) HasVML(op VMLOp, dt DType) bool {
	l.check()
	return l.hasVML(op, dt)
}

// PrepareVML prepares an MKL VML operation on n elements. Arguments: add,
// mul: 0 x, 1 y, 2 z (output); exp, tanh: 0 x, 1 y (output). Libraries
// other than MKL, and sigmoid, give an error wrapping ErrUnsupported.
func (l *Library) PrepareVML(op VMLOp, dt DType, n int, opt JobOptions) (*Job, error) {
	l.check()
	if err := l.checkJob("vml "+op.String(), dt, opt, n); err != nil {
		return nil, err
	}
	if op < VMLAdd || op > VMLSigmoid {
		return nil, fmt.Errorf("cblas: %s: bad VML op %d", l.name, int(op))
	}
	return l.job(func() (jobPtr, error) { return l.jobVML(op, dt, n, opt) })
}

func (l *Library) job(make func() (jobPtr, error)) (*Job, error) {
	if err := l.acquire(); err != nil {
		return nil, err
	}
	p, err := make()
	if err != nil {
		l.release()
		return nil, err
	}
	j, err := native.NewJob(p, l.prefix(), l.release)
	if err != nil {
		l.release()
		return nil, err
	}
	return j, nil
}
