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
// rfft runs the complex transform of its real input (imaginary parts
// zero) and keeps each row's first N/2+1 outputs. The transforms run on
// one goroutine.
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
	s := w.Shape
	rows, n, pts := s.FFTRows(), s.N, s.FFTPoints()
	start := time.Now()
	plan := fft.NewMulti[C](lvl, s.M, rows, n, w.Op == workload.IFFT)
	planned := time.Since(start)
	type set struct {
		x, out []T
		work   []C // rfft: the complex input, then the full transform
	}
	sets := make([]set, max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	for c := range sets {
		sets[c].x = backend.Place[T](mem, in.Args[0], 2*c)
		sets[c].out = backend.PlaceZero[T](mem, w.OutputLen(), 2*c+1)
		if w.Op == workload.RFFT {
			sets[c].work = make([]C, 2*s.M*pts)
		}
	}
	half := n/2 + 1
	step := func(c, iters int) {
		b := &sets[c]
		out := asComplex[T, C](b.out)
		if w.Op != workload.RFFT {
			x := asComplex[T, C](b.x)
			for range iters {
				plan.Transform(out, x)
			}
			return
		}
		cx, full := b.work[:s.M*pts], b.work[s.M*pts:]
		for range iters {
			for i, v := range b.x {
				cx[i] = C(complex(float64(v), 0))
			}
			plan.Transform(full, cx)
			for r := range s.M * rows {
				copy(out[r*half:(r+1)*half], full[r*n:])
			}
		}
	}
	output := func(c int) []float64 { return backend.Widen(sets[c].out) }
	return fftKernel{backend.NewHostBatchKernel(mem, len(sets), step, output), plan.Kernel(), planned}
}
