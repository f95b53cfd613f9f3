package fftw

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
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
	if _, err := Open(); err == nil {
		t.Fatal("Open succeeded with both libraries missing")
	} else if want := "libfftw3-single3"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
}
