//go:build cgo

package cudnn_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cudnn"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gpufake.Cleanup()
	os.Exit(code)
}

// cudnn8Tree copies the fake cuDNN 8 (libcudnn.so.8 and its sub-libraries)
// into a folder of its own, leaving out the files named in without, and
// points PEAKBENCH_CUDNN at its libcudnn.so.8.
func cudnn8Tree(t *testing.T, libs *gpufake.Libs, without ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range append([]string{libs.CUDNN8}, libs.CUDNN8Sub...) {
		if slices.Contains(without, filepath.Base(f)) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PEAKBENCH_CUDNN", filepath.Join(dir, "libcudnn.so.8"))
	return dir
}

// TestCUDNN8WithoutOps: cuDNN 8 needs libcudnn_ops_infer.so.8 for every
// call and aborts the process when it does not load; without it beside
// libcudnn.so.8 the open fails first, saying so. (The cuDNN 8 tests run
// first: once a sub-library is loaded, its soname alone finds it.)
func TestCUDNN8WithoutOps(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.Open)
	dir := cudnn8Tree(t, libs, "libcudnn_ops_infer.so.8")
	lib, err := cudnn.Open(dev)
	if err == nil {
		lib.Close()
		t.Skipf("a libcudnn_ops_infer.so.8 is loaded or on the linker's path already: %s", lib.Details()["sublibraries"])
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := "cudnn: " + real + "/libcudnn.so.8 is cuDNN 8, whose every call needs libcudnn_ops_infer.so.8: " +
		"libcudnn_ops_infer.so.8 missing (not beside " + real + "/libcudnn.so.8, nor on the linker's path); " +
		"install cuDNN (NVIDIA's packages, or `pip install nvidia-cudnn-cu12` for CUDA 12, `nvidia-cudnn-cu13` for CUDA 13)"
	var le *gpurt.LoadError
	if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Open: %v\nwant a *LoadError starting %q", err, want)
	}
}

// TestCUDNN8WithoutCNN: without libcudnn_cnn_infer.so.8 the tensor ops
// work, and a convolution is "not available" with the reason before any
// cuDNN call that would abort.
func TestCUDNN8WithoutCNN(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.Open)
	dir := cudnn8Tree(t, libs, "libcudnn_cnn_infer.so.8")
	lib, err := cudnn.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if lib.Details()["conv"] == "" && strings.Contains(lib.Details()["sublibraries"], "libcudnn_cnn_infer.so.8") {
		t.Skipf("a libcudnn_cnn_infer.so.8 is loaded or on the search path already: %v", lib.Details())
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := "not available: libcudnn_cnn_infer.so.8 missing (not beside " + real + "/libcudnn.so.8, nor on the linker's path)"
	if got := lib.Details()["conv"]; got != want {
		t.Errorf("Details()[conv] = %q; want %q", got, want)
	}
	g := cudnn.Layer{N: 1, C: 1, K: 1, In: [3]int{1, 3, 3}, Window: [3]int{1, 2, 2}, Stride: [3]int{1, 1, 1},
		Dil: [3]int{1, 1, 1}, Out: [3]int{1, 2, 2}, Rank: 2}
	_, err = lib.PrepareConv(gpurt.F32, g, gpurt.JobOptions{})
	if err == nil || !strings.Contains(err.Error(), "cudnn: cuda:0: conv "+want) || errors.Is(err, gpurt.ErrUnsupported) {
		t.Errorf("PrepareConv: %v", err)
	}
	job, err := lib.Prepare(cudnn.ReLU, gpurt.F32, 3, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	job.SetInput(0, []float64{-1, 0, 2})
	if _, err := job.Run(1); err != nil {
		t.Fatal(err)
	}
	if got, _ := job.Output(); !slices.Equal(got, []float64{0, 0, 2}) {
		t.Errorf("relu = %v", got)
	}
}

// TestCUDNN8: every sub-library beside libcudnn.so.8 is made resident at
// open, so the fake shim's own load of libcudnn_cnn_infer.so.8 by soname at
// the first convolution call succeeds.
func TestCUDNN8(t *testing.T) {
	libs, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PEAKBENCH_CUDNN", libs.CUDNN8)
	lib, err := cudnn.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	d := lib.Details()
	if lib.Version() != "8.9.7" || d["conv"] != "" || d["built_for_cuda"] != "12.2" ||
		!strings.Contains(d["sublibraries"], filepath.Join(filepath.Dir(libs.CUDNN8), "libcudnn_cnn_infer.so.8")) {
		t.Errorf("version %q, details %v", lib.Version(), d)
	}
	if n := strings.Count(d["sublibraries"], ","); n != len(libs.CUDNN8Sub)-1 {
		t.Errorf("sublibraries %q: want all %d", d["sublibraries"], len(libs.CUDNN8Sub))
	}
	// y[i][j] = x[i][j] + x[i+1][j+1]
	g := cudnn.Layer{N: 1, C: 1, K: 1, In: [3]int{1, 3, 3}, Window: [3]int{1, 2, 2}, Stride: [3]int{1, 1, 1},
		Dil: [3]int{1, 1, 1}, Out: [3]int{1, 2, 2}, Rank: 2}
	job, err := lib.PrepareConv(gpurt.F32, g, gpurt.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	job.SetInput(0, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	job.SetInput(1, []float64{1, 0, 0, 1})
	if _, err := job.Run(2); err != nil {
		t.Fatal(err)
	}
	if got, _ := job.Output(); !slices.Equal(got, []float64{6, 8, 12, 14}) {
		t.Errorf("conv = %v; want [6 8 12 14]", got)
	}
	if a := cudnn.Algorithm(job); a != "IMPLICIT_PRECOMP_GEMM" {
		t.Errorf("algorithm %q", a)
	}
}

// TestCUDARTMismatch: the CUDA 12 and 13 builds of cuDNN 9 share a soname;
// one built for another CUDA major than the runtime's is refused at open,
// naming both.
func TestCUDARTMismatch(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	t.Setenv("PB_FAKE_CUDNN_CUDART", "13000")
	_, err := cudnn.Open(dev)
	if err == nil {
		t.Fatal("cuDNN for CUDA 13 on a CUDA 12.4 runtime: opened")
	}
	for _, want := range []string{"is cuDNN 9.1.0 built for CUDA 13.0 (cudnnGetCudartVersion 13000), but the CUDA runtime loaded is 12.4 (",
		"nvidia-cudnn-cu12", "PEAKBENCH_CUDNN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open: %v\nlacks %q", err, want)
		}
	}
	t.Setenv("PB_FAKE_CUDNN_CUDART", "12080") // another minor: compatible
	lib, err := cudnn.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if v := lib.Details()["built_for_cuda"]; v != "12.8" {
		t.Errorf("built_for_cuda %q", v)
	}
}

func TestOps(t *testing.T) {
	gpufake.Require(t)
	rt, err := gpurt.Open()
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
		job, err := lib.Prepare(c.op, gpurt.F32, len(x), gpurt.JobOptions{Copies: 2})
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
	job, err := lib.PrepareSoftmax(gpurt.F32, 2, 2, gpurt.JobOptions{})
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
	if _, err := lib.Prepare(cudnn.ReLU, gpurt.F64, 4, gpurt.JobOptions{}); !errors.Is(err, gpurt.ErrUnsupported) {
		t.Errorf("f64: %v", err)
	}
	if _, err := lib.Prepare(cudnn.Softmax, gpurt.F32, 4, gpurt.JobOptions{}); err == nil || !strings.Contains(err.Error(), "PrepareSoftmax") {
		t.Errorf("Prepare(Softmax): %v", err)
	}
	if _, err := cudnn.ParseOp("exp"); err == nil {
		t.Error("cuDNN has no exp")
	}
}
