package worker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/workload"
)

func TestTorchConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PyTorch")
	}
	b := backendtest.Open(t, "torch")
	info := b.Info()
	t.Logf("torch %s %v", info.Version, info.Details)
	if info.Version == "" || info.Details["python"] == "" {
		t.Errorf("Info() = %+v; want a version and the interpreter", info)
	}
	backendtest.Run(t, b)
}

func TestNumPyConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NumPy")
	}
	b := backendtest.Open(t, "numpy")
	info := b.Info()
	t.Logf("numpy %s %v", info.Version, info.Details)
	if info.Version == "" || info.Details["python"] == "" {
		t.Errorf("Info() = %+v; want a version and the interpreter", info)
	}
	backendtest.Run(t, b)
}

// TestFrameworksControlTheirBLASThreads: a framework's own thread setting
// does not reach the BLAS it loaded (torch.set_num_threads(1) left Debian's
// OpenBLAS on 2 threads, and a "1-thread" SGEMM ran on both cores), so each
// worker that has a BLAS mapped must name the call that sets its threads.
func TestFrameworksControlTheirBLASThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the frameworks")
	}
	for _, name := range []string{"torch", "numpy"} {
		t.Run(name, func(t *testing.T) {
			d := backendtest.Open(t, name).Info().Details
			if d["blas"] == "" {
				t.Skipf("no BLAS library mapped in the worker: %v", d)
			}
			if !strings.Contains(d["threads"], "threadpoolctl") && !strings.Contains(d["threads"], "set_num_threads") && !strings.Contains(d["threads"], "Set_Num_Threads") ||
				strings.Contains(d["threads"], "not controlled") {
				t.Errorf("%s loads %s but sets its threads by %q", name, d["blas"], d["threads"])
			}
			if name == "torch" && !strings.Contains(d["threads"], "BLAS: ") {
				t.Errorf("torch's threads %q: want the BLAS's own call beside torch.set_num_threads", d["threads"])
			}
		})
	}
}

// TestFrameworkTransformsAndSparseCalls: the workers time the calls
// docs/workers.md names: scipy.fft (numpy.fft would compute f32 in
// complex128) and torch.fft, the 2-D forms for a 2-D transform, and each
// framework's CSR product; the conformance suite checks their results.
func TestFrameworkTransformsAndSparseCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the frameworks")
	}
	type call struct{ op, shape, want string }
	sparse := "banded:n=64:bw=2"
	for name, calls := range map[string][]call{
		"numpy": {
			{"fft", "64", "scipy.fft.fft(x"},
			{"ifft", "4x8x12:2d", `scipy.fft.ifft2(x, norm="forward"`},
			{"rfft", "3x96", "scipy.fft.rfft(x"},
			{"spmv", sparse, "scipy.sparse.csr_matrix A @ x"},
			{"spmm", sparse, "scipy.sparse.csr_matrix A @ X"},
		},
		"torch": {
			{"fft", "64", "torch.fft.fft(x, out=y)"},
			{"ifft", "4x8x12:2d", `torch.fft.ifft2(x, norm="forward", out=y)`},
			{"rfft", "8x12:2d", "torch.fft.rfft2(x, out=y)"},
			{"spmv", sparse, "(A_csr, x"}, // torch.mv, or a one-column torch.mm where torch.mv refuses CSR
			{"spmm", sparse, "torch.mm(A_csr, X, out=Y)"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := backendtest.Open(t, name)
			for _, c := range calls {
				t.Run(c.op, func(t *testing.T) { checkCall(t, b, c.op, c.shape, c.want) })
			}
		})
	}
}

// checkCall prepares op on shape in f32 and checks that the kernel's
// implementation names want.
func checkCall(t *testing.T, b backend.Backend, opName, shape, want string) {
	op, err := workload.ParseOp(opName)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := workload.ParseShape(op, shape)
	if err != nil {
		t.Fatal(err)
	}
	w := workload.Workload{Op: op, DType: workload.F32, Shape: sh}
	k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if got := backend.ImplementationOf(k); !strings.Contains(got, want) {
		t.Errorf("implementation %q; want it to name %q", got, want)
	}
}

// TestNumPyWithoutSciPyFFT: a SciPy without scipy.fft (before 1.4) leaves
// the transforms out of the numpy worker's hello, and a prepare of one is
// refused with the reason, not as a shape the worker cannot run.
func TestNumPyWithoutSciPyFFT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NumPy")
	}
	dir := t.TempDir()
	hook := `import sys
class NoSciPyFFT:
    def find_spec(self, name, path=None, target=None):
        if name == "scipy.fft" or name.startswith("scipy.fft."):
            raise ImportError("No module named 'scipy.fft'")
sys.meta_path.insert(0, NoSciPyFFT())
`
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", dir)
	b := backendtest.Open(t, "numpy")
	if backend.DeclaredBy(b).Has(workload.FFT, workload.F32) {
		t.Fatal("fft declared without scipy.fft")
	}
	if !backend.DeclaredBy(b).Has(workload.SpMV, workload.F64) {
		t.Error("spmv not declared: only scipy.fft was hidden")
	}
	w := workload.Workload{Op: workload.FFT, DType: workload.F32, Shape: workload.Shape{M: 1, N: 64}}
	_, err := b.Prepare(w, w.NewData(1), backend.Config{})
	if !errors.Is(err, backend.ErrUnsupported) || errors.Is(err, backend.ErrUnsupportedShape) || !strings.Contains(err.Error(), "has no scipy.fft") {
		t.Errorf("Prepare(fft) = %v; want ErrUnsupported saying SciPy has no scipy.fft", err)
	}
}
