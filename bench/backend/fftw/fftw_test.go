package fftw

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/native"
	"github.com/peakbench/peakbench/native/nativetest"
)

// open opens FFTW, or skips the test where it is not installed (fails it
// where PEAKBENCH_REQUIRE_LIBS names fftw); closed when the test ends.
func open(t *testing.T) *Backend {
	t.Helper()
	b, err := Open()
	if err != nil {
		if nativetest.Required("fftw") {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestConformance(t *testing.T) {
	b := open(t)
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

// TestPlanTimeLimit: a planner limit of a nanosecond does not fail or hang
// a PATIENT plan: FFTW returns a plan (ESTIMATE's at worst) that still
// verifies, and the kernel says it was time-limited. Without the limit
// reached (a MEASURE plan of 1024 points, under an hour), it says nothing.
func TestPlanTimeLimit(t *testing.T) {
	b := open(t)
	for _, c := range []struct {
		n       int
		alg     string
		limit   time.Duration
		limited bool
	}{{4099, "patient", time.Nanosecond, true}, {1024, "measure", time.Hour, false}} {
		w := workload.Workload{Op: workload.FFT, DType: workload.F64, Shape: workload.Shape{M: 2, N: c.n}}
		d := w.NewData(1)
		b.planLimit = c.limit
		k, err := b.Prepare(w, d, backend.Config{Threads: 1, Algorithm: c.alg})
		if err != nil {
			t.Fatalf("limit %v: %v", c.limit, err)
		}
		if _, err := k.Run(1); err != nil {
			t.Fatal(err)
		}
		out, err := k.Output()
		if err != nil {
			t.Fatal(err)
		}
		if chk := w.Verify(d, out); !chk.OK {
			t.Errorf("limit %v: the plan's result fails: %s", c.limit, chk.Detail)
		}
		impl := k.(backend.KernelImplementation).Implementation()
		if got := strings.Contains(impl, "time-limited"); got != c.limited {
			t.Errorf("limit %v: implementation %q, time-limited %v, want %v", c.limit, impl, got, c.limited)
		}
		k.Close()
	}
	if got := PlanTimeLimit(0); got != DefaultPlanTimeLimit {
		t.Errorf("PlanTimeLimit(0) = %v, want the default %v", got, DefaultPlanTimeLimit)
	}
	if got := PlanTimeLimit(time.Minute); got != 30*time.Second {
		t.Errorf("PlanTimeLimit(1m) = %v, want 30s", got)
	}
}
