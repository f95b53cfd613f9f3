package worker

import (
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
