//go:build cgo

package cudnn_test

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cuda"
	"github.com/peakbench/peakbench/cgo/cuda/gpufake"
	"github.com/peakbench/peakbench/cgo/cudnn"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

func TestOps(t *testing.T) {
	gpufake.Require(t)
	rt, err := cuda.Open()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := rt.OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	lib, err := cudnn.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if lib.Version() != "9.1.0" {
		t.Errorf("version %q", lib.Version())
	}
	x := []float64{-2, -0.5, 0, 1, 3}
	y := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct {
		op   cudnn.Op
		in   [][]float64
		want []float64
	}{
		{cudnn.Add, [][]float64{x, y}, []float64{-1, 1.5, 3, 5, 8}},
		{cudnn.Mul, [][]float64{x, y}, []float64{-2, -1, 0, 4, 15}},
		{cudnn.ReLU, [][]float64{x}, []float64{0, 0, 0, 1, 3}},
		{cudnn.Tanh, [][]float64{x}, []float64{math.Tanh(-2), math.Tanh(-0.5), 0, math.Tanh(1), math.Tanh(3)}},
		{cudnn.Sigmoid, [][]float64{x}, []float64{1 / (1 + math.Exp(2)), 1 / (1 + math.Exp(0.5)), 0.5, 1 / (1 + math.Exp(-1)), 1 / (1 + math.Exp(-3))}},
		{cudnn.Sum, [][]float64{x}, []float64{1.5}},
		{cudnn.Max, [][]float64{x}, []float64{3}},
	} {
		job, err := lib.Prepare(c.op, cuda.F32, len(x), cuda.JobOptions{Copies: 2})
		if err != nil {
			t.Fatalf("%v: %v", c.op, err)
		}
		for i, in := range c.in {
			if err := job.SetInput(i, in); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := job.Run(3); err != nil {
			t.Fatalf("%v: %v", c.op, err)
		}
		got, err := job.Output()
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.want {
			if math.Abs(got[i]-c.want[i]) > 1e-6 {
				t.Errorf("%v = %v; want %v", c.op, got, c.want)
				break
			}
		}
		job.Close()
	}
	job, err := lib.PrepareSoftmax(cuda.F32, 2, 2, cuda.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job.SetInput(0, []float64{0, 0, 1, 1 + math.Log(3)})
	job.Run(1)
	got, _ := job.Output()
	if math.Abs(got[0]-0.5) > 1e-6 || math.Abs(got[2]-0.25) > 1e-6 || math.Abs(got[3]-0.75) > 1e-6 {
		t.Errorf("softmax = %v", got)
	}
	job.Close()
	if _, err := lib.Prepare(cudnn.ReLU, cuda.F64, 4, cuda.JobOptions{}); !errors.Is(err, cuda.ErrUnsupported) {
		t.Errorf("f64: %v", err)
	}
	if _, err := lib.Prepare(cudnn.Softmax, cuda.F32, 4, cuda.JobOptions{}); err == nil || !strings.Contains(err.Error(), "PrepareSoftmax") {
		t.Errorf("Prepare(Softmax): %v", err)
	}
	if _, err := cudnn.ParseOp("exp"); err == nil {
		t.Error("cuDNN has no exp")
	}
}
