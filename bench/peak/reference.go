package peak

import (
	"fmt"
	"time"

	"github.com/peakbench/peakbench/bench/internal/units"
)

// StreamTarget runs one bandwidth pattern over a given working set on a
// given number of threads, as a measurement target of its own: the harness
// samples it round-robin with the backends of a memory-bound workload, so
// that the workload's share of a stream of the same bytes, at the same
// moments, is known whatever the host's load did since Measure ran (the
// peaks are the best of a few repetitions at the start of the run; a shared
// host can be 20–30% slower a minute later).
type StreamTarget struct {
	pattern string
	kernel  streamKernel
	threads int
	n       int // elements per array and thread
	crew    *crew
	bufs    []triadBuf
	arrays  [][3][]float64
}

// NewStreamTarget makes a target streaming pattern over bytes in all (split
// evenly between the threads), the arrays of each thread allocated and first
// touched by it, with the pattern's kernel named kernel (BandwidthPeak.Kernel:
// the one that set the peak of the level the bytes live in), else its plain
// one (streamKernelFor): a GEMV that reads eight rows of A is compared with
// eight streams where those set the peak, not with one that a core's
// prefetchers serve more slowly. Close releases the threads and the memory.
func NewStreamTarget(m Machine, pattern string, bytes, threads int, kernel string) (*StreamTarget, error) {
	if nearer, _, mix := MixParts(pattern); mix {
		pattern = nearer // a mix's reference: the nearer pattern (MixPattern)
	}
	per, ok := patternBytes[pattern]
	if !ok {
		return nil, fmt.Errorf("peak: unknown bandwidth pattern %q", pattern)
	}
	if threads < 1 {
		return nil, fmt.Errorf("peak: stream target on %d threads", threads)
	}
	// A multiple of every kernel's step, so the assembly covers it all; at
	// least one step.
	n := max(bytes/threads/per/streamStep*streamStep, streamStep)
	ks := streamKernelsFor(pattern, m.SIMDBits)
	k := ks[0] // the plain one (streamKernelFor)
	for _, c := range ks {
		if c.name == kernel {
			k = c
		}
	}
	t := &StreamTarget{pattern: pattern, kernel: k, threads: threads, n: n,
		crew: newCrew(threads), bufs: make([]triadBuf, threads), arrays: make([][3][]float64, threads)}
	arrays := patternArrays[pattern]
	t.crew.run(func(w int) {
		t.bufs[w] = newBuf(arrays * triadSpan(n)) // what carve takes, or more
		a, b, c := t.bufs[w].carve(pattern, n)
		t.arrays[w] = [3][]float64{a, b, c}
	})
	return t, nil
}

// Run implements the harness's target: iters passes on every thread at
// once, timed from the first start to the last end.
func (t *StreamTarget) Run(iters int) (time.Duration, error) {
	if iters < 1 {
		return 0, fmt.Errorf("peak: Run(%d): iterations must be at least 1", iters)
	}
	_, wall := t.crew.run(func(w int) {
		x := t.arrays[w]
		t.kernel.run(x[0], x[1], x[2], triadS, iters)
		consume(x[0][0])
	})
	return wall, nil
}

// Bytes is the traffic of one pass over all threads, counted as the
// pattern counts it (write-allocate not counted).
func (t *StreamTarget) Bytes() float64 {
	return float64(t.threads) * float64(t.n) * float64(patternBytes[t.pattern])
}

// Describe says what the target streams, e.g. "read Σ b[i] over 16 KiB on 1
// thread (read-avx (…))".
func (t *StreamTarget) Describe() string {
	return fmt.Sprintf("%s over %s on %s (%s)", patternFormula[t.pattern], units.Bytes(int(t.Bytes())), ThreadsText(t.threads), t.kernel.name)
}

// Close stops the target's threads and lets its memory go.
func (t *StreamTarget) Close() {
	if t.crew != nil {
		t.crew.close()
		for w := range t.bufs {
			t.bufs[w].free()
		}
		t.crew, t.bufs, t.arrays = nil, nil, nil
	}
}
