package measure

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Target is anything that runs a workload iters times and says how long that
// took; backend.Kernel is one.
type Target interface {
	Run(iters int) (time.Duration, error)
}

// Options control one measurement.
type Options struct {
	// MinTime is the least time one sample lasts; iterations per sample
	// are chosen to reach it.
	MinTime time.Duration
	// MinSamples and MaxSamples bound the number of samples; sampling
	// stops between them once the spread is under NoiseTarget.
	MinSamples, MaxSamples int
	// NoiseTarget is the relative spread (IQR/median) a measurement aims
	// for; a result over it is reported as noisy.
	NoiseTarget float64
	// MaxTime bounds the sampling time of one target past its MinSamples.
	MaxTime time.Duration
	// Seed orders the targets within each round.
	Seed uint64
	// Settle is a pause before a sample of a target other than the one
	// sampled last: threaded libraries' workers spin for a while after a
	// call (the C loader shortens that to about a millisecond), and would
	// otherwise steal cores from the next library's sample.
	Settle time.Duration
	// Quiet, when set, is called after the Settle pause: it waits until
	// the threads of the previous target are quiet. The settings that
	// shorten the libraries' spinning after a call do not reach every
	// threading runtime (libgomp, oneDNN's and BLIS's, spins a count of
	// PAUSE instructions: 7–10 ms on the Zen 5 VM), and a sample begun
	// while another target's threads still spin runs with a core taken.
	Quiet func()
}

// DefaultOptions are the command line's defaults.
func DefaultOptions() Options {
	return Options{
		MinTime:     20 * time.Millisecond,
		MinSamples:  10,
		MaxSamples:  40,
		NoiseTarget: 0.03,
		MaxTime:     2 * time.Second,
		Settle:      2 * time.Millisecond,
	}
}

// Result is the measurement of one target.
type Result struct {
	Iters   int       // iterations per sample
	Samples []float64 // nanoseconds per iteration, in the order taken
	Stats   Stats
	Noisy   bool  // spread over the noise target when sampling stopped
	Err     error // the target failed; Samples hold what was taken before
}

// ErrInterrupted is returned by Interleaved when ctx ends first.
var ErrInterrupted = errors.New("measurement interrupted")

// warmupMax bounds warm-up; warmupRuns is how many consecutive
// per-iteration times must agree within warmupAgree.
const (
	warmupMax   = 500 * time.Millisecond
	warmupAgree = 0.10
)

// Interleaved measures every target, taking their samples round-robin in a
// random order each round (as Google Benchmark's random interleaving does),
// so that a slow period of a shared machine hits all of them alike and their
// ratios stay meaningful. It returns one Result per target; a target that
// fails stops, the others go on. When ctx ends it returns what it has with
// ErrInterrupted.
func Interleaved(ctx context.Context, targets []Target, opt Options) ([]Result, error) {
	if opt.MinSamples < 1 {
		opt.MinSamples = 1
	}
	if opt.MaxSamples < opt.MinSamples {
		opt.MaxSamples = opt.MinSamples
	}
	res := make([]Result, len(targets))
	active := make([]bool, len(targets))
	started := make([]time.Time, len(targets))
	for i, t := range targets {
		if ctx.Err() != nil {
			return res, ErrInterrupted
		}
		res[i].Iters, res[i].Err = calibrate(t, opt.MinTime)
		active[i] = res[i].Err == nil
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	order := make([]int, len(targets))
	for i := range order {
		order[i] = i
	}
	for i := range started {
		started[i] = time.Now()
	}
	last := -1
	for {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		any := false
		for _, i := range order {
			if !active[i] {
				continue
			}
			if ctx.Err() != nil {
				finish(res)
				return res, ErrInterrupted
			}
			any = true
			if last != i && len(targets) > 1 && opt.Settle > 0 {
				time.Sleep(opt.Settle)
				if opt.Quiet != nil {
					opt.Quiet()
				}
			}
			last = i
			d, err := targets[i].Run(res[i].Iters)
			if err != nil {
				res[i].Err, active[i] = err, false
				continue
			}
			r := &res[i]
			r.Samples = append(r.Samples, float64(d.Nanoseconds())/float64(r.Iters))
			if len(r.Samples) >= opt.MinSamples {
				spread := Summarize(r.Samples).Spread()
				if spread <= opt.NoiseTarget || len(r.Samples) >= opt.MaxSamples ||
					time.Since(started[i]) > opt.MaxTime+time.Duration(opt.MinSamples)*opt.MinTime {
					active[i] = false
				}
			}
		}
		if !any {
			break
		}
	}
	finish(res)
	for i := range res {
		res[i].Noisy = res[i].Stats.N > 0 && res[i].Stats.Spread() > opt.NoiseTarget
	}
	return res, nil
}

func finish(res []Result) {
	for i := range res {
		res[i].Stats = Summarize(res[i].Samples)
	}
}

// calibrate warms t up until the time per iteration settles, then returns
// the iterations that make one sample last at least minTime.
func calibrate(t Target, minTime time.Duration) (int, error) {
	iters := 1
	var prev float64
	start := time.Now()
	for {
		d, err := t.Run(iters)
		if err != nil {
			return 0, err
		}
		per := float64(d) / float64(iters)
		settled := prev > 0 && abs(per-prev) <= warmupAgree*prev
		if (settled && d >= minTime/4) || time.Since(start) > warmupMax {
			if per <= 0 {
				per = 1
			}
			n := int(float64(minTime)/per) + 1
			return max(n, 1), nil
		}
		prev = per
		if d < minTime/4 {
			// Grow the batch until it is long enough to time well.
			iters = max(iters*2, int(float64(minTime/4)/max(per, 1)))
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
