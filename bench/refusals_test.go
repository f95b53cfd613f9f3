package main

import (
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/cgo/cblas"
)

// TestSingleThreadedLibrarySaysWhyItHasNoResults runs a CBLAS without
// thread control (netlib, ATLAS) at two threads only: it measures nothing,
// and standard error says why instead of leaving it out in silence.
func TestSingleThreadedLibrarySaysWhyItHasNoResults(t *testing.T) {
	name := ""
	for _, f := range cblas.Families() {
		if !f.OneThread {
			continue
		}
		fac, err := backend.Lookup(f.Name)
		if err != nil {
			continue
		}
		if b, err := fac.Open(backend.OpenOptions{}); err == nil {
			b.Close()
			name = f.Name
			break
		}
	}
	if name == "" {
		t.Skip("no single-threaded CBLAS installed (make deps installs netlib and ATLAS)")
	}
	_, stderr, _ := runArgs(t, "-backend=go,"+name, "-op=dot", "-dtype=f32", "-size=1000",
		"-threads=2", "-min-time=1ms", "-suite=quick", "-isolate=off", "-format=json", "-o=/dev/null")
	if want := name + ": no results: it refused"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stderr, "thread") {
		t.Errorf("the reason does not name the thread count:\n%s", stderr)
	}
}

// TestUndeclaredDTypeSaysWhy: a low-precision dtype no backend of the run
// computes (tf32 is a tensor-core type no CPU library has) is named on
// standard error before anything is measured, and the run goes on with
// the rest; with nothing left it is a usage error, found before the peaks
// are measured rather than after them as an empty table (exit status 3).
func TestUndeclaredDTypeSaysWhy(t *testing.T) {
	out, stderr, code := runArgs(t, "-backend=go", "-op=gemm", "-dtype=f32,tf32", "-size=16",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-isolate=off", "-format=json")
	if want := "peakbench: skipped gemm tf32: go does not compute it\n"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, stderr)
	}
	if !strings.Contains(out, `"dtype": "f32"`) || strings.Contains(out, `"dtype": "tf32"`) {
		t.Errorf("the f32 result is missing, or a tf32 one is there:\n%.2000s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-backend=go", "-op=gemm", "-dtype=tf32", "-size=16"}, "no backend of the run computes gemm tf32: go does not compute it"},
		{[]string{"-backend=gonum", "-op=fft", "-dtype=f32", "-size=1Ki"}, "no backend of the run computes fft f32: gonum does not compute it"},
		{[]string{"-backend=go,gonum", "-op=gemm", "-dtype=tf32", "-size=16"}, "no backend of the run computes gemm tf32: none of go, gonum computes it"},
	} {
		args := append(c.args, "-threads=1", "-min-time=1ms", "-suite=quick", "-isolate=off")
		_, stderr, code := runArgs(t, args...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "peaks") {
			t.Errorf("%q: exit %d, stderr %q; want %d and one line with %q", c.args, code, stderr, exitUsage, c.want)
		}
	}
}
