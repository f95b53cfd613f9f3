package main

import (
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/gobackend/tune"
)

func walkSteps(speedups ...float64) []tune.Step {
	s := make([]tune.Step, len(speedups))
	for i, v := range speedups {
		s[i] = tune.Step{Bytes: 4 << (10 + i), Speedup: v}
	}
	return s
}

// TestWalkRange: the range is the run of wins that gains most, from the
// size below its first to its last.
func TestWalkRange(t *testing.T) {
	const never = tune.MaxPieceBytes
	for _, c := range []struct {
		speedups []float64
		want     tune.Walk
	}{
		{[]float64{1, 1.01, 1.5, 1.6, 1.02, 0.99}, tune.Walk{UpAbove: 8 << 10, UpTo: 32 << 10}},             // L1 | L2 | past
		{[]float64{1.2, 1.3, 1.01, 1.04}, tune.Walk{UpAbove: 0, UpTo: 8 << 10}},                             // from the smallest
		{[]float64{1.06, 1.01, 0.92, 1.4, 1.45, 1.78, 0.97}, tune.Walk{UpAbove: 16 << 10, UpTo: 128 << 10}}, // a lone win by noise
		{[]float64{1, 1.1, 1.04, 1.2, 1.3}, tune.Walk{UpAbove: 16 << 10, UpTo: 64 << 10}},                   // the larger gain
		{[]float64{1, 1.04, 0.9, 1.02}, tune.Walk{UpAbove: never, UpTo: never}},                             // never winMargin faster
		{[]float64{0.95, 1.1, 1.2, 1.3}, tune.Walk{UpAbove: 4 << 10, UpTo: 32 << 10}},                       // to the top
	} {
		if got := walkRange(walkSteps(c.speedups...)); got != c.want {
			t.Errorf("%v: %+v, want %+v", c.speedups, got, c.want)
		}
	}
}

// TestWalkSearch runs the walk search on three sizes: both directions
// timed at each, both parameters set from the steps, and the file written
// loads with them.
func TestWalkSearch(t *testing.T) {
	f, stderr := runSearch(t, 2*time.Second, func() tuneSearch { return walkSearch(ladder(4<<10, 16<<10)) })
	st := f.Measured.Ladders["walk.up_above"]
	if len(st) != 3 || st[0].Bytes != 4<<10 || st[2].NS["add.f32"][0] <= 0 || st[2].NS["axpy.f64"][1] <= 0 {
		t.Errorf("walk ladder %+v, want a step per size, both ways timed", st)
	}
	if want := walkRange(st); f.Params.Walk != want {
		t.Errorf("walk = %+v, the steps give %+v", f.Params.Walk, want)
	}
	if !f.Measured.Complete || strings.Join(f.Measured.Tuned, ",") != "walk.up_above,walk.up_to" {
		t.Errorf("tuned %v (complete %v), want both walk parameters", f.Measured.Tuned, f.Measured.Complete)
	}
	if !strings.Contains(stderr, "walking up over down") {
		t.Errorf("no ladder line for walk:\n%s", stderr)
	}
	t.Log(stderr)
}
