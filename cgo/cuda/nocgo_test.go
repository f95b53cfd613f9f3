//go:build !cgo

package cuda_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/cgo/cuda"
)

func TestNoCgo(t *testing.T) {
	_, err := cuda.Open()
	if !errors.Is(err, cuda.ErrNoCgo) || err.Error() != "cuda: peakbench was built without cgo (CGO_ENABLED=0): vendor libraries cannot be loaded" {
		t.Errorf("Open() = %v", err)
	}
	if _, err := cuda.OpenHIP(); !errors.Is(err, cuda.ErrNoCgo) {
		t.Errorf("OpenHIP() = %v", err)
	}
	if _, err := cuda.OpenMonitor("0000:01:00.0"); !errors.Is(err, cuda.ErrNoCgo) {
		t.Errorf("OpenMonitor() = %v", err)
	}
}
