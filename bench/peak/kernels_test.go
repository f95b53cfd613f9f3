package peak

import (
	"math"
	"strings"
	"testing"
)

// guard is the padding around kernel outputs: NaNs with a payload no kernel
// produces, so a write out of bounds is seen.
const guard = 16

var guardBits = math.Float64bits(math.NaN()) | 0xbeef

func guarded(n int) (buf, a []float64) {
	buf = make([]float64, n+2*guard)
	for i := range buf {
		buf[i] = math.Float64frombits(guardBits)
	}
	return buf, buf[guard : guard+n]
}

func checkGuards(t *testing.T, buf []float64, n int) {
	t.Helper()
	for i := range buf {
		if (i < guard || i >= guard+n) && math.Float64bits(buf[i]) != guardBits {
			t.Fatalf("n=%d: guard %d overwritten: %v", n, i-guard, buf[i])
		}
	}
}

func triadInputs(n, off int) (b, c []float64) {
	b, c = make([]float64, n+off), make([]float64, n+off)
	for i := range b {
		b[i] = 1 + float64(i)/7
		c[i] = math.Sqrt(float64(i+1)) - 3 // products that are rounded, not exact
	}
	return b[off:], c[off:]
}

func TestTriadGeneric(t *testing.T) {
	b, c := triadInputs(100, 0)
	buf, a := guarded(100)
	triadF64Generic(a, b, c, 3)
	checkGuards(t, buf, 100)
	for i := range a {
		if want := math.FMA(3, c[i], b[i]); a[i] != want {
			t.Fatalf("a[%d] = %v, want %v", i, a[i], want)
		}
	}
}

// TestStreamKernels checks every kernel of every pattern this CPU can run,
// the ones Measure picks included (the prefetching twins too), against the pure-Go twins bit for bit:
// every length up to 200, four alignments, one and three passes, guards
// around the output. The read sums small integers, exact in any order.
func TestStreamKernels(t *testing.T) {
	for _, pat := range patterns {
		ks := map[string]streamKernel{"generic": goStreamKernel(pat)}
		for _, bits := range []int{128, 256, 512} {
			for _, k := range streamKernelsFor(pat, bits) {
				if k.pattern != pat {
					t.Fatalf("streamKernelsFor(%s, %d) has a %s kernel", pat, bits, k.pattern)
				}
				ks[k.name] = k
			}
		}
		for name, k := range ks {
			for n := 0; n <= 200; n++ {
				for off := 0; off < 4; off++ {
					b, c := triadInputs(n, off)
					if widen(pat) { // b a quarter of a, whole lines
						b, _ = triadInputs(widenSource(n), off)
					}
					if pat == PatternRead {
						for i := range b {
							b[i] = float64(i%7 - 3)
						}
					}
					for _, passes := range []int{1, 3} {
						var want, a0 []float64
						if pat == PatternUpdate { // reads a too
							a0 = make([]float64, n)
							for i := range a0 {
								a0[i] = 0.5 + float64(i%11)/3
							}
						}
						switch pat {
						case PatternTriad:
							want = make([]float64, n)
							triadF64Generic(want, b, c, -1.25)
						case PatternUpdate:
							want = append([]float64(nil), a0...)
							for range passes {
								updateF64Generic(want, b, -1.25)
							}
						case PatternCopy, PatternCopyNT:
							want = append([]float64(nil), b...)
						case PatternWiden, PatternWidenNT: // each line of b four times over
							want = make([]float64, n)
							for i := range want {
								want[i] = b[i/32*8+i%8]
							}
						case PatternRead:
							var s float64
							for _, v := range b {
								s += v
							}
							want = []float64{float64(passes) * s}
						}
						buf, a := guarded(len(want) + off)
						a = a[off:]
						copy(a, a0)
						k.run(a, b, c, -1.25, passes)
						checkGuards(t, buf, len(want)+off)
						for i := range want {
							if math.Float64bits(a[i]) != math.Float64bits(want[i]) {
								t.Fatalf("%s n=%d off=%d passes=%d: a[%d] = %v, want %v", name, n, off, passes, i, a[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

func TestStreamShortInputPanics(t *testing.T) {
	for _, pat := range patterns {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic for arrays shorter than a", pat)
				}
			}()
			a := make([]float64, 4)
			if pat == PatternRead {
				a = nil // no room for the total
			}
			streamKernelFor(pat, 256).run(a, make([]float64, 3), make([]float64, 3), 1, 1)
		}()
	}
}

// TestWidenNTAligned runs widen-nt's kernels where the assembly runs (a on
// 64 bytes, lengths past a block) and checks every element and the guards.
func TestWidenNTAligned(t *testing.T) {
	buf := newBuf(2 * triadSpan(1024))
	for _, bits := range []int{256, 512} {
		k := streamKernelFor(PatternWidenNT, bits)
		for _, n := range []int{32, 96, 1000, 1024} {
			a, b, _ := buf.carve(PatternWidenNT, n)
			if len(b) != widenSource(n) {
				t.Fatalf("carve: b of %d elements for a of %d, want %d", len(b), n, widenSource(n))
			}
			for i := range b {
				b[i] = float64(i + 1)
			}
			for i := range a {
				a[i] = -1
			}
			next := buf.raw[n : n+1] // the element after a
			next[0] = -7
			k.run(a, b, nil, 0, 2)
			for i := range a {
				if want := float64(i/32*8 + i%8 + 1); a[i] != want {
					t.Fatalf("%s n=%d: a[%d] = %v, want %v", k.name, n, i, a[i], want)
				}
			}
			if next[0] != -7 {
				t.Fatalf("%s n=%d: wrote past a", k.name, n)
			}
		}
	}
}

// TestNonTemporalPatternFor: the non-temporal pattern nearest a kernel's
// stored share.
func TestNonTemporalPatternFor(t *testing.T) {
	for _, c := range []struct {
		read, written float64
		want          string
	}{
		{4, 1, PatternCopyNT},  // quantize f32 → i8
		{8, 4, PatternCopyNT},  // add
		{4, 4, PatternCopyNT},  // relu
		{1, 4, PatternWidenNT}, // dequantize i8 → f32
		{0, 4, PatternWidenNT}, // a fill
		{0, 0, PatternCopyNT},
	} {
		if got := NonTemporalPatternFor(c.read, c.written); got != c.want {
			t.Errorf("NonTemporalPatternFor(%g, %g) = %s, want %s", c.read, c.written, got, c.want)
		}
		if !NonTemporal(c.want) {
			t.Errorf("NonTemporal(%s) = false", c.want)
		}
	}
	if NonTemporal(PatternCopy) {
		t.Error("NonTemporal(copy) = true")
	}
}

// TestPatternFor: a stored share equal to a plain pattern's (within 1%)
// is that pattern, as before mixes; one strictly between two is their mix,
// the nearer first; below the floor a read, past widen's widen|copy.
func TestPatternFor(t *testing.T) {
	for _, c := range []struct {
		read, written float64
		want          string
	}{
		{4096, 0, PatternRead},     // sum, max, dot
		{8192, 4096, PatternTriad}, // add, mul
		{4096, 4096, PatternCopy},  // relu, exp, softmax
		{1 << 20, 4096, PatternRead},
		{1024 * 1026, 1024, PatternRead},                  // a 1024² GEMV: 0.001 stored
		{1000, 53, PatternRead},                           // 0.050: under the floor
		{0, 0, PatternTriad},                              // nothing moved: as before
		{4, 1, MixPattern(PatternTriad, PatternRead)},     // quantize, a 2×2 max pool: 0.2
		{9, 1, MixPattern(PatternRead, PatternTriad)},     // 0.1
		{6, 4, MixPattern(PatternTriad, PatternCopy)},     // 0.4
		{5.5, 4.5, MixPattern(PatternCopy, PatternTriad)}, // 0.45
		{2.002, 0.998, PatternTriad},                      // 0.3327: within 1% of ⅓
		{1, 4, PatternWiden},                              // dequantize: 0.8
		{2, 4, MixPattern(PatternWiden, PatternCopy)},     // bf16 → f32: ⅔, nearer ⅘
		{2, 3, MixPattern(PatternCopy, PatternWiden)},     // 0.6, nearer ½
		{1, 16, MixPattern(PatternWiden, PatternCopy)},    // csr2coo: 0.94, past widen
	} {
		if got := PatternFor(c.read, c.written, false, false); got != c.want {
			t.Errorf("PatternFor(%g, %g) = %s, want %s", c.read, c.written, got, c.want)
		}
	}
	// One input array: the triad's share is a mix with the read
	// (convert); the other shares are as with two.
	for _, c := range []struct {
		read, written float64
		want          string
	}{
		{4, 2, MixPattern(PatternTriad, PatternRead)}, // convert f32 → bf16
		{4096, 4096, PatternCopy},                     // relu
		{1, 4, PatternWiden},                          // dequantize
		{4, 1, MixPattern(PatternTriad, PatternRead)}, // quantize
		{4096, 0, PatternRead},                        // sum
	} {
		if got := PatternFor(c.read, c.written, false, true); got != c.want {
			t.Errorf("PatternFor(%g, %g) of one input = %s, want %s", c.read, c.written, got, c.want)
		}
	}
	if got := PatternFor(8192, 4096, true, false); got != PatternUpdate { // axpy
		t.Errorf("PatternFor of an in-place workload = %s, want %s", got, PatternUpdate)
	}
	if a, b, ok := MixParts(MixPattern(PatternTriad, PatternRead)); !ok || a != PatternTriad || b != PatternRead {
		t.Errorf("MixParts(triad|read) = %s, %s, %v", a, b, ok)
	}
	if _, _, ok := MixParts(PatternTriad); ok {
		t.Error("MixParts(triad) says it is a mix")
	}
}

func TestPatternBandwidthFor(t *testing.T) {
	p := Peaks{Bandwidth: []BandwidthPeak{
		{Level: "L1", Threads: 1, GBPS: 300}, // an older file: no pattern, a triad
		{Level: "L1", Threads: 1, Pattern: PatternRead, GBPS: 200},
		{Level: "L2", Threads: 1, Pattern: PatternTriad, GBPS: 100},
		{Level: "L3", Threads: 1, Pattern: PatternTriad, GBPS: 112, Source: "t"},
		{Level: "L3", Threads: 1, Pattern: PatternRead, GBPS: 127, Source: "r"},
		{Level: "L3", Threads: 1, Pattern: PatternCopy, GBPS: 118, Source: "c"},
		{Level: "L3", Threads: 2, Pattern: PatternTriad, GBPS: 221},
		{Level: "L3", Threads: 2, Pattern: PatternRead, GBPS: 212},
		{Level: "L1", Threads: 2, Pattern: PatternCopy, GBPS: 800},
		{Level: "L1", Threads: 2, Pattern: PatternWiden, GBPS: 500},
	}}
	readTriad, triadRead := MixPattern(PatternRead, PatternTriad), MixPattern(PatternTriad, PatternRead)
	for _, c := range []struct {
		level, pattern string
		threads        int
		want           float64
		wantPattern    string
	}{
		{"L1", PatternRead, 1, 200, PatternRead}, {"L1", PatternTriad, 1, 300, ""}, {"L1", PatternCopy, 1, 300, ""},
		{"L2", PatternRead, 1, 100, PatternTriad}, {"L3", PatternRead, 1, 127, PatternRead}, {"DRAM", PatternRead, 1, 0, ""},
		// A mix: the faster of its two, whichever is named first.
		{"L3", triadRead, 1, 127, PatternRead}, {"L3", readTriad, 1, 127, PatternRead},
		{"L3", triadRead, 2, 221, PatternTriad},
		{"L3", MixPattern(PatternTriad, PatternCopy), 1, 118, PatternCopy},
		// One of the two measured: that one; neither (an older file): the triad.
		{"L2", triadRead, 1, 100, PatternTriad},
		{"L1", MixPattern(PatternCopy, PatternTriad), 1, 300, ""},
		{"DRAM", triadRead, 1, 0, ""},
		// A widen: its own; where not measured (older files) the copy,
		// else the triad; widen|copy the faster.
		{"L1", PatternWiden, 2, 500, PatternWiden}, {"L3", PatternWiden, 1, 118, PatternCopy},
		{"L2", PatternWiden, 1, 100, PatternTriad}, {"L1", MixPattern(PatternWiden, PatternCopy), 2, 800, PatternCopy},
	} {
		b, ok := p.PatternBandwidthFor(c.level, c.pattern, c.threads)
		if b.GBPS != c.want || ok != (c.want > 0) || b.Pattern != c.wantPattern {
			t.Errorf("PatternBandwidthFor(%s, %s, %d) = %v %q, %v; want %v %q", c.level, c.pattern, c.threads, b.GBPS, b.Pattern, ok, c.want, c.wantPattern)
		}
		if _, _, mix := MixParts(c.pattern); mix && ok && b.Pattern != "" && !strings.Contains(b.Source, "the faster of") {
			t.Errorf("PatternBandwidthFor(%s, %s, %d): Source %q does not say it is the faster of two", c.level, c.pattern, c.threads, b.Source)
		}
	}
}

func TestFMAGeneric(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 12, 17} {
		acc := make([]float64, n)
		fmaStart(acc)
		want := append([]float64(nil), acc...)
		fmaF64Generic(acc, fmaM, fmaC, 5)
		for i := range want {
			for range 5 {
				want[i] = math.FMA(want[i], fmaM, fmaC)
			}
			if acc[i] != want[i] {
				t.Fatalf("n=%d acc[%d] = %v, want %v", n, i, acc[i], want[i])
			}
		}
		acc32 := make([]float32, n)
		fmaStart(acc32)
		want32 := append([]float32(nil), acc32...)
		fmaF32Generic(acc32, fmaM, fmaC, 5)
		for i := range want32 {
			for range 5 {
				want32[i] = fma32(want32[i], fmaM, fmaC)
			}
			if acc32[i] != want32[i] {
				t.Fatalf("n=%d acc32[%d] = %v, want %v", n, i, acc32[i], want32[i])
			}
		}
	}
}

// TestFMAKernels runs each FMA kernel Measure may pick and checks its
// checksum against the pure-Go twin (float32: through float64, so within a
// few ulps, see fma32).
func TestFMAKernels(t *testing.T) {
	for _, dtype := range []string{"f32", "f64"} {
		for _, bits := range []int{0, 128, 256, 512} {
			k := fmaKernelFor(dtype, bits)
			if bits == 0 {
				k = goFMAKernel(dtype)
			}
			lanes := int(k.flopsPerRound / 2)
			for _, rounds := range []int{0, 1, 2, 37} {
				var want float64
				if dtype == "f64" {
					acc := make([]float64, lanes)
					fmaStart(acc)
					fmaF64Generic(acc, fmaM, fmaC, rounds)
					want = sum(acc)
				} else {
					acc := make([]float32, lanes)
					fmaStart(acc)
					fmaF32Generic(acc, fmaM, fmaC, rounds)
					want = sum(acc)
				}
				got := k.newRunner()(rounds)
				tol := 0.0
				if dtype == "f32" {
					tol = 1e-6 * math.Abs(want)
				}
				if math.Abs(got-want) > tol {
					t.Errorf("%s (%d bits asked) rounds=%d: sum %v, want %v", k.name, bits, rounds, got, want)
				}
			}
		}
	}
}

func TestAddChainGeneric(t *testing.T) {
	// Reference: the same chain, one statement per iteration.
	x, step := uint64(12345), uint64(0x9e3779b97f4a7c15)
	want := x
	for range 3 * addChainGenericAdds / 2 {
		want = (want + step) ^ step<<7
	}
	if got := addChainGeneric(3, x, step); got != want {
		t.Errorf("addChainGeneric = %#x, want %#x", got, want)
	}
	if got := addChainGeneric(0, x, step); got != x {
		t.Errorf("addChainGeneric(0) = %#x, want x", got)
	}
}

// A level without a peak on a thread count is compared with the nearest
// larger level that has one, DRAM last, and the note names both.
func TestCeilingFor(t *testing.T) {
	p := Peaks{
		Caches: []CacheLevel{ // L3 listed first: the order is by size, not by listing
			{Level: "L3", Threads: 2, Found: true, BoundBytes: 32 << 20},
			{Level: "L1", Threads: 2, Found: true, BoundBytes: 96 << 10},
			{Level: "L2", Threads: 2, Found: true, BoundBytes: 2 << 20},
			{Level: "L1", Threads: 1, Found: true, BoundBytes: 48 << 10},
		},
		Bandwidth: []BandwidthPeak{
			{Level: "L3", Threads: 2, Pattern: PatternRead, GBPS: 120},
			{Level: "L2", Threads: 2, Pattern: PatternTriad, GBPS: 200},
			{Level: "DRAM", Threads: 2, Pattern: PatternRead, GBPS: 25},
			{Level: "DRAM", Threads: 1, Pattern: PatternRead, GBPS: 13},
		},
	}
	for _, c := range []struct {
		level, pattern string
		threads        int
		want           float64
		wantLevel      string
	}{
		{"L3", PatternRead, 2, 120, "L3"},  // its own
		{"L1", PatternTriad, 2, 200, "L2"}, // L1 has none: L2, the next larger
		{"L1", PatternRead, 2, 200, "L2"},  // L2's triad stands for its read (an older file), before L3's read
		{"L2", PatternRead, 2, 200, "L2"},
		{"L1", PatternRead, 1, 13, "DRAM"}, // no larger level found on one thread
		{"DRAM", PatternRead, 2, 25, "DRAM"},
		{"L1", PatternCopy, 3, 0, ""}, // nothing on three threads
	} {
		b, note, ok := p.CeilingFor(c.level, c.pattern, c.threads)
		if b.GBPS != c.want || b.Level != c.wantLevel || ok != (c.want > 0) {
			t.Errorf("CeilingFor(%s, %s, %d) = %v at %q, %v; want %v at %q", c.level, c.pattern, c.threads, b.GBPS, b.Level, ok, c.want, c.wantLevel)
		}
		if own := b.Level == c.level; ok && own != (note == "") || !own && ok && !(strings.Contains(note, c.level) && strings.Contains(note, b.Level)) {
			t.Errorf("CeilingFor(%s, %s, %d): note %q for a ceiling at %s", c.level, c.pattern, c.threads, note, b.Level)
		}
	}
}

// TestPatternElems: every pattern streams between 90% and 100% of the
// triad's footprint at each triad length a level can be given (multiples
// of 2·streamStep, plannedLevels): the widen rounded to streamStep had
// 5 KiB against the triad's 6 KiB in a small L1 (TestMeasureQuick under
// the race detector).
func TestPatternElems(t *testing.T) {
	for triad := 2 * streamStep; triad <= 64*streamStep; triad += 2 * streamStep {
		want := patternQuarters[PatternTriad] * triad
		for _, pat := range patterns {
			n := patternElems(pat, triad)
			got := patternQuarters[pat] * n
			if got > want || 10*got < 9*want {
				t.Errorf("%s over a triad of %d: %d elements, footprint %d quarters against %d", pat, triad, n, got, want)
			}
			if step := map[bool]int{true: widenStep, false: streamStep}[widen(pat)]; n%step != 0 {
				t.Errorf("%s over a triad of %d: %d elements, not a multiple of %d", pat, triad, n, step)
			}
		}
	}
}
