//go:build cgo

package gpurt_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/gpurt/gpufake"
)

// TestLibraryRegistry: cuFFT registers itself from native/cufft.c (nothing
// else names it), and a name nothing registered is refused with the names
// that are, not as a library that failed to load.
func TestLibraryRegistry(t *testing.T) {
	if names := gpurt.RegisteredLibraries(); !slices.Contains(names, "cufft") {
		t.Errorf("RegisteredLibraries() = %q; want cufft among them", names)
	}
	_, dev := gpufake.Device(t, gpurt.Open)
	_, err := gpurt.OpenLibrary(dev, "nosuch", "")
	var le *gpurt.LoadError
	if !errors.Is(err, gpurt.ErrInvalid) || errors.As(err, &le) || !strings.Contains(err.Error(), "nosuch: no GPU library registered by that name (") || !strings.Contains(err.Error(), "cufft") {
		t.Errorf("OpenLibrary(nosuch): %v", err)
	}
	if _, err := gpurt.OpenLibrary(nil, "cufft", ""); err == nil {
		t.Error("OpenLibrary(nil device): no error")
	}
}

// TestLibraryVendor: a CUDA library on a HIP device is refused before
// anything is loaded.
func TestLibraryVendor(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.OpenHIP)
	_, err := gpurt.OpenLibrary(dev, "cufft", "")
	if !errors.Is(err, gpurt.ErrInvalid) || err.Error() != "cufft: rocm:0 is not a CUDA device" {
		t.Errorf("cufft on HIP: %v", err)
	}
}

// TestLibraryNotFound: the generic path's LoadError names the library's
// file, as the C file describes it, and every candidate tried.
func TestLibraryNotFound(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	_, err := gpurt.OpenLibrary(dev, "cufft", "/nonexistent/libcufft.so.12")
	var le *gpurt.LoadError
	if !errors.As(err, &le) || le.Library != "libcufft" || le.Path != "/nonexistent/libcufft.so.12" ||
		len(le.Tried) != 1 || !strings.HasPrefix(le.Tried[0], "/nonexistent/libcufft.so.12: ") {
		t.Fatalf("OpenLibrary(missing file): %v (%+v)", err, le)
	}
	if !strings.HasPrefix(err.Error(), "cufft: libcufft not found (tried: /nonexistent/libcufft.so.12: ") {
		t.Errorf("message: %v", err)
	}
}

// TestLibraryJobs: a job made from a parameter array runs, reports what
// the library says of it (cuFFT's plan time), and keeps the library open
// until it is closed; the library's own refusals and gpurt's checks come
// back as errors.
func TestLibraryJobs(t *testing.T) {
	_, dev := gpufake.Device(t, gpurt.Open)
	lib, err := gpurt.OpenLibrary(dev, "cufft", "")
	if err != nil {
		t.Fatal(err)
	}
	if lib.Version() == "" || !strings.HasSuffix(lib.Path(), "libcufft.so.11") {
		t.Errorf("version %q, path %q", lib.Version(), lib.Path())
	}
	// native/cufft.c's parameters: forward (0), a batch of 1, 4 points
	job, reported, err := lib.NewJob(gpurt.F32, []int64{0, 1, 4}, gpurt.JobOptions{Copies: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(reported) != 3 || reported[0] < 0 || reported[1] != 0 || reported[2] != 0 {
		t.Errorf("reported %v; want the plan time, then zeros", reported)
	}
	if err := job.SetInput(0, []float64{1, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(2); err != nil {
		t.Fatal(err)
	}
	out, err := job.Output()
	if err != nil || !slices.Equal(out, []float64{1, 0, 1, 0, 1, 0, 1, 0}) {
		t.Errorf("transform of an impulse: %v, %v", out, err)
	}
	if _, _, err := lib.NewJob(gpurt.F32, []int64{0, 1}, gpurt.JobOptions{}, 0); !errors.Is(err, gpurt.ErrInvalid) || !strings.Contains(err.Error(), "cufft: 2 parameters") {
		t.Errorf("too few parameters: %v", err)
	}
	if _, _, err := lib.NewJob(gpurt.F16, []int64{0, 1, 4}, gpurt.JobOptions{}, 1); !errors.Is(err, gpurt.ErrUnsupported) {
		t.Errorf("f16: %v", err)
	}
	if _, _, err := lib.NewJob(gpurt.F32, []int64{0, 1, 4}, gpurt.JobOptions{Copies: 1 << 20}, 1); err == nil || !strings.Contains(err.Error(), "copies 1048576 outside") {
		t.Errorf("copies: %v", err)
	}
	lib.Close()
	if _, _, err := lib.NewJob(gpurt.F32, []int64{0, 1, 4}, gpurt.JobOptions{}, 1); err == nil || !strings.Contains(err.Error(), "library is closed") {
		t.Errorf("after Close: %v", err)
	}
	// the job outlives Close: the library is freed when it is closed
	if _, err := job.Run(1); err != nil {
		t.Errorf("Run after the library's Close: %v", err)
	}
	job.Close()
}
