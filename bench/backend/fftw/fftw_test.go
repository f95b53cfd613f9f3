package fftw

import (
	"errors"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/native"
	"github.com/peakbench/peakbench/native/nativetest"
)

func TestConformance(t *testing.T) {
	b, err := Open()
	if err != nil {
		if nativetest.Required("fftw") {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	backendtest.Run(t, b)
}

// TestMissingLibrary: with the override naming no file, Open fails with
// the reason and the install hint.
func TestMissingLibrary(t *testing.T) {
	t.Setenv("PEAKBENCH_FFTW3F", "/nonexistent/libfftw3f.so.3")
	t.Setenv("PEAKBENCH_FFTW3", "/nonexistent/libfftw3.so.3")
	_, err := Open()
	switch {
	case err == nil:
		t.Fatal("Open succeeded with both libraries missing")
	case strings.Contains(err.Error(), "\n"):
		t.Errorf("error %q is more than one line", err)
	case errors.Is(err, native.ErrNoCgo):
		// built without cgo: that is the reason, said once
	case !strings.Contains(err.Error(), "libfftw3-single3"):
		t.Errorf("error %q does not name %q", err, "libfftw3-single3")
	}
}
