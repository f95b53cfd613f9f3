// Package backendtest is the conformance suite every backend passes: each
// op it declares (backend.Declarer), in both dtypes, on small odd shapes (all gemm transposes),
// with one and two threads and one and three buffer copies, verified against
// the float64 reference. A backend's test calls it in one line:
//
//	func TestConformance(t *testing.T) { backendtest.Run(t, b) }
package backendtest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/native/nativetest"
)

// Open opens the registered backend name for a test and closes it when the
// test ends. A backend that cannot open skips the test, unless
// PEAKBENCH_REQUIRE_LIBS names it (CI installs those: there they must load).
func Open(t *testing.T, name string) backend.Backend {
	t.Helper()
	f, err := backend.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Open(backend.OpenOptions{})
	if err != nil {
		if nativetest.Required(name) {
			t.Fatalf("PEAKBENCH_REQUIRE_LIBS names %s: %v", name, err)
		}
		t.Skipf("%s unavailable: %v", name, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// shapes per op kind: sizes that straddle vector widths and block edges.
var shapes = map[workload.Kind][]string{
	workload.KindMatMul: {"1", "3x5x7", "17x33x65", "64", "3x5x7:NT", "64:NT", "17x33x65:TN", "17x33x65:TT", "64:TT"},
	workload.KindMatVec: {"1", "7x13", "65x33"},
	workload.KindVector: {"1", "7", "64", "1000", "4099"},
	workload.KindRows:   {"1x1", "3x7", "17x130"},
	// Every size class of the Fourier transforms: 1, powers of two (even
	// and odd exponents), 3·2^k, 5·2^k, a prime, a batch, 2-D, odd rfft rows.
	workload.KindFFT: {"1", "64", "512", "3x96", "160", "4099", "2x8x12:2d", "15"},
	// Sparse: one entry; a rectangle with empty rows; a power law big
	// enough to be split between threads.
	workload.KindSparse: {"banded:n=1:bw=0", "uniform:rows=37:cols=29:nnz=100", "powerlaw:n=2000:nnz=40000:seed=3"},
}

// Run checks every op b supports, and holds b to what it declares
// (backend.Declarer): it fails when b
//   - declares nothing, or supports no op;
//   - refuses an op × dtype it declares with ErrUnsupported (a refusal of
//     one shape or configuration must wrap backend.ErrUnsupportedShape);
//   - declares an op × dtype and computes it on none of the suite's shapes;
//   - computes an op × dtype it does not declare.
//
// So a backend that regresses to "unsupported" on an op fails here rather
// than passing by skipping it.
func Run(t *testing.T, b backend.Backend) {
	t.Helper()
	declared := backend.DeclaredBy(b)
	if len(declared) == 0 {
		t.Fatalf("%s declares no ops (backend.Declarer)", b.Name())
	}
	for op, dts := range declared {
		for _, dt := range dts {
			if !op.Accepts(dt) {
				t.Errorf("%s declares %s %s, which is not defined in %s", b.Name(), op, dt, dt)
			}
		}
	}
	computed := backend.Support{}
	for _, op := range workload.Ops {
		for _, dt := range dtypesFor(declared, op) {
			for _, spec := range specsFor(op) { // layer ops: layers.go
				sh, err := workload.ParseShape(op, spec)
				if err != nil {
					t.Fatal(err)
				}
				w := workload.Workload{Op: op, DType: dt, Shape: sh}
				for _, cfg := range configs(b, w) {
					name := fmt.Sprintf("%s/%s/%s/threads=%d/copies=%d", op, dt, spec, cfg.Threads, cfg.Copies)
					if cfg.Algorithm != "" {
						name += "/algorithm=" + cfg.Algorithm
					}
					ok := t.Run(name, func(t *testing.T) {
						if why := check(t, b, declared, w, cfg); why != "" {
							t.Skip(why)
						}
						computed.Add([]workload.DType{dt}, op)
					})
					if !ok {
						break
					}
				}
			}
		}
	}
	if len(computed) == 0 {
		t.Errorf("%s supports no op", b.Name())
	}
	for _, op := range workload.Ops {
		for _, dt := range declared[op] {
			if len(specsFor(op)) > 0 && !computed.Has(op, dt) {
				t.Errorf("%s declares %s %s but computed it on none of the suite's shapes", b.Name(), op, dt)
			}
		}
	}
}

// dtypesFor lists the dtypes Run checks op in: f32 and f64, and the
// reduced-precision types declared for it.
func dtypesFor(declared backend.Support, op workload.Op) []workload.DType {
	if op.Quant() {
		return declared[op] // quant.go: only their own dtypes, as declared
	}
	dts := slices.Clone(workload.DTypes)
	for _, dt := range workload.GEMMDTypes {
		if declared.Has(op, dt) {
			dts = append(dts, dt)
		}
	}
	return dts
}

// check verifies one workload. It returns why it was skipped: "" when b
// computed it, else the reason b refused (a pair b does not declare, or a
// shape of one it does, wrapping ErrUnsupportedShape).
func check(t *testing.T, b backend.Backend, declared backend.Support, w workload.Workload, cfg backend.Config) string {
	data := w.NewData(1)
	orig := cloneData(data)
	k, err := b.Prepare(w, data, cfg)
	switch {
	case errors.Is(err, backend.ErrUnsupported) && !declared.Has(w.Op, w.DType):
		return "not declared: " + err.Error()
	case errors.Is(err, backend.ErrUnsupportedShape):
		return "shape or configuration refused: " + err.Error()
	case errors.Is(err, backend.ErrUnsupported):
		t.Fatalf("%s declares %s %s, but Prepare refuses it: %v", b.Name(), w.Op, w.DType, err)
	case err != nil:
		t.Fatalf("Prepare: %v", err)
	}
	defer func() {
		if err := k.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if !declared.Has(w.Op, w.DType) {
		t.Fatalf("%s computes %s %s, which it does not declare", b.Name(), w.Op, w.DType)
	}
	if !equalData(data, orig) {
		t.Fatal("Prepare modified the caller's inputs")
	}
	if got := backend.AlgorithmOf(k, cfg.Algorithm); got != cfg.Algorithm && cfg.Algorithm != "" {
		t.Errorf("prepared for algorithm %q, the kernel says %q", cfg.Algorithm, got)
	}
	d, err := k.Run(1)
	if err != nil {
		t.Fatalf("Run(1): %v", err)
	}
	if d <= 0 {
		t.Errorf("Run(1) took %v; want a positive duration", d)
	}
	out, err := k.Output()
	if err != nil {
		t.Fatalf("Output: %v", err)
	}
	if c := w.Verify(data, out); !c.OK {
		t.Fatalf("wrong result after one run: %s (max error %.3g > tolerance %.3g)", c.Detail, c.MaxRelErr, c.Tolerance)
	}
	// More iterations, rotating through every copy, keep the result right
	// (axpy accumulates into y by definition, so it is not rechecked).
	if _, err := k.Run(2*cfg.Copies + 1); err != nil {
		t.Fatalf("Run(%d): %v", 2*cfg.Copies+1, err)
	}
	if w.Op != workload.AXPY {
		out, err := k.Output()
		if err != nil {
			t.Fatalf("Output: %v", err)
		}
		if c := w.Verify(data, out); !c.OK {
			t.Fatalf("wrong result after repeated runs: %s", c.Detail)
		}
	}
	return ""
}

func cloneData(d workload.Data) workload.Data {
	c := workload.Data{Alpha: d.Alpha}
	for _, a := range d.Args {
		c.Args = append(c.Args, slices.Clone(a))
	}
	return c
}

func equalData(a, b workload.Data) bool {
	if a.Alpha != b.Alpha || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if !slices.Equal(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}
