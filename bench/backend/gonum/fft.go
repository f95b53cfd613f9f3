package gonum

import (
	"fmt"
	"unsafe"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/workload"
	"gonum.org/v1/gonum/dsp/fourier"
)

// gonum's dsp/fourier (a Go port of FFTPACK, any length) computes in
// complex128 alone: fft, ifft and rfft in f64. Its CmplxFFT.Coefficients
// is the forward transform, Sequence the backward one (unnormalized, as
// ifft), FFT.Coefficients of real input rfft's half spectrum. A 2-D
// transform is its 1-D transform of each row, then of each column
// gathered into a buffer (dsp/fourier has no 2-D transform).
var fftOps = []workload.Op{workload.FFT, workload.IFFT, workload.RFFT}

// largeFactor returns n's first prime factor above 5, or 0.
func largeFactor(n int) int {
	for _, p := range []int{2, 3, 5} {
		for n%p == 0 {
			n /= p
		}
	}
	for p := 7; p <= n; p++ {
		if n%p == 0 {
			return p
		}
	}
	return 0
}

// prepareFFT makes the kernel of a Fourier transform in f64. It refuses
// rfft of a row length with a prime factor above 5: FFTPACK's general
// real radix (radfg) lost 6.2e-11 of the L2 norm at 4099 points, 500 000
// times the roundoff, beyond any float FFT's error bound.
func prepareFFT(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	s := w.Shape
	if p := largeFactor(s.N); w.Op == workload.RFFT && p != 0 {
		return nil, backend.UnsupportedShape(fmt.Errorf("gonum: rfft of %d points: dsp/fourier's real transform of a prime factor above 5 (%d) is not accurate to float64 (error 6e-11 at 4099 points)", s.N, p))
	}
	rows, n := s.FFTRows(), s.N
	half := n/2 + 1
	cplx, real := fourier.NewCmplxFFT(n), fourier.NewFFT(n)
	colFFT := fourier.NewCmplxFFT(rows)
	col := make([]complex128, rows)
	type set struct{ x, out []float64 }
	sets := make([]set, max(cfg.Copies, 1))
	mem := new(hostmem.Arena)
	for c := range sets {
		sets[c].x = backend.Place[float64](mem, in.Args[0], 2*c)
		sets[c].out = backend.PlaceZero[float64](mem, w.OutputLen(), 2*c+1)
	}
	asComplex := func(v []float64) []complex128 {
		return unsafe.Slice((*complex128)(unsafe.Pointer(&v[0])), len(v)/2)
	}
	step := func(c int) {
		b := &sets[c]
		out := asComplex(b.out)
		outRow := n
		for r := range s.M * rows {
			switch w.Op {
			case workload.RFFT:
				outRow = half
				real.Coefficients(out[r*half:(r+1)*half], b.x[r*n:(r+1)*n])
			case workload.IFFT:
				cplx.Sequence(out[r*n:(r+1)*n], asComplex(b.x)[r*n:(r+1)*n])
			default:
				cplx.Coefficients(out[r*n:(r+1)*n], asComplex(b.x)[r*n:(r+1)*n])
			}
		}
		if rows == 1 {
			return
		}
		for t := range s.M {
			o := out[t*rows*outRow : (t+1)*rows*outRow]
			for k := range outRow {
				for r := range rows {
					col[r] = o[r*outRow+k]
				}
				if w.Op == workload.IFFT {
					colFFT.Sequence(col, col)
				} else {
					colFFT.Coefficients(col, col)
				}
				for r, v := range col {
					o[r*outRow+k] = v
				}
			}
		}
	}
	output := func(c int) []float64 { return backend.Widen(sets[c].out) }
	return backend.NewHostKernel(mem, len(sets), step, output), nil
}
