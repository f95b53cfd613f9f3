package peak

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
)

// sink receives every kernel's result so no measured work is dead.
var sink atomic.Uint64

// fmaKernel is one implementation of the empirical FMA-throughput loop.
type fmaKernel struct {
	name          string
	flopsPerRound float64 // fmaAccs × lanes × 2
	// newRunner returns a runner with its own accumulators (one per thread);
	// a call runs `rounds` rounds and returns the sum of the accumulators.
	newRunner func() func(rounds int) float64
}

// The access patterns of the bandwidth kernels. Each memory level's
// bandwidth is measured for all three, since a core moves data at different
// rates depending on the mix of loads and stores (Zen 4's L1 serves two
// loads and one store per cycle: a read-only stream gets two thirds of a
// triad's bytes); a workload is compared with the pattern of its own mix
// (PatternFor).
const (
	PatternTriad  = "triad"  // a[i] = b[i] + s·c[i]: two reads, one write, 24 B/element
	PatternUpdate = "update" // a[i] = a[i] + s·b[i]: two reads, one write in place, 24 B/element
	PatternCopy   = "copy"   // a[i] = b[i]: one read, one write, 16 B/element
	PatternRead   = "read"   // Σ b[i]: one read, 8 B/element
	// PatternWiden reads one line for four it stores (a[i] = b[i/32·8 +
	// i%8]: each 64-byte line of b written to four lines of a), four
	// fifths of its bytes stored, as dequantize's (i8 → f32). Where a core
	// stores fewer bytes a cycle than it loads, such a stream is bound by
	// its stores, which the copy's 1:1 does not measure: on the Zen 5 VM
	// one thread widened at 0.62–0.63 of its L1 copy bandwidth (the store
	// rate, 64 bytes a cycle against 128 loaded and stored). Measured in
	// L1 and L2 only: past them each line stored is first read (write-
	// allocate), which costs a widen more than a copy (9 lines moved for
	// 5 counted, against 3 for 2), and a library whose dequantize stores
	// non-temporally, saying nothing of it, skips that: oneDNN's read
	// 34.5 GB/s from DRAM on one thread of the Zen 5 VM where the widen
	// read 30.2 and the copy 40.6. There the copy is a widen's ceiling
	// (PatternBandwidthFor).
	PatternWiden = "widen"
	// PatternCopyNT is the copy with non-temporal stores, which skip the
	// read for ownership of each line written: the ceiling of a kernel
	// that stores so (backend.KernelNonTemporal), measured only past L2,
	// where those stores pay; no workload's own mix (PatternFor).
	PatternCopyNT = "copy-nt"
	// PatternWidenNT reads one line for four it stores non-temporally
	// (a[i] = b[i/32·8 + i%8]: each 64-byte line of b written to four
	// lines of a), so four fifths of its bytes are non-temporal stores, as
	// dequantize's (i8 → f32): such a stream is bound by how fast a core
	// retires those stores, which the 1:1 copy-nt does not measure.
	// Measured past L2 only, like copy-nt.
	PatternWidenNT = "widen-nt"
)

// patterns is the order Measure runs them in.
var patterns = []string{PatternTriad, PatternUpdate, PatternCopy, PatternWiden, PatternRead, PatternCopyNT, PatternWidenNT}

// nonTemporalPatterns are the patterns with non-temporal stores, with the
// share of their counted bytes that is stored (NonTemporalPatternFor).
var nonTemporalPatterns = []struct {
	name    string
	written float64
}{{PatternCopyNT, 1.0 / 2}, {PatternWidenNT, 4.0 / 5}}

// NonTemporal reports whether pattern stores non-temporally (measured past
// L2 only; the ceiling of a backend.KernelNonTemporal kernel).
func NonTemporal(pattern string) bool {
	for _, p := range nonTemporalPatterns {
		if p.name == pattern {
			return true
		}
	}
	return false
}

// NonTemporalPatternFor names the non-temporal pattern a kernel storing
// non-temporally is a share of: the one whose share of stored bytes is
// nearest its own (the rule of PatternFor among copy-nt ½ and widen-nt ⅘):
// dequantize (⅘ stored) widen-nt; quantize (⅕), relu (½) and add (⅓)
// copy-nt.
func NonTemporalPatternFor(readBytes, writtenBytes float64) string {
	total := readBytes + writtenBytes
	if total <= 0 {
		return PatternCopyNT
	}
	w := writtenBytes / total
	best := nonTemporalPatterns[0]
	for _, p := range nonTemporalPatterns[1:] {
		if math.Abs(p.written-w) < math.Abs(best.written-w) {
			best = p
		}
	}
	return best.name
}

// patternBytes is the traffic per element of each pattern, counted as the
// program's loads and stores: the line a store first reads (write-allocate)
// is not counted, here as in the workloads' byte counts. That is why an
// in-place update has a pattern of its own: it stores into lines it has just
// loaded, where the triad's stores each bring in a line of their own, so
// beyond L1 it moves a third more bytes than it is counted for.
// widen's and widen-nt's are per element of a: 8 stored, 2 read (a
// quarter of b's 8).
var patternBytes = map[string]int{PatternTriad: 24, PatternUpdate: 24, PatternCopy: 16, PatternWiden: 10, PatternRead: 8, PatternCopyNT: 16, PatternWidenNT: 10}

// patternArrays is how many arrays each pattern streams.
var patternArrays = map[string]int{PatternTriad: 3, PatternUpdate: 2, PatternCopy: 2, PatternWiden: 2, PatternRead: 1, PatternCopyNT: 2, PatternWidenNT: 2}

// patternQuarters is each pattern's footprint in quarters of its a array:
// the arrays all of a's length but the widens' b, a quarter of it.
var patternQuarters = map[string]int{PatternTriad: 12, PatternUpdate: 8, PatternCopy: 8, PatternWiden: 5, PatternRead: 4, PatternCopyNT: 8, PatternWidenNT: 5}

// widen reports whether pattern is one of the widens (b a quarter of a).
func widen(pattern string) bool { return pattern == PatternWiden || pattern == PatternWidenNT }

// widenSource is how many elements of b a widen reads to write n of a:
// eight for each 32 begun.
func widenSource(n int) int { return (n + 31) / 32 * 8 }

// patternFormula is what each pattern computes, for the Source of a peak.
var patternFormula = map[string]string{
	PatternTriad:   "triad a[i]=b[i]+s·c[i]",
	PatternUpdate:  "update a[i]=a[i]+s·b[i]",
	PatternCopy:    "copy a[i]=b[i]",
	PatternWiden:   "widen a[i]=b[i/32·8+i%8] (1 line read : 4 written)",
	PatternRead:    "read Σ b[i]",
	PatternCopyNT:  "copy-nt a[i]=b[i] with non-temporal stores",
	PatternWidenNT: "widen-nt a[i]=b[i/32·8+i%8] with non-temporal stores (1 line read : 4 written)",
}

// PatternFor names the bandwidth pattern a workload is a share of: update
// for one that writes in place what it reads (axpy); read, triad, copy or
// widen for one whose share of written bytes is that pattern's (read 0,
// triad ⅓, copy ½, widen ⅘); and for a share strictly between two of
// them, both (MixPattern: quantize and a 2×2 max pool, ⅕ stored,
// read|triad), whose ceiling is the faster of the two
// (PatternBandwidthFor): a mix streams neither pattern, and was compared
// with the nearer alone. Past ⅘ (csr2coo's row indices) it is widen|copy:
// a stream that stores more still has the copy's ceiling where that is
// the faster. A reduction or GEMV is a read, an element-wise function or
// softmax a copy, add and mul a triad, dequantize a widen.
//
// oneInput says the workload streams one input array, where the triad
// reads two: at the triad's share it is the mix triad|read (convert, f32
// to bf16 or f16, ⅓ stored): one stream in and one out ran 96.8–105
// GB/s from the L3 on one thread of the Zen 5 VM, above the triad's
// 94–97 in three runs of three (its interleaved triad stream 94.8–96.8),
// under the read's 102–105.
func PatternFor(readBytes, writtenBytes float64, inPlace, oneInput bool) string {
	total := readBytes + writtenBytes
	switch {
	case inPlace:
		return PatternUpdate
	case total <= 0:
		return PatternTriad
	}
	w := writtenBytes / total
	if w < mixFloor {
		return PatternRead
	}
	for i, p := range plainPatterns[1:] {
		switch {
		case math.Abs(w-p.written) <= mixTolerance*p.written:
			if oneInput && p.name == PatternTriad {
				return MixPattern(PatternTriad, PatternRead)
			}
			return p.name
		case w < p.written:
			lo := plainPatterns[i]
			if w-lo.written <= p.written-w { // the nearer first
				return MixPattern(lo.name, p.name)
			}
			return MixPattern(p.name, lo.name)
		}
	}
	return MixPattern(PatternWiden, PatternCopy)
}

// plainPatterns are the patterns without in-place or non-temporal stores,
// in order of their share of stored bytes.
var plainPatterns = []struct {
	name    string
	written float64
}{{PatternRead, 0}, {PatternTriad, 1.0 / 3}, {PatternCopy, 1.0 / 2}, {PatternWiden, 4.0 / 5}}

// mixTolerance is how far, relative to a pattern's stored share, a
// workload's may lie from it and still be that pattern.
const mixTolerance = 0.01

// mixFloor is the stored share below which a workload is a read: a GEMV
// of 1024 rows stores 1/1026 of its bytes, an SpMV's vectors a few percent
// of what the matrix reads, and neither streams a store.
const mixFloor = 0.06

// MixPattern names the mix of two plain patterns a workload's stored share
// lies between, the nearer first ("read|triad"): its bandwidth ceiling is
// the faster of the two (PatternBandwidthFor), its reference stream the
// first (NewStreamTarget).
func MixPattern(nearer, other string) string { return nearer + "|" + other }

// MixParts returns the two patterns of a mix (MixPattern), ok false for a
// single pattern.
func MixParts(pattern string) (nearer, other string, ok bool) {
	return strings.Cut(pattern, "|")
}

// streamStep is a multiple of every stream kernel's step, in elements (the
// zmm read's: 16 accumulators × 8): working sets are rounded to it, so the
// assembly covers them whole and no Go tail is timed with it.
const streamStep = 128

// patternElems is the length of pattern's a array that streams the
// footprint of a triad of triadElems elements per array (patternQuarters),
// rounded down to the pattern's kernels' step.
func patternElems(pattern string, triadElems int) int {
	if pattern == PatternTriad {
		return triadElems
	}
	step := streamStep
	if widen(pattern) {
		step = widenStep
	}
	return 12 * triadElems / patternQuarters[pattern] / step * step
}

// widenStep is a multiple of every widen kernel's step (the zmm widen's
// 64 elements of a): a widen's arrays, 12/5 of the triad's length, are
// rounded to it, since streamStep would cut a small L1's by up to a
// sixth (614 elements to 512), and the patterns must stream the same
// memory.
const widenStep = 64

// streamKernel runs one access pattern `passes` times: a triad or a copy
// over the first len(a) elements of the arrays it touches; a read over all
// of b, storing its total in a[0] so that its work is not dead.
type streamKernel struct {
	pattern string
	name    string
	run     func(a, b, c []float64, s float64, passes int)
}

// clockKernel runs n iterations of `adds` dependent one-cycle integer adds.
type clockKernel struct {
	name string
	adds int
	run  func(n int, x, step uint64) uint64
}

// The FMA kernels compute acc = acc·m + c: with |m| < 1 every lane converges to
// c/(1−m) = 1 from its start value, never overflowing nor reaching subnormals
// (which would slow some CPUs down).
const (
	fmaM = 0.9990234375 // 1 − 2⁻¹⁰
	fmaC = 1 - fmaM
)

// fmaStart fills acc with distinct values near 1.
func fmaStart[F float32 | float64](acc []F) {
	for i := range acc {
		acc[i] = F(1 + float64(i)/64)
	}
}

// fmaKernelFor picks the FMA kernel for dtype on a core whose FP units run
// simdBits-wide vectors at full rate: the assembly of that width, else of
// the widest narrower one this CPU runs, else the pure-Go scalar loop.
func fmaKernelFor(dtype string, simdBits int) fmaKernel {
	for _, bits := range []int{512, 256, 128} {
		if bits > simdBits {
			continue
		}
		if k, ok := asmFMAKernel(dtype, bits); ok {
			return k
		}
	}
	return goFMAKernel(dtype)
}

// goFMAKernel is the pure-Go FMA kernel: scalar, so on a vector machine it is a
// lower bound, not the peak.
func goFMAKernel(dtype string) fmaKernel {
	name := fmt.Sprintf("fma-go (pure Go scalar, %d independent %s chains; far below the vector peak)", 8, dtype)
	if dtype == "f64" {
		return fmaKernel{name, 8 * 2, func() func(int) float64 {
			acc := make([]float64, 8)
			fmaStart(acc)
			return func(rounds int) float64 {
				fmaF64Generic(acc, fmaM, fmaC, rounds)
				return sum(acc)
			}
		}}
	}
	return fmaKernel{name, 8 * 2, func() func(int) float64 {
		acc := make([]float32, 8)
		fmaStart(acc)
		return func(rounds int) float64 {
			fmaF32Generic(acc, fmaM, fmaC, rounds)
			return sum(acc)
		}
	}}
}

// streamKernelFor picks the kernel of a pattern: assembly when there is one
// for this CPU (512-bit only where simdBits says the core runs it at full
// rate).
func streamKernelFor(pattern string, simdBits int) streamKernel {
	if k, ok := asmStreamKernel(pattern, simdBits); ok {
		return k
	}
	return goStreamKernel(pattern)
}

// streamAhead is how far ahead, in bytes, the prefetching stream kernels
// prefetch each array they read: on the Zen 5 VM a read over 2–8 MiB ran
// alike 1 to 8 KiB ahead.
const streamAhead = 2048

// streamKernelsFor lists the kernels of a pattern whose fastest figure is
// its peak at each level past L1: streamKernelFor's, then its prefetching
// twin where there is one. A core's hardware prefetchers alone may not keep
// enough lines in flight from L2 or L3: on the Zen 5 VM the one-thread L3
// read ran 111–121 GB/s plain and 130–134 with PREFETCHT0, as fast as a
// kernel that prefetches its input (quantize) streams, which the plain
// figure alone left above its ceiling. The read pattern has a third: eight
// streams read side by side, as a GEMV reads eight rows of A. On the Ice
// Lake VM one thread read DRAM at 13.2–13.5 GB/s in one stream, with or
// without prefetches, while BLIS's and MKL's GEMV (f32 and f64 4096²)
// read 15.3–16.0 GB/s and ours 14.1–14.7: a core's prefetchers keep more
// lines in flight for several streams than for one, and the one-stream
// figure left those results above their ceiling.
func streamKernelsFor(pattern string, simdBits int) []streamKernel {
	ks := []streamKernel{streamKernelFor(pattern, simdBits)}
	if k, ok := asmPrefetchKernel(pattern, simdBits); ok {
		ks = append(ks, k)
	}
	if k, ok := asmStreamsKernel(pattern, simdBits); ok {
		ks = append(ks, k)
	}
	return ks
}

// goStreamKernel is the pure-Go kernel of a pattern.
func goStreamKernel(pattern string) streamKernel {
	var run func(a, b, c []float64, s float64, passes int)
	switch pattern {
	case PatternTriad:
		run = func(a, b, c []float64, s float64, passes int) {
			for range passes {
				triadF64Generic(a, b, c, s)
			}
		}
	case PatternUpdate:
		run = func(a, b, _ []float64, s float64, passes int) {
			for range passes {
				updateF64Generic(a, b, s)
			}
		}
	case PatternCopy, PatternCopyNT: // Go has no non-temporal store: a plain copy
		run = func(a, b, _ []float64, _ float64, passes int) {
			for range passes {
				copyF64Generic(a, b)
			}
		}
	case PatternWiden, PatternWidenNT: // Go has no non-temporal store: a plain widen
		run = func(a, b, _ []float64, _ float64, passes int) {
			for range passes {
				widenF64Generic(a, b)
			}
		}
	case PatternRead:
		run = func(a, b, _ []float64, _ float64, passes int) {
			if passes > 0 && len(a) > 0 {
				var t float64
				for range passes {
					t += readF64Generic(b)
				}
				a[0] = t
			}
		}
	default:
		panic("peak: unknown bandwidth pattern " + pattern)
	}
	return streamKernel{pattern, pattern + "-go (pure Go)", checked(pattern, run)}
}

// clockKernelFor picks the dependent-add chain: assembly on amd64 (exactly one
// add per cycle), else pure Go (approximate).
func clockKernelFor() clockKernel {
	if k, ok := asmClockKernel(); ok {
		return k
	}
	return clockKernel{"add-chain-go (pure Go, approximate)", addChainGenericAdds, addChainGeneric}
}

// checked wraps a kernel with the length check every kernel relies on.
func checked(pattern string, k func(a, b, c []float64, s float64, passes int)) func(a, b, c []float64, s float64, passes int) {
	return func(a, b, c []float64, s float64, passes int) {
		bad := len(b) < len(a) || (pattern == PatternTriad && len(c) < len(a))
		switch pattern {
		case PatternRead:
			bad = len(b) > 0 && len(a) < 1
		case PatternWiden, PatternWidenNT:
			bad = len(b) < widenSource(len(a))
		}
		if bad {
			panic(fmt.Sprintf("peak: %s: len(a)=%d but len(b)=%d, len(c)=%d", pattern, len(a), len(b), len(c)))
		}
		k(a, b, c, s, passes)
	}
}

func sum[F float32 | float64](x []F) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// consume keeps a result alive.
func consume(v float64) { sink.Add(math.Float64bits(v)) }
