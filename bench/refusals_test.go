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

// TestUndeclaredDTypeSaysWhy: a low-precision dtype a backend does not
// compute (tf32 is a tensor-core type no CPU library has) is named on
// standard error beside the results the backend did measure.
func TestUndeclaredDTypeSaysWhy(t *testing.T) {
	_, stderr, _ := runArgs(t, "-backend=go", "-op=gemm", "-dtype=f32,tf32", "-size=16",
		"-threads=1", "-min-time=1ms", "-suite=quick", "-isolate=off", "-format=json", "-o=/dev/null")
	for _, want := range []string{"go: no tf32 results: it refused", "e.g. go computes no gemm tf32 here"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
