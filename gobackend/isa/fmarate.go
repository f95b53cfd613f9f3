package isa

//go:generate go run -C ../_asm . -pkg isa

import (
	"sync"
	"time"
)

// FullRateZMM reports whether this CPU runs 512-bit FMAs at the rate it
// runs 256-bit ones, so that AVX-512 doubles the arithmetic a core does:
// two full-width FMA units, as on Zen 5 server and desktop parts and
// Intel's server cores (at a lower clock there: the 2-vCPU Intel VM's
// recorded clocks, 3.6–3.9 GHz with zmm and 4.1–4.2 with ymm, give AVX-512
// 1.7–1.9× AVX2's FMAs), rather than one unit, or two 256-bit halves (Zen
// 4; Zen 5's mobile parts). CPUID does not say; a
// probe times fmaLoops of each width, alternated, the fastest of
// fmaProbeTrials each, once per process (well under a millisecond), and
// calls the rate full where AVX-512 does at least fullRateRatio times the
// FMAs of AVX2 in a given time. False below the AVX512 level.
func FullRateZMM() bool {
	fullRateOnce.Do(func() {
		if Best >= AVX512 {
			fullRate = zmmRateRatio(fmaLoop) >= fullRateRatio
		}
	})
	return fullRate
}

// fullRateRatio lies between 1 (512-bit FMAs as two halves: the same
// FMAs a second either way) and 2 (full width, one clock).
const fullRateRatio = 1.5

// fmaProbeTrials and fmaProbeRounds: each trial runs 12·4096 FMAs of one
// width, 6–12 µs.
const (
	fmaProbeTrials = 7
	fmaProbeRounds = 4096
)

var (
	fullRateOnce sync.Once
	fullRate     bool
)

// zmmRateRatio is the FMAs a second at 512 bits over those at 256, from
// loop(zmm, rounds): the fastest of fmaProbeTrials alternated trials of
// each width, after a warm-up that lets a clock that changes with the
// vector width settle.
func zmmRateRatio(loop func(zmm bool, rounds int)) float64 {
	loop(true, 16*fmaProbeRounds)
	loop(false, fmaProbeRounds)
	best := [2]time.Duration{time.Hour, time.Hour} // ymm, zmm
	for range fmaProbeTrials {
		for i, zmm := range []bool{false, true} {
			start := time.Now()
			loop(zmm, fmaProbeRounds)
			best[i] = min(best[i], time.Since(start))
		}
	}
	// Twice the lanes in the zmm loop: in equal times, twice the FMAs.
	return 2 * float64(best[0]) / float64(max(best[1], 1))
}
