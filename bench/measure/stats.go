// Package measure times kernels: it warms them up, chooses how many
// iterations make one sample last long enough to time, takes samples from
// several kernels interleaved, and summarizes them. It never formats numbers;
// printers do.
package measure

import (
	"math"
	"slices"
)

// Stats summarizes per-iteration times, in nanoseconds.
type Stats struct {
	N      int
	Median float64
	Min    float64
	Max    float64
	Q1, Q3 float64
	Mean   float64
}

// IQR is the interquartile range.
func (s Stats) IQR() float64 { return s.Q3 - s.Q1 }

// Spread is the IQR relative to the median: the noise measure the
// measurement loop drives below its target.
func (s Stats) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return s.IQR() / s.Median
}

// Summarize computes Stats over xs (which it does not modify).
// Quartiles interpolate linearly between order statistics (type 7, as R's
// default and numpy's).
func Summarize(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return Stats{
		N:      len(s),
		Median: quantile(s, 0.5),
		Min:    s[0],
		Max:    s[len(s)-1],
		Q1:     quantile(s, 0.25),
		Q3:     quantile(s, 0.75),
		Mean:   sum / float64(len(s)),
	}
}

// quantile of sorted s at p in [0, 1].
func quantile(s []float64, p float64) float64 {
	h := p * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}
