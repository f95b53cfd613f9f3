package gemm

import (
	"sync"
	"time"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// Where a CPU has a dedicated instruction it is not always the fastest
// way: on the Intel Xeon VM this was written on (AVX512-BF16), a loop of
// independent VDPBF16PS ran at a quarter of the rate of VFMADD231PS, half
// the FLOP rate of f32 FMAs on the same data widened, while VPDPBUSD
// issued as fast as the FMAs. Which is faster is a property of the core,
// not of the features it reports, so the kernel of a (type, level,
// features) is chosen by measurement, once per process: each candidate's
// micro-kernel on panels in L1, in alternating rounds, best time of each.
// A later candidate must beat the first by lowpMargin to be chosen, so
// noise does not move the choice away from the dedicated instruction.

type lowpKey struct {
	t     LowType
	lvl   isa.Level
	feats isa.Feature
}

var lowpChosen sync.Map // lowpKey → *lowpOnce

type lowpOnce struct {
	once   sync.Once
	choice lowpChoice
}

const (
	lowpMargin = 1.10 // a later candidate must be this much faster
	lowpRounds = 5
	lowpKG     = 128 // words of depth: both panels in L1 (14·128 + 32·128 words: 23 KiB)
	lowpCalls  = 64  // micro-kernel calls per timing
)

// chooseLowp returns the kernel chosen for key, measuring the candidates
// the first time.
func chooseLowp(key lowpKey, candidates func() []lowpChoice) lowpChoice {
	v, _ := lowpChosen.LoadOrStore(key, new(lowpOnce))
	o := v.(*lowpOnce)
	o.once.Do(func() {
		cs := candidates()
		o.choice = cs[0]
		if len(cs) == 1 {
			return
		}
		rates := lowpRates(cs)
		best := rates[0] * lowpMargin
		for i, r := range rates[1:] {
			if r > best {
				o.choice, best = cs[i+1], r
			}
		}
	})
	return o.choice
}

// lowpRates measures each candidate's micro-kernel: k values multiplied
// per nanosecond, per element of the tile (the best of lowpRounds).
func lowpRates(cs []lowpChoice) []float64 {
	best := make([]time.Duration, len(cs))
	runs := make([]func(), len(cs))
	work := make([]float64, len(cs))
	for i, c := range cs {
		runs[i], work[i] = lowpTimer(c)
	}
	for r := 0; r < lowpRounds; r++ {
		for i, run := range runs {
			start := time.Now()
			run()
			if d := time.Since(start); r == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	rates := make([]float64, len(cs))
	for i := range cs {
		rates[i] = work[i] / float64(max(best[i], 1))
	}
	return rates
}

// lowpTimer returns a function running c's micro-kernel lowpCalls times
// on packed panels of ones, and the multiply-adds it does.
func lowpTimer(c lowpChoice) (func(), float64) {
	if c.f32 != nil {
		return microTimer(c.f32, 0x3f803f80) // bf16 pairs of 1 (and, widened, a float32 near 1)
	}
	return microTimer(c.s32, 0x01010101)
}

func microTimer[C lowpOut](k *lowpKernel[C], word uint32) (func(), float64) {
	a, b := make([]uint32, k.mr*lowpKG), make([]uint32, k.nr*lowpKG)
	for i := range a {
		a[i] = word
	}
	for i := range b {
		b[i] = word
	}
	c := make([]C, k.mr*k.nr)
	run := func() {
		for range lowpCalls {
			k.fn(lowpKG, a, b, c, k.nr, nil, false)
		}
	}
	run() // warm the caches and the clock
	return run, float64(lowpCalls * k.mr * k.nr * lowpKG * k.fmtB.group())
}
