package main

import (
	"strings"
	"testing"
)

// TestInputsCheckedBeforeWork: each bad value is refused before anything is
// measured, in one line, with exit status 2 and no stack trace.
func TestInputsCheckedBeforeWork(t *testing.T) {
	defer func(f func() int) { availableCPUs = f }(availableCPUs)
	availableCPUs = func() int { return 2 }
	for _, c := range []struct {
		args []string
		env  string // PEAKBENCH_HUGE_PAGES
		want []string
	}{
		{args: []string{"-threads=3"}, want: []string{"-threads: 3 is more than the 2 CPUs", "at most 2"}},
		{args: []string{"-threads=1,33"}, want: []string{"33 is more than the 2 CPUs"}},
		{args: []string{"-threads=4096", "-peak"}, want: []string{"4096 is more than the 2 CPUs"}},
		{args: []string{"-op="}, want: []string{"-op: empty list"}},
		{args: []string{"-op=,"}, want: []string{"-op: empty list"}},
		{args: []string{"-dtype="}, want: []string{"-dtype: empty list"}},
		{args: []string{"-size="}, want: []string{"-size: empty list"}},
		{args: []string{"-noise=NaN"}, want: []string{`-noise: "NaN"`}},
		{args: []string{"-noise=Inf%"}, want: []string{`-noise: "Inf%"`}},
		{args: []string{"-peak-bw=Inf"}, want: []string{"-peak-bw: +Inf"}},
		{args: []string{"-peak-bw=NaN"}, want: []string{"-peak-bw: NaN"}},
		{args: []string{"-peak-gflops=NaN"}, want: []string{"-peak-gflops: NaN"}},
		{args: []string{"-peak-gflops=-Inf"}, want: []string{"-peak-gflops: -Inf"}},
		{args: []string{"-min-time=NaN"}, want: []string{"-min-time", "-h lists the flags"}},
		{args: []string{"-backend=go", "-op=gemm", "-size=4Gi"}, want: []string{"gemm", "more than the"}},
		{args: []string{"-backend=go", "-op=gemv", "-size=1099511627776x1099511627776"}, want: []string{"gemv", "more than the"}},
		{args: []string{"-backend=go"}, env: "of", want: []string{`PEAKBENCH_HUGE_PAGES="of"`, "off"}},
		{args: []string{"-vs=nope"}, want: []string{`-vs: unknown backend "nope"`}},
		{args: []string{"-backend=go,asm", "-vs=torch"}, want: []string{"-vs: torch is not among the -backend list (go,asm)"}},
		{args: []string{"-min-time=0"}, want: []string{"-min-time: 0s: a sample must last more than 0"}},
		{args: []string{"-min-time=2m"}, want: []string{"-min-time: 2m0s: a sample must last more than 0 and at most 1m"}},
		{args: []string{"-peak", "-list"}, want: []string{"-peak and -list each print one thing"}},
		{args: []string{"-peak", "-format=csv"}, want: []string{"-peak prints a table or JSON", "not -format=csv"}},
		{args: []string{"-list", "-o=/tmp/list.txt"}, want: []string{"-list prints its list on standard output", "-o and -format do not apply"}},
		{args: []string{"-list", "-format=json"}, want: []string{"-list prints its list on standard output"}},
	} {
		if c.env != "" {
			t.Setenv("PEAKBENCH_HUGE_PAGES", c.env)
		}
		_, stderr, code := runArgs(t, c.args...)
		if c.env != "" {
			t.Setenv("PEAKBENCH_HUGE_PAGES", "")
		}
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, want 2 with one line; stderr:\n%s", c.args, code, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q does not say %q", c.args, strings.TrimSpace(stderr), w)
			}
		}
	}
	for _, ok := range []string{"", "on", "off"} {
		t.Setenv("PEAKBENCH_HUGE_PAGES", ok)
		if err := checkEnvironment(); err != nil {
			t.Errorf("PEAKBENCH_HUGE_PAGES=%q: %v", ok, err)
		}
	}
}

// TestMemoryCheckedBeforeWork: a workload beyond the available memory is
// refused before the peaks are measured, naming the largest size that fits.
func TestMemoryCheckedBeforeWork(t *testing.T) {
	defer func(f func() (uint64, string, bool)) { availableMemory = f }(availableMemory)
	availableMemory = func() (uint64, string, bool) { return 64 << 20, "test", true }
	_, stderr, code := runArgs(t, "-backend=go", "-op=gemm", "-dtype=f64", "-size=2048", "-threads=1")
	if code != 2 || !strings.Contains(stderr, "gemm f64 2048x2048x2048 needs about") ||
		!strings.Contains(stderr, "64 MiB available (test)") || !strings.Contains(stderr, "the largest that fits is -size=") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runArgs(t, "-backend=go", "-op=axpy", "-dtype=f32", "-size=1000,64Mi", "-threads=1")
	if code != 2 || !strings.Contains(stderr, "axpy f32 67108864 needs about") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// Nothing is known: no check.
	availableMemory = func() (uint64, string, bool) { return 0, "", false }
	if err := checkMemory(nil, nil, &config{}); err != nil {
		t.Error(err)
	}
}

// TestCheckThreadsOneCPU: on one CPU (taskset -c 0) the line says "1 CPU".
func TestCheckThreadsOneCPU(t *testing.T) {
	err := checkThreads([]int{1, 2}, 1)
	if err == nil || err.Error() != "2 is more than the 1 CPU this process may use (more threads would time-share the core; use 1)" {
		t.Errorf("%v", err)
	}
}
