package main

import (
	"testing"

	"github.com/peakbench/peakbench/gobackend/tune"
)

// TestByRowLimit: gemv.by_row is crossoverLast of one row over eight a time.
func TestByRowLimit(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step {
		s := make([]tune.Step, len(speedups))
		for i, v := range speedups {
			s[i] = tune.Step{Bytes: 256 << (10 + i), Speedup: v}
		}
		return s
	}
	for _, c := range []struct {
		name  string
		steps []tune.Step
		want  int
	}{
		{"one row never wins", steps(0.8, 0.9, 1.02, 1.04), tune.MaxPieceBytes},
		{"one row wins from the third size", steps(0.8, 0.95, 1.1, 1.12), 512 << 10},
		{"a slower size above resets", steps(0.9, 1.1, 0.98, 1.1), 1 << 20},
		{"one row wins everywhere", steps(1.06, 1.1, 1.08), 0},
	} {
		if got := crossoverLast(c.steps); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
