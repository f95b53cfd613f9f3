// Package gonum registers the "gonum" backend: gonum.org/v1/gonum/blas/gonum,
// the pure-Go BLAS a Go program uses today, and dsp/fourier, its FFT. It
// runs gemm, gemv, axpy and dot, and the Fourier transforms in f64; gonum parallelizes gemm over GOMAXPROCS goroutines, which the harness
// sets to the thread count.
package gonum

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

const module = "gonum.org/v1/gonum"

func init() {
	backend.Register(backend.Factory{
		Name:        "gonum",
		Description: "gonum.org/v1/gonum/blas/gonum and dsp/fourier, pure Go (gemm, gemv, axpy, dot; fft, ifft, rfft in f64)",
		Open:        func(backend.OpenOptions) (backend.Backend, error) { return Backend{}, nil },
	})
}

// Backend is the gonum backend.
type Backend struct{}

func (Backend) Name() string            { return "gonum" }
func (Backend) Device() platform.Device { return platform.HostCPU() }
func (Backend) Close() error            { return nil }

// GoCode says the kernels are Go code in this process: each result counts
// their Go heap allocations (bench/harness: GoCode).
func (Backend) GoCode() bool { return true }

func (Backend) Info() backend.Info {
	return backend.Info{Version: module + " " + backend.ModuleVersion(module)}
}

// declared is what gonum computes: its BLAS routines, in f32 and f64.
var declared = backend.Support{}.Add(workload.DTypes, workload.GEMM, workload.GEMV, workload.AXPY, workload.Dot).
	Add([]workload.DType{workload.F64}, fftOps...) // dsp/fourier: complex128 only (fft.go)

// Declared implements backend.Declarer: gemm, gemv, axpy and dot in f32
// and f64; fft, ifft and rfft in f64.
func (Backend) Declared() backend.Support { return declared }

// Prepare implements backend.Backend.
func (Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !declared.Has(w.Op, w.DType) {
		return nil, backend.Unsupported("gonum", w)
	}
	if w.Op.Fourier() {
		return prepareFFT(w, in, cfg)
	}
	if w.DType == workload.F32 {
		return prepare[float32](w, in, cfg, ops32), nil
	}
	return prepare[float64](w, in, cfg, ops64), nil
}

// ops binds the typed gonum routines of one precision.
type ops[T backend.Float] struct {
	gemm func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	gemv func(tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int)
	axpy func(n int, alpha T, x []T, incX int, y []T, incY int)
	dot  func(n int, x []T, incX int, y []T, incY int) T
}

var (
	impl  gonumblas.Implementation
	ops32 = ops[float32]{impl.Sgemm, impl.Sgemv, impl.Saxpy, impl.Sdot}
	ops64 = ops[float64]{impl.Dgemm, impl.Dgemv, impl.Daxpy, impl.Ddot}
)

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// buffers is one copy of a workload's operands.
type buffers[T backend.Float] struct {
	args   [][]T
	out    []T
	scalar T
}

func prepare[T backend.Float](w workload.Workload, in workload.Data, cfg backend.Config, o ops[T]) backend.Kernel {
	s := w.Shape
	sets := make([]buffers[T], max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	per := backend.SetSlots(w, len(in.Args))
	for c := range sets {
		set := &sets[c]
		for i, a := range in.Args {
			set.args = append(set.args, backend.Place[T](mem, a, c*per+i))
		}
		if w.Op == workload.GEMM || w.Op == workload.GEMV {
			set.out = backend.PlaceZero[T](mem, w.OutputLen(), c*per+len(in.Args))
		}
	}
	alpha := T(in.Alpha)
	var step func(c int)
	switch w.Op {
	case workload.GEMM:
		lda, ldb := s.K, s.N
		if s.TransA {
			lda = s.M
		}
		if s.TransB {
			ldb = s.K
		}
		step = func(c int) {
			b := &sets[c]
			o.gemm(trans(s.TransA), trans(s.TransB), s.M, s.N, s.K, 1, b.args[0], lda, b.args[1], ldb, 0, b.out, s.N)
		}
	case workload.GEMV:
		step = func(c int) {
			b := &sets[c]
			o.gemv(blas.NoTrans, s.M, s.N, 1, b.args[0], s.N, b.args[1], 1, 0, b.out, 1)
		}
	case workload.AXPY:
		step = func(c int) { b := &sets[c]; o.axpy(s.N, alpha, b.args[0], 1, b.args[1], 1) }
	case workload.Dot:
		step = func(c int) { b := &sets[c]; b.scalar = o.dot(s.N, b.args[0], 1, b.args[1], 1) }
	}
	output := func(c int) []float64 {
		b := &sets[c]
		switch w.Op {
		case workload.AXPY:
			return backend.Widen(b.args[1])
		case workload.Dot:
			return []float64{float64(b.scalar)}
		}
		return backend.Widen(b.out)
	}
	return backend.NewHostKernel(mem, len(sets), step, output)
}
