package onednn_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	_ "github.com/peakbench/peakbench/bench/backend/onednn"
	"github.com/peakbench/peakbench/bench/workload"
)

func TestConformance(t *testing.T) {
	b := backendtest.Open(t, "onednn")
	info := b.Info()
	t.Logf("onednn %s %v", info.Version, info.Details)
	if info.Version == "" || info.Details["path"] == "" {
		t.Errorf("Info() = %+v; want a version and a path", info)
	}
	backendtest.Run(t, b)
}

func TestUnsupported(t *testing.T) {
	b := backendtest.Open(t, "onednn")
	for _, w := range []workload.Workload{
		{Op: workload.Exp, DType: workload.F64, Shape: workload.Shape{N: 8}},
		{Op: workload.GEMM, DType: workload.F64, Shape: workload.Shape{M: 2, N: 2, K: 2}},
		{Op: workload.GEMV, DType: workload.F32, Shape: workload.Shape{M: 2, N: 2}},
		{Op: workload.Quantize, DType: workload.BF16, Shape: workload.Shape{N: 8}},
	} {
		_, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
		if !errors.Is(err, backend.ErrUnsupported) {
			t.Errorf("%v: err = %v; want ErrUnsupported", w, err)
		}
	}
	w := workload.Workload{Op: workload.Exp, DType: workload.F32, Shape: workload.Shape{N: 8}}
	for _, n := range []int{-1, 10000} {
		if _, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: n, Copies: 1}); err == nil {
			t.Errorf("threads %d: no error", n)
		}
	}
}
