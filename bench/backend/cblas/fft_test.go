package cblas_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/workload"
	cgocblas "github.com/peakbench/peakbench/cgo/cblas"
)

// TestFFTDeclared: MKL declares the Fourier transforms in f32 and f64
// (its DFTI), and no other CBLAS library declares them.
func TestFFTDeclared(t *testing.T) {
	for _, name := range cgocblas.Names() {
		t.Run(name, func(t *testing.T) {
			decl := backend.DeclaredBy(backendtest.Open(t, name))
			for _, op := range workload.FFTOps {
				for _, dt := range workload.DTypes {
					if got := decl.Has(op, dt); got != (name == "mkl") {
						t.Errorf("%s %s declared %v", op, dt, got)
					}
				}
			}
		})
	}
}

// TestFFTKernel runs MKL's DFTI on a batched 1-D rfft, a 2-D fft, an ifft
// of a length with a prime factor and a 64 Ki fft, on 2 threads: each verifies and
// reports its descriptor's commit as its plan time.
func TestFFTKernel(t *testing.T) {
	b := backendtest.Open(t, "mkl")
	for _, tc := range []struct {
		op   workload.Op
		size string
	}{{workload.RFFT, "3x1000"}, {workload.FFT, "2x24x40:2d"}, {workload.IFFT, "2x1022"}, {workload.RFFT, "6x10:2d"},
		// MKL 2020's threaded DFT of 64 Ki points calls libm from a kernel
		// library that does not name it: without libm in the global scope
		// (native/mkl.c loads it) the process dies on "undefined symbol: log".
		{workload.FFT, "64Ki"}} {
		sh, err := workload.ParseShape(tc.op, tc.size)
		if err != nil {
			t.Fatal(err)
		}
		w := workload.Workload{Op: tc.op, DType: workload.F32, Shape: sh}
		d := w.NewData(3)
		k, err := b.Prepare(w, d, backend.Config{Threads: 2, Copies: 2})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.op, tc.size, err)
		}
		if _, err := k.Run(3); err != nil {
			t.Fatal(err)
		}
		out, err := k.Output()
		if err != nil {
			t.Fatal(err)
		}
		if c := w.Verify(d, out); !c.OK {
			t.Errorf("%s %s: %s", tc.op, tc.size, c.Detail)
		}
		if p := backend.PlanTimeOf(k); p <= 0 {
			t.Errorf("%s %s: plan time %v; want the commit's", tc.op, tc.size, p)
		}
		k.Close()
	}
}

// TestDFTOnlyMKL: a library other than MKL refuses a DFT as unsupported.
func TestDFTOnlyMKL(t *testing.T) {
	lib, err := cgocblas.Open("openblas")
	if err != nil {
		t.Skip(err)
	}
	defer lib.Close()
	if lib.HasDFT() {
		t.Error("openblas has DFTI")
	}
	_, _, err = lib.PrepareDFT(cgocblas.F32, cgocblas.DFTSpec{Kind: cgocblas.DFTForward, Dims: []int{8}, Batch: 1}, cgocblas.JobOptions{})
	if !errors.Is(err, cgocblas.ErrUnsupported) {
		t.Errorf("openblas dft: err = %v; want ErrUnsupported", err)
	}
}
