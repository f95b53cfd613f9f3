package worker

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
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
