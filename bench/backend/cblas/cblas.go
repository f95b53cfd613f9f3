// Package cblas registers one backend per CBLAS library the C layer knows
// (cblas.Families: "openblas", "blis", "mkl", "netlib" — the reference
// BLAS — and the others of native/cblas_families.c), loaded at run time
// through github.com/peakbench/peakbench/cgo/cblas, each with its row's
// description. Every one runs gemm, gemv, axpy, dot and convolutions by
// im2col; mkl also runs add, mul, exp and tanh through its Vector Math
// Library (VML has no sigmoid), and gemm in bf16, i8, u8s8 (and f16 where
// the MKL loaded has it), as OpenBLAS runs bf16 where it was built with
// it (lowp.go). Kernels are timed in C, on C buffers.
package cblas

import (
	"errors"
	"fmt"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cblas"
)

func init() {
	for _, f := range cblas.Families() {
		backend.Register(backend.Factory{
			Name:        f.Name,
			Description: f.Description,
			Open:        func(backend.OpenOptions) (backend.Backend, error) { return Open(f.Name) },
			Isolate:     true,
		})
	}
}

// Backend is one CBLAS library as a peakbench backend.
type Backend struct {
	name string
	lib  *cblas.Library
}

// Open opens the library named name (one of cblas.Names) as a backend. The error says which files were tried and how to install it.
func Open(name string) (*Backend, error) {
	lib, err := cblas.Open(name)
	if err != nil {
		return nil, err
	}
	return &Backend{name: name, lib: lib}, nil
}

// Name implements backend.Backend.
func (b *Backend) Name() string { return b.name }

// Device implements backend.Backend.
func (b *Backend) Device() platform.Device { return platform.HostCPU() }

// Library returns the library behind the backend.
func (b *Backend) Library() *cblas.Library { return b.lib }

// Info implements backend.Backend: the version the library reports and its
// details (path of the file loaded, threading layer, code path).
func (b *Backend) Info() backend.Info {
	d := b.lib.Details()
	if w := cblas.IdleWait(); w != "" {
		d["idle_wait"] = w
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Close implements backend.Backend.
func (b *Backend) Close() error { return b.lib.Close() }

var vmlOps = map[workload.Op]cblas.VMLOp{
	workload.Add:     cblas.VMLAdd,
	workload.Mul:     cblas.VMLMul,
	workload.Exp:     cblas.VMLExp,
	workload.Tanh:    cblas.VMLTanh,
	workload.Sigmoid: cblas.VMLSigmoid,
}

// blasOps are what every CBLAS computes: its routines, and convolutions
// by im2col and its gemm (layers.go).
var blasOps = []workload.Op{workload.GEMM, workload.GEMV, workload.AXPY, workload.Dot,
	workload.Conv1D, workload.Conv2D, workload.Conv3D}

// dtypeOf is the library's type of dt, f32 or f64.
func dtypeOf(dt workload.DType) cblas.DType {
	if dt == workload.F64 {
		return cblas.F64
	}
	return cblas.F32
}

// lowPrecision is the library's type of each low-precision gemm dtype
// that some CBLAS libraries have a routine for.
var lowPrecision = map[workload.DType]cblas.LowPrecision{
	workload.BF16: cblas.BF16,
	workload.F16:  cblas.F16,
	workload.I8:   cblas.I8,
	workload.U8S8: cblas.U8S8,
}

// Declared implements backend.Declarer: gemm, gemv, axpy, dot and the
// convolutions in f32 and f64, gemm in the low-precision types whose
// routines the library loaded exports (cblas.Library.HasGemm: MKL's bf16,
// i8, u8s8 and, in newer MKL, f16; OpenBLAS's bf16 where it was built with
// it), and the VML functions it provides (cblas.Library.HasVML: MKL's add,
// mul, exp, tanh), and MKL's Fourier transforms (fft.go), which is what
// Prepare asks too.
func (b *Backend) Declared() backend.Support {
	s := backend.Support{}.Add(workload.DTypes, blasOps...)
	for dt, lp := range lowPrecision {
		if b.lib.HasGemm(lp) {
			s.Add([]workload.DType{dt}, workload.GEMM)
		}
	}
	b.declareSparse(s) // sparse.go: MKL's sparse BLAS
	b.declareFFT(s)    // fft.go
	for op, v := range vmlOps {
		for _, dt := range workload.DTypes {
			if b.lib.HasVML(v, dtypeOf(dt)) {
				s.Add([]workload.DType{dt}, op)
			}
		}
	}
	return s
}

// Prepare implements backend.Backend.
func (b *Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		if v, ok := vmlOps[w.Op]; ok && b.name == "mkl" && !w.DType.GEMMOnly() {
			if v == cblas.VMLSigmoid {
				return nil, fmt.Errorf("%s: %s %s: MKL's Vector Math Library has no sigmoid (logistic) function: %w", b.name, w.Op, w.DType, backend.ErrUnsupported)
			}
			return nil, fmt.Errorf("%s: %s %s: %s lacks this VML function: %w", b.name, w.Op, w.DType, b.lib.Path(), backend.ErrUnsupported)
		}
		if w.Op.Layer() {
			return nil, fmt.Errorf("%s: %s: a BLAS has no pooling or normalization: %w", b.name, w.Op, backend.ErrUnsupported)
		}
		return nil, backend.Unsupported(b.name, w)
	}
	dt := dtypeOf(w.DType)
	if cfg.Threads < 0 || cfg.Copies < 0 {
		return nil, fmt.Errorf("%s: bad config: threads %d, copies %d", b.name, cfg.Threads, cfg.Copies)
	}
	opt := cblas.JobOptions{Copies: max(cfg.Copies, 1), Threads: cfg.Threads}
	if cfg.Threads > 0 {
		// Say up front when the library cannot run this many threads.
		if err := b.lib.SetThreads(cfg.Threads); err != nil {
			return nil, b.wrap(w, err)
		}
	}
	if w.Op.Layer() {
		return b.prepareLayer(w, in, dt, opt, cfg.Algorithm) // layers.go
	}
	if w.Op == workload.GEMM && w.DType.GEMMOnly() {
		return b.prepareLowPrecision(w, in, opt) // lowp.go
	}
	if w.Op.Sparse() {
		return b.prepareSparse(w, in, dt, opt, cfg.Algorithm) // sparse.go
	}
	if w.Op.Fourier() {
		return b.prepareFFT(w, in, dt, opt) // fft.go
	}
	s := w.Shape
	var (
		job *cblas.Job
		err error
	)
	switch w.Op {
	case workload.GEMM:
		job, err = b.lib.PrepareGemm(dt, s.TransA, s.TransB, s.M, s.N, s.K, opt)
	case workload.GEMV:
		job, err = b.lib.PrepareGemv(dt, s.M, s.N, opt)
	case workload.AXPY:
		job, err = b.lib.PrepareAxpy(dt, s.N, in.Alpha, opt)
	case workload.Dot:
		job, err = b.lib.PrepareDot(dt, s.N, opt)
	default: // a VML function the library has (Declared)
		job, err = b.lib.PrepareVML(vmlOps[w.Op], dt, s.N, opt)
	}
	if err != nil {
		return nil, b.wrap(w, err)
	}
	// Inputs are every argument but the output, except axpy's y, which is both.
	nargs, output := job.Args()
	for i := range nargs {
		if i == output && w.Op != workload.AXPY {
			break
		}
		if i >= len(in.Args) {
			break
		}
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, b.wrap(w, err)
		}
	}
	return kernel{job}, nil
}

// wrap adds context, and makes a library's "cannot" (e.g. 2 threads on a
// library without thread control) an unsupported shape or configuration of a declared op,
// which the harness skips with the reason.
func (b *Backend) wrap(w workload.Workload, err error) error {
	if errors.Is(err, cblas.ErrUnsupported) {
		return backend.UnsupportedShape(fmt.Errorf("%s: %s %s: %v: %w", b.name, w.Op, w.DType, err, backend.ErrUnsupported))
	}
	return fmt.Errorf("%s: %s %s: %w", b.name, w.Op, w.DType, err)
}

// kernel is a prepared job.
type kernel struct{ job *cblas.Job }

func (k kernel) Run(iters int) (time.Duration, error) { return k.job.Run(iters) }
func (k kernel) Output() ([]float64, error)           { return k.job.Output() }
func (k kernel) Close() error                         { return k.job.Close() }
