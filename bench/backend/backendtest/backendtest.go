// Package backendtest is the conformance suite every backend passes: each
// op it supports, in both dtypes, on small odd shapes (all gemm transposes),
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
	"github.com/peakbench/peakbench/native"
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
	b, err := f.Open()
	if err != nil {
		if native.Required(name) {
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
	workload.KindMatMul: {"1", "3x5x7", "17x33x65", "64", "3x5x7:NT", "17x33x65:TN", "17x33x65:TT", "64:TT"},
	workload.KindMatVec: {"1", "7x13", "65x33"},
	workload.KindVector: {"1", "7", "64", "1000", "4099"},
	workload.KindRows:   {"1x1", "3x7", "17x130"},
}

// Run checks every op b supports. It fails when b supports none.
func Run(t *testing.T, b backend.Backend) {
	t.Helper()
	supported := 0
	for _, op := range workload.Ops {
		for _, dt := range workload.DTypes {
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
						if !check(t, b, w, cfg) {
							t.Skip("not supported")
						}
						supported++
					})
					if !ok {
						break
					}
				}
			}
		}
	}
	if supported == 0 {
		t.Errorf("%s supports no op", b.Name())
	}
}

// check verifies one workload; it reports false when b does not support it.
func check(t *testing.T, b backend.Backend, w workload.Workload, cfg backend.Config) bool {
	data := w.NewData(1)
	orig := cloneData(data)
	k, err := b.Prepare(w, data, cfg)
	if errors.Is(err, backend.ErrUnsupported) {
		return false
	}
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer func() {
		if err := k.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
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
	return true
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
