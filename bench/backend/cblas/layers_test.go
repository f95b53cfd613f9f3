package cblas_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/workload"
)

func TestLayers(t *testing.T) {
	b := backendtest.Open(t, "openblas")
	sh, _ := workload.ParseShape(workload.Conv2D, "1x8x9x9:4x3x3:p1")
	w := workload.Workload{Op: workload.Conv2D, DType: workload.F32, Shape: sh}
	k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if a := backend.AlgorithmOf(k, ""); a != "im2col+gemm" {
		t.Errorf("algorithm %q", a)
	}
	if got := b.(backend.BackendAlgorithms).Algorithms(w); len(got) != 1 || got[0] != "im2col+gemm" {
		t.Errorf("Algorithms = %v", got)
	}
	for _, op := range []workload.Op{workload.MaxPool, workload.BatchNorm} {
		sh, _ := workload.ParseShape(op, map[workload.Op]string{workload.MaxPool: "1x2x4x4:2x2", workload.BatchNorm: "1x2x4x4"}[op])
		w := workload.Workload{Op: op, DType: workload.F32, Shape: sh}
		if _, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1}); !errors.Is(err, backend.ErrUnsupported) {
			t.Errorf("%s: err = %v; want ErrUnsupported", op, err)
		}
	}
}

// TestConvParallelLowering: column matrices large enough to be lowered on
// several threads (over 256 KiB), both layouts, verified.
func TestConvParallelLowering(t *testing.T) {
	b := backendtest.Open(t, "openblas")
	for _, spec := range []string{"2x32x28x28:16x3x3:p1", "2x32x28x28:16x3x3:p1:nhwc", "1x16x30x30:8x5x5:s2:p2:d2"} {
		sh, err := workload.ParseShape(workload.Conv2D, spec)
		if err != nil {
			t.Fatal(err)
		}
		w := workload.Workload{Op: workload.Conv2D, DType: workload.F32, Shape: sh}
		d := w.NewData(2)
		k, err := b.Prepare(w, d, backend.Config{Threads: 2, Copies: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Run(3); err != nil {
			t.Fatal(err)
		}
		out, err := k.Output()
		if err != nil {
			t.Fatal(err)
		}
		if c := w.Verify(d, out); !c.OK {
			t.Errorf("%s: %s", spec, c.Detail)
		}
		k.Close()
	}
}
