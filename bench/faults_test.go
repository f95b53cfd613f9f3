package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/result"
)

// The fault-injection tests run this test binary as peakbench itself
// (asMainEnv), with a fake OpenBLAS (testdata/fakeblas.c) that crashes,
// hangs or errs on cue, beside pure Go and the real BLIS: the fake's
// faults must cost the openblas results alone. The binary also serves as
// the isolated backends' child process (serveChild), as
// peakbench does.
const asMainEnv = "PEAKBENCH_TEST_AS_MAIN"

// fakeBLAS builds testdata/fakeblas.c with the system's C compiler. The
// runs beside it need the real BLIS: without it the test is skipped
// (unless PEAKBENCH_REQUIRE_LIBS names it).
func fakeBLAS(t *testing.T) string {
	t.Helper()
	backendtest.Open(t, "blis")
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler:", err)
	}
	so := filepath.Join(t.TempDir(), "libfakeblas.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", so, filepath.Join("testdata", "fakeblas.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return so
}

// faultArgs measures two small GEMMs, 32 then 48 rows, on go, blis and
// openblas (the fake); FAKE_SIZE=48 makes the fake misbehave on the second.
func faultArgs(out string, extra ...string) []string {
	return append([]string{"-backend=go,blis,openblas", "-op=gemm", "-size=32,48", "-dtype=f64", "-threads=1",
		"-min-time=1ms", "-suite=quick", "-format=json", "-o=" + out}, extra...)
}

// startMain starts peakbench (this binary) with args and the fake's env.
func startMain(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asMainEnv+"=1"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		return ee.ExitCode()
	}
	return 0
}

// readRun reads a run's JSON output.
func readRun(t *testing.T, path string) *result.Run {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no output: %v", err)
	}
	var run result.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	return &run
}

// noGoTrace fails when peakbench printed a Go crash, its own or a child's.
func noGoTrace(t *testing.T, stderr string) {
	t.Helper()
	for _, s := range []string{"goroutine ", "panic:", "fatal error:", "[signal ", "runtime."} {
		if strings.Contains(stderr, s) {
			t.Errorf("standard error holds a Go crash (%q):\n%s", s, stderr)
			return
		}
	}
}

// TestIsolatedFaults: a library that segfaults, aborts, exits, hangs,
// computes wrong values or NaN on its second workload (or on its 30th call) costs
// its own results from then on, with one line saying how it died and on
// which workload; pure Go's and BLIS's results are kept and verified; the
// run exits 3 and writes valid JSON.
func TestIsolatedFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	so := fakeBLAS(t)
	for _, c := range []struct {
		name string
		env  []string
		// want is the error of the openblas results from the failing one
		// on ("" for a wrong answer: a failed verification); firstOK says
		// whether the first workload's openblas result is kept.
		want    string
		firstOK bool
	}{
		{"segv", []string{"FAKE_MODE=segv", "FAKE_SIZE=48"},
			"openblas: worker died of SIGSEGV (segmentation violation) while running gemm f64 48x48x48: fakeblas: segfault on call 1", true},
		{"abort", []string{"FAKE_MODE=abort", "FAKE_SIZE=48"},
			"openblas: worker died of SIGABRT (abort) while running gemm f64 48x48x48: fakeblas: abort on call 1", true},
		{"exit", []string{"FAKE_MODE=exit", "FAKE_SIZE=48"},
			"openblas: worker exited with status 7 while running gemm f64 48x48x48: fakeblas: exit on call 1", true},
		{"hang", []string{"FAKE_MODE=hang", "FAKE_SIZE=48"},
			"openblas: gemm f64 48x48x48 timed out after 2s; stopped the worker", true},
		{"wrong", []string{"FAKE_MODE=wrong", "FAKE_SIZE=48"}, "", true},
		{"nan", []string{"FAKE_MODE=nan", "FAKE_SIZE=48"}, "", true},
		// -threads=1 reaches the library's openblas_set_num_threads(1).
		{"threads", []string{"FAKE_MODE=threads", "FAKE_SIZE=48"},
			"openblas: worker exited with status 41 while running gemm f64 48x48x48: fakeblas: exit with the thread count", true},
		{"segv-30th-call", []string{"FAKE_MODE=segv", "FAKE_AT=30"},
			"openblas: worker died of SIGSEGV (segmentation violation) while running gemm f64 32x32x32: fakeblas: segfault on call 30", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.json")
			cmd, stderr := startMain(t, append(c.env, "PEAKBENCH_OPENBLAS="+so), faultArgs(out, "-timeout=2s")...)
			code := exitStatus(t, cmd.Wait())
			if code != exitFailed {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailed, stderr)
			}
			noGoTrace(t, stderr.String())
			run := readRun(t, out)
			n := map[string]int{}
			for _, r := range run.Results {
				n[r.Backend]++
				first := r.Shape == "32x32x32"
				switch {
				case r.Backend != "openblas" || (first && c.firstOK):
					if r.Error != "" || !r.Verified || r.MedianNS <= 0 {
						t.Errorf("%s %s: error %q, verified %v, median %v; want a verified result", r.Backend, r.Shape, r.Error, r.Verified, r.MedianNS)
					}
				case c.want == "":
					if r.Error != "" || r.Verified {
						t.Errorf("openblas %s: error %q, verified %v; want a failed verification", r.Shape, r.Error, r.Verified)
					}
				default:
					if r.Error != c.want {
						t.Errorf("openblas %s: error\n%q, want\n%q", r.Shape, r.Error, c.want)
					}
				}
			}
			if n["go"] != 2 || n["blis"] != 2 || n["openblas"] != 2 {
				t.Errorf("results per backend %v; want 2 each", n)
			}
			if !strings.Contains(stderr.String(), "failed") {
				t.Errorf("standard error does not say results failed:\n%s", stderr)
			}
		})
	}
}

// A library that leaks memory on every call costs nothing but shows it: its
// results stay verified and their resident growth, read in its own
// process, holds the leak; the other backends' does not.
func TestIsolatedLeakShows(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	so := fakeBLAS(t)
	out := filepath.Join(t.TempDir(), "run.json")
	cmd, stderr := startMain(t, []string{"PEAKBENCH_OPENBLAS=" + so, "FAKE_MODE=leak", "FAKE_SIZE=48"}, faultArgs(out)...)
	if code := exitStatus(t, cmd.Wait()); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	const leak = 32 << 20
	for _, r := range readRun(t, out).Results {
		m := r.Memory
		if !r.Verified || m == nil {
			t.Fatalf("%s %s: verified %v, memory %+v", r.Backend, r.Shape, r.Verified, m)
		}
		leaking := r.Backend == "openblas" && r.Shape == "48x48x48"
		if leaking && (m.PeakGrowthBytes < leak || !strings.HasPrefix(m.Process, "worker pid")) {
			t.Errorf("the leaking library's result: memory %+v, want at least %d bytes in its worker", m, leak)
		}
		if !leaking && m.PeakGrowthBytes >= leak {
			t.Errorf("%s %s: growth %d bytes, though only openblas's 48³ leaks", r.Backend, r.Shape, m.PeakGrowthBytes)
		}
	}
}

// TestSignalStopsHungLibrary: Ctrl-C (SIGINT), SIGTERM or SIGHUP while the
// library hangs in a call stops the run within a second, writes the
// results finished before it (the first workload) and exits 1.
func TestSignalStopsHungLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	so := fakeBLAS(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out, mark := filepath.Join(dir, "run.json"), filepath.Join(dir, "hung")
			cmd, stderr := startMain(t, []string{"PEAKBENCH_OPENBLAS=" + so, "FAKE_MODE=hang", "FAKE_SIZE=48", "FAKE_MARK=" + mark},
				faultArgs(out, "-timeout=10m")...)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(mark); err == nil {
					break
				}
				select {
				case err := <-waited:
					t.Fatalf("peakbench ended (%v) before the library hung:\n%s", err, stderr)
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the library never hung")
				}
			}
			start := time.Now()
			cmd.Process.Signal(sig)
			var err error
			select {
			case err = <-waited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 10s after %v", sig)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("stopped %v after %v; want within a second", d, sig)
			}
			if code := exitStatus(t, err); code != exitRegression || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("exit %d, want %d saying interrupted; stderr:\n%s", code, exitRegression, stderr)
			}
			noGoTrace(t, stderr.String())
			run := readRun(t, out)
			if !run.Interrupted || len(run.Results) != 3 {
				t.Errorf("interrupted %v with %d results; want true with the first workload's 3", run.Interrupted, len(run.Results))
			}
			for _, r := range run.Results {
				if r.Shape != "32x32x32" || !r.Verified {
					t.Errorf("%s %s: verified %v, error %q", r.Backend, r.Shape, r.Verified, r.Error)
				}
			}
		})
	}
}

// TestKilledRunTakesItsChildren: a peakbench killed by SIGKILL, which it
// cannot catch, while a library hangs in its child takes the child with it
// (Linux's parent-death signal): no library spins on after the run.
func TestKilledRunTakesItsChildren(t *testing.T) {
	if testing.Short() {
		t.Skip("measures peaks")
	}
	so := fakeBLAS(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "hung")
	cmd, stderr := startMain(t, []string{"PEAKBENCH_OPENBLAS=" + so, "FAKE_MODE=hang", "FAKE_MARK=" + mark},
		"-backend=openblas", "-op=gemm", "-size=32", "-dtype=f64", "-threads=1", "-min-time=1ms", "-suite=quick")
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the library never hung:\n%s", stderr)
		}
	}
	children := childPIDs(cmd.Process.Pid)
	if len(children) != 1 {
		t.Fatalf("peakbench has children %v; want its one worker", children)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(time.Second); running(children[0]); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(children[0], syscall.SIGKILL)
			t.Fatalf("worker %d still running a second after peakbench was killed", children[0])
		}
	}
}

// childPIDs lists the children of process pid (/proc/PID/task/*/children).
func childPIDs(pid int) []int {
	var out []int
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// running says whether process pid exists and is not a zombie (a killed
// orphan waits for the reaper, which in a container may never come).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
