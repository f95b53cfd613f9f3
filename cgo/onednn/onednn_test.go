//go:build cgo

package onednn_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/onednn"
	"github.com/peakbench/peakbench/native"
	"github.com/peakbench/peakbench/native/nativetest"
)

func open(t *testing.T) *onednn.Library {
	t.Helper()
	l, err := onednn.Open()
	if err != nil {
		if nativetest.Required("onednn") {
			t.Fatalf("PEAKBENCH_REQUIRE_LIBS names onednn: %v", err)
		}
		t.Skipf("onednn unavailable: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestInfo(t *testing.T) {
	l := open(t)
	d := l.Details()
	t.Logf("%v %v", l, d)
	if !strings.HasPrefix(l.Version(), "2.") || d["threading"] == "" || !filepath.IsAbs(l.Path()) {
		t.Errorf("version %q, path %q, details %v", l.Version(), l.Path(), d)
	}
	if d["threading"] == "openmp" && d["threading_runtime"] == "" {
		t.Errorf("OpenMP runtime not named: %v", d)
	}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// reference computes op in float64 on float32-exact inputs.
func reference(op onednn.Op, x, y []float64, rows, cols int) []float64 {
	switch op {
	case onednn.Sum, onednn.Max:
		r := x[0]
		if op == onednn.Sum {
			r = 0
		}
		for _, v := range x {
			if op == onednn.Sum {
				r += v
			} else {
				r = math.Max(r, v)
			}
		}
		return []float64{r}
	case onednn.Softmax:
		out := make([]float64, len(x))
		for r := 0; r < rows; r++ {
			row, o := x[r*cols:(r+1)*cols], out[r*cols:(r+1)*cols]
			m := math.Inf(-1)
			for _, v := range row {
				m = math.Max(m, v)
			}
			s := 0.0
			for j, v := range row {
				o[j] = math.Exp(v - m)
				s += o[j]
			}
			for j := range o {
				o[j] /= s
			}
		}
		return out
	}
	out := make([]float64, len(x))
	for i, v := range x {
		switch op {
		case onednn.ReLU:
			out[i] = math.Max(v, 0)
		case onednn.Sigmoid:
			out[i] = sigmoid(v)
		case onednn.Tanh:
			out[i] = math.Tanh(v)
		case onednn.Exp:
			out[i] = math.Exp(v)
		case onednn.Add:
			out[i] = v + y[i]
		case onednn.Mul:
			out[i] = v * y[i]
		}
	}
	return out
}

func TestOps(t *testing.T) {
	l := open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for op := onednn.ReLU; op <= onednn.Softmax; op++ {
		for _, shape := range [][2]int{{1, 1}, {1, 7}, {1, 1000}, {3, 17}, {1, 4099}} {
			rows, cols := shape[0], shape[1]
			if op != onednn.Softmax && rows != 1 {
				continue
			}
			for _, threads := range []int{1, 2} {
				name := fmt.Sprintf("%v/%dx%d/threads=%d", op, rows, cols, threads)
				n := rows * cols
				x, y := make([]float64, n), make([]float64, n)
				for i := range x {
					x[i] = float64(float32(16*rng.Float64() - 8))
					y[i] = float64(float32(2*rng.Float64() - 1))
				}
				opt := onednn.JobOptions{Copies: 3, Threads: threads}
				var (
					j   *onednn.Job
					err error
				)
				if op == onednn.Softmax {
					j, err = l.PrepareSoftmax(onednn.F32, rows, cols, opt)
				} else {
					j, err = l.Prepare(op, onednn.F32, n, opt)
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := j.SetInput(0, x); err != nil {
					t.Fatal(err)
				}
				if nargs, _ := j.Args(); nargs == 3 {
					j.SetInput(1, y)
				}
				if _, err := j.Run(5); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, err := j.Output()
				j.Close()
				if err != nil {
					t.Fatal(err)
				}
				want := reference(op, x, y, rows, cols)
				for i := range want {
					tol := 1e-5 * math.Abs(want[i])
					if op == onednn.Sum {
						tol = 1e-6 * 8 * float64(n)
					}
					if op == onednn.Softmax {
						tol = 1e-5*math.Abs(want[i]) + 1e-7
					}
					if math.Abs(got[i]-want[i]) > tol {
						t.Fatalf("%s (%s): [%d] = %g; want %g", name, j, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestUnsupported(t *testing.T) {
	l := open(t)
	_, err := l.Prepare(onednn.Exp, onednn.F64, 8, onednn.JobOptions{})
	if !errors.Is(err, onednn.ErrUnsupported) || !strings.Contains(err.Error(), "f64") {
		t.Errorf("f64: err = %v; want ErrUnsupported naming f64", err)
	}
	for _, n := range []int{0, -1, 10000} {
		if err := l.SetThreads(n); !errors.Is(err, onednn.ErrInvalid) || !strings.Contains(err.Error(), "accepted: 1 to 1024") {
			t.Errorf("SetThreads(%d) = %v; want ErrInvalid naming the range", n, err)
		}
	}
	if err := l.SetThreads(2); err != nil || l.Threads() != 2 {
		t.Errorf("SetThreads(2) = %v, Threads() = %d", err, l.Threads())
	}
	if _, err := l.Prepare(onednn.Softmax, onednn.F32, 8, onednn.JobOptions{}); err == nil {
		t.Error("Prepare(Softmax): no error")
	}
	if _, err := l.Prepare(onednn.ReLU, onednn.F32, 0, onednn.JobOptions{}); err == nil {
		t.Error("Prepare with n=0: no error")
	}
}

func TestLoadErrors(t *testing.T) {
	_, err := onednn.OpenPath("/nonexistent/libdnnl.so.2")
	var le *onednn.LoadError
	if !errors.As(err, &le) || len(le.Tried) != 1 || !strings.Contains(err.Error(), "install libdnnl-dev") {
		t.Errorf("missing file: err = %v; want a LoadError with the path tried and a hint", err)
	}
	if _, err := os.Stat("/lib/x86_64-linux-gnu/libm.so.6"); err == nil {
		_, err = onednn.OpenPath("/lib/x86_64-linux-gnu/libm.so.6")
		if err == nil || !strings.Contains(err.Error(), "missing symbol dnnl_version") {
			t.Errorf("libm: err = %v; want a missing dnnl_version", err)
		}
	}
}

// TestVersionRefused builds a fake libdnnl whose dnnl_version says 3.1.0.
func TestVersionRefused(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler:", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fake.c")
	code := `typedef struct { int major, minor, patch; const char *hash; unsigned cpu_runtime, gpu_runtime; } v_t;
static const v_t v = {3, 1, 0, "fake", 2, 0};
const v_t *dnnl_version(void) { return &v; }
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "libdnnl.so.3")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	_, err = onednn.OpenPath(so)
	var ce *onednn.Error
	if !errors.As(err, &ce) || ce.Status != native.Version || !strings.Contains(err.Error(), "oneDNN 3.1.0") {
		t.Errorf("err = %v; want a version refusal naming 3.1.0", err)
	}
}

// TestHas: what HasLayer and HasDType say the library lacks, the C layer
// refuses with ErrUnsupported, and what they say it has, it prepares (the
// onednn backend declares its ops from them).
func TestHas(t *testing.T) {
	l := open(t)
	g := onednn.Layer{N: 1, C: 4, K: 2, In: [3]int{1, 4, 4}, Window: [3]int{1, 1, 1}, Stride: [3]int{1, 1, 1},
		Dil: [3]int{1, 1, 1}, Out: [3]int{1, 2, 2}, Rank: 2, Groups: 2}
	for op := onednn.Conv; op <= onednn.GroupNorm; op++ {
		for _, dt := range []onednn.DType{onednn.F32, onednn.F64} {
			j, err := l.PrepareLayer(op, dt, g, onednn.LayerOptions{})
			if has := l.HasLayer(op) && l.HasDType(dt); has != (err == nil) || (!has && !errors.Is(err, onednn.ErrUnsupported)) {
				t.Errorf("%s %v: HasLayer %v, HasDType %v; PrepareLayer: %v", op, dt, l.HasLayer(op), l.HasDType(dt), err)
			}
			if j != nil {
				j.Close()
			}
		}
	}
	if _, err := l.Prepare(onednn.ReLU, onednn.F64, 4, onednn.JobOptions{}); l.HasDType(onednn.F64) || !errors.Is(err, onednn.ErrUnsupported) {
		t.Errorf("relu f64: HasDType %v; Prepare: %v", l.HasDType(onednn.F64), err)
	}
}
