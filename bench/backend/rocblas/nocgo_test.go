//go:build !cgo

package rocblas_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	_ "github.com/peakbench/peakbench/bench/backend/rocblas"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func TestNoCgo(t *testing.T) {
	f, err := backend.Lookup("rocblas")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Open(backend.OpenOptions{}); !errors.Is(err, gpurt.ErrNoCgo) {
		t.Errorf("Open: %v; want ErrNoCgo", err)
	}
}
