//go:build !cgo

package nvidia_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	_ "github.com/peakbench/peakbench/bench/backend/nvidia"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func TestNoCgo(t *testing.T) {
	for _, name := range []string{"cublas", "cufft", "cusparse", "cudnn"} {
		f, err := backend.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Open(backend.OpenOptions{}); !errors.Is(err, gpurt.ErrNoCgo) {
			t.Errorf("%s: %v; want ErrNoCgo", name, err)
		}
	}
}
