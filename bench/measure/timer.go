package measure

import (
	"slices"
	"time"
)

// TimerOverhead measures what one pair of clock reads costs (time.Now and
// time.Since around an empty region): the floor under any timed sample. A
// report shows it so a reader can judge how much of a short sample it is.
func TimerOverhead() time.Duration {
	const reads = 1000
	best := make([]time.Duration, 0, 5)
	for range 5 {
		start := time.Now()
		var sink time.Duration
		for range reads {
			t := time.Now()
			sink += time.Since(t)
		}
		_ = sink
		best = append(best, time.Since(start)/reads)
	}
	return slices.Min(best)
}
