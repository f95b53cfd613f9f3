package backendtest_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/backend/purego"
	"github.com/peakbench/peakbench/bench/workload"
)

// brokenEnv names the way the child process breaks the go backend.
const brokenEnv = "PEAKBENCH_BACKENDTEST_BROKEN"

// broken is the go backend declaring dot and add (undeclared: add only
// when mode is "undeclared") and, by mode, failing to compute dot.
type broken struct {
	purego.Backend
	mode string
}

func (broken) Name() string { return "broken" }

func (b broken) Declared() backend.Support {
	s := backend.Support{}.Add(workload.DTypes, workload.Dot)
	if b.mode != "undeclared" {
		s.Add(workload.DTypes, workload.Add)
	}
	return s
}

func (b broken) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	switch {
	case w.Op == workload.Dot && b.mode == "unsupported":
		return nil, backend.Unsupported("broken", w)
	case w.Op == workload.Dot && b.mode == "every-shape":
		return nil, backend.UnsupportedShape(fmt.Errorf("broken: %s %s: %w", w.Op, w.DType, backend.ErrUnsupported))
	case w.Op != workload.Dot && w.Op != workload.Add:
		return nil, backend.Unsupported("broken", w)
	}
	return b.Backend.Prepare(w, in, cfg)
}

// undeclaring is the go backend without its declaration.
type undeclaring struct{ backend.Backend }

// TestSuiteFailsBrokenBackends runs the conformance suite, in a child
// process, on the go backend broken in each way the suite must catch, and
// checks that it fails, saying why; and on the go backend declaring dot
// and add and computing both, which must pass.
func TestSuiteFailsBrokenBackends(t *testing.T) {
	if mode := os.Getenv(brokenEnv); mode != "" {
		var b backend.Backend = broken{mode: mode}
		if mode == "undeclaring" {
			b = undeclaring{purego.Backend{}}
		}
		backendtest.Run(t, b) // the parent reads the outcome
		return
	}
	for _, c := range []struct {
		mode string
		want string // "" for a pass
	}{
		{"honest", ""},
		{"unsupported", "broken declares dot f32, but Prepare refuses it: broken: dot f32: not supported by this backend"},
		{"every-shape", "broken declares dot f64 but computed it on none of the suite's shapes"},
		{"undeclared", "broken computes add f32, which it does not declare"},
		{"undeclaring", "go declares no ops (backend.Declarer)"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteFailsBrokenBackends$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), brokenEnv+"="+c.mode)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("the suite failed the go backend declaring what it computes: %v\n%s", err, out)
			case c.want == "" && (!strings.Contains(string(out), "--- PASS: TestSuiteFailsBrokenBackends/dot/f32/") ||
				!strings.Contains(string(out), "--- PASS: TestSuiteFailsBrokenBackends/add/f64/")):
				t.Fatalf("the suite did not run dot and add:\n%s", out)
			case c.want != "" && !errors.As(err, &exit):
				t.Fatalf("the suite passed a backend that is %s (err %v):\n%s", c.mode, err, out)
			case c.want != "" && !strings.Contains(string(out), c.want):
				t.Fatalf("the suite failed, but without %q:\n%s", c.want, out)
			}
		})
	}
}
