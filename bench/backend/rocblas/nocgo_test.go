//go:build !cgo

package rocblas_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	_ "github.com/peakbench/peakbench/bench/backend/rocblas"
	"github.com/peakbench/peakbench/cgo/cuda"
)

func TestNoCgo(t *testing.T) {
	f, err := backend.Lookup("rocblas")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Open(backend.OpenOptions{}); !errors.Is(err, cuda.ErrNoCgo) {
		t.Errorf("Open: %v; want ErrNoCgo", err)
	}
}
