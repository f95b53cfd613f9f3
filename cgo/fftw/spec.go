package fftw

import "time"

// The transforms (pb_fftw_plan_new's kind).
const (
	Forward  = 0
	Backward = 1
	R2C      = 2
)

// The planner flags FFTW's header defines, the fftw backend's algorithms.
const (
	Measure  = 0
	Patient  = 1 << 5
	Estimate = 1 << 6
)

// Spec says what to plan: Batch transforms of Dims (n, or rows and
// columns), contiguous, out of place.
type Spec struct {
	Kind      int
	Dims      []int
	Batch     int
	Flags     uint
	Threads   int
	TimeLimit time.Duration // the planner's limit (fftw_set_timelimit); ≤ 0: none
	Copies    int
}
