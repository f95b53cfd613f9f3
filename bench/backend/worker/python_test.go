package worker

import (
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/native"
)

// openPython opens a shipped worker backend, skipping when its framework
// is not installed, unless PEAKBENCH_REQUIRE_LIBS names it (CI installs
// PyTorch and NumPy: there they must load).
func openPython(t *testing.T, name string) backend.Backend {
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

func TestTorchConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PyTorch")
	}
	b := openPython(t, "torch")
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
	b := openPython(t, "numpy")
	info := b.Info()
	t.Logf("numpy %s %v", info.Version, info.Details)
	if info.Version == "" || info.Details["python"] == "" {
		t.Errorf("Info() = %+v; want a version and the interpreter", info)
	}
	backendtest.Run(t, b)
}
