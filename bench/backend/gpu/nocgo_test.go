//go:build !cgo

package gpu_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	_ "github.com/peakbench/peakbench/bench/backend/gpu"
	"github.com/peakbench/peakbench/cgo/cuda"
)

func TestNoCgo(t *testing.T) {
	for _, name := range []string{"cublas", "cudnn"} {
		f, err := backend.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Open(backend.OpenOptions{}); !errors.Is(err, cuda.ErrNoCgo) {
			t.Errorf("%s: %v; want ErrNoCgo", name, err)
		}
	}
}
