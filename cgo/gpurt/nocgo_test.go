//go:build !cgo

package gpurt_test

import (
	"errors"
	"testing"

	"github.com/peakbench/peakbench/cgo/gpurt"
)

func TestNoCgo(t *testing.T) {
	_, err := gpurt.Open()
	if !errors.Is(err, gpurt.ErrNoCgo) || err.Error() != "cuda: peakbench was built without cgo (CGO_ENABLED=0): vendor libraries cannot be loaded" {
		t.Errorf("Open() = %v", err)
	}
	if _, err := gpurt.OpenHIP(); !errors.Is(err, gpurt.ErrNoCgo) {
		t.Errorf("OpenHIP() = %v", err)
	}
	if _, err := gpurt.OpenMonitor("0000:01:00.0"); !errors.Is(err, gpurt.ErrNoCgo) {
		t.Errorf("OpenMonitor() = %v", err)
	}
}

func TestLibraryNoCgo(t *testing.T) {
	if _, err := gpurt.OpenLibrary(nil, "cufft", ""); err == nil {
		t.Error("OpenLibrary without a device: no error")
	}
	if names := gpurt.RegisteredLibraries(); len(names) != 0 {
		t.Errorf("RegisteredLibraries() = %q without cgo", names)
	}
}
