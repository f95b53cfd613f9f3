package main

import (
	"testing"

	"github.com/peakbench/peakbench/gobackend/tune"
)

func TestDirectLimit(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step {
		s := make([]tune.Step, len(speedups))
		for i, v := range speedups {
			s[i] = tune.Step{Bytes: 1 << (10 + i), Speedup: v}
		}
		return s
	}
	for _, c := range []struct {
		name  string
		steps []tune.Step
		want  int
	}{
		{"packing never wins", steps(0.6, 0.8, 0.9, 1.02), 1 << 13},
		{"packing wins from the third size", steps(0.6, 0.8, 1.2, 1.6), 1 << 11},
		{"a slower size above resets", steps(0.6, 1.2, 0.9, 1.6), 1 << 12},
		{"packing wins everywhere", steps(1.1, 1.2, 1.3), 0},
	} {
		if got := directLimit(c.steps); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestMadds(t *testing.T) {
	if got := madds(96 * 96 * 96); got != "96³" {
		t.Errorf("madds(96³) = %q", got)
	}
	if got := madds(1000001); got != "1000001" {
		t.Errorf("madds(1000001) = %q", got)
	}
}
