package gokernels

import (
	"time"
	"unsafe"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/fft"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// PrepareFFT makes the kernel of a Fourier transform (fft, ifft, rfft)
// with gobackend/fft at level lvl: complex64 for f32, complex128 for f64.
// rfft runs fft.RealMulti: an even length as the complex transform of
// half as many points. A transform past the L2 cache shares its stages
// between cfg.Threads goroutines (fft.NewPlan).
func PrepareFFT(lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) backend.Kernel {
	if w.DType == workload.F32 {
		return prepareFFT[float32, complex64](lvl, w, in, cfg)
	}
	return prepareFFT[float64, complex128](lvl, w, in, cfg)
}

// fftKernel is a HostKernel that names the code its plan runs and the
// time the plan took (twiddle tables: backend.KernelPlanTime).
type fftKernel struct {
	*backend.HostKernel
	impl string
	plan time.Duration
}

func (k fftKernel) Implementation() string  { return k.impl }
func (k fftKernel) PlanTime() time.Duration { return k.plan }

// asComplex views interleaved (re, im) values as complex ones.
func asComplex[T backend.Float, C fft.Complex](v []T) []C {
	return unsafe.Slice((*C)(unsafe.Pointer(&v[0])), len(v)/2)
}

func prepareFFT[T backend.Float, C fft.Complex](lvl isa.Level, w workload.Workload, in workload.Data, cfg backend.Config) backend.Kernel {
	s, th := w.Shape, max(cfg.Threads, 1)
	start := time.Now()
	var transform func(out []C, x []T)
	var impl string
	if w.Op == workload.RFFT {
		plan := fft.NewRealMulti[T, C](lvl, s.M, s.FFTRows(), s.N, th)
		transform, impl = plan.Transform, plan.Kernel()
	} else {
		plan := fft.NewMulti[C](lvl, s.M, s.FFTRows(), s.N, w.Op == workload.IFFT, th)
		transform = func(out []C, x []T) { plan.Transform(out, asComplex[T, C](x)) }
		impl = plan.Kernel()
	}
	planned := time.Since(start)
	type set struct{ x, out []T }
	sets := make([]set, max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	for c := range sets {
		sets[c].x = backend.Place[T](mem, in.Args[0], 2*c)
		sets[c].out = backend.PlaceZero[T](mem, w.OutputLen(), 2*c+1)
	}
	step := func(c, iters int) {
		b := &sets[c]
		out := asComplex[T, C](b.out)
		for range iters {
			transform(out, b.x)
		}
	}
	output := func(c int) []float64 { return backend.Widen(sets[c].out) }
	return fftKernel{backend.NewHostBatchKernel(mem, len(sets), step, output), impl, planned}
}
