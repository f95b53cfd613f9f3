package fft

import (
	"fmt"
	"math"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// TestSharedStages: transforms long enough to share their stages
// between threads (the cache cut lowered), on 1 to 3 threads, against the definition (a power
// of two, whose last stages split their columns, and 15·2^10, whose Go
// radix-3 and 5 stages split too), both directions. The threads change
// no bit: each output is computed as on one thread.
func TestSharedStages(t *testing.T) {
	shareEveryLength(t)
	for _, lvl := range isa.Levels() {
		t.Run(fmt.Sprint(lvl), func(t *testing.T) {
			checkShared[complex64](t, lvl, 0x1p-24)
			checkShared[complex128](t, lvl, 0x1p-53)
		})
	}
}

// wantShared caches the definition's outputs of checkShared's lengths.
var wantShared = map[[2]int][]complex128{}

func checkShared[C Complex](t *testing.T, lvl isa.Level, eps float64) {
	for _, n := range []int{minParallelLen, 15 << 10} {
		for _, inverse := range []bool{false, true} {
			x := randomInput(n, uint64(n)+3)
			key := [2]int{n, b2i(inverse)}
			if wantShared[key] == nil {
				wantShared[key] = dft(x, inverse)
			}
			in := make([]C, n)
			for i, v := range x {
				in[i] = C(v)
			}
			var first []C
			for threads := 1; threads <= 3; threads++ {
				p := NewPlan[C](lvl, n, inverse, threads)
				out := make([]C, n)
				p.Transform(out, in)
				tol := (8*math.Log2(float64(n)) + 16) * eps
				if e := relErr(out, wantShared[key]); e > tol || math.IsNaN(e) {
					t.Errorf("%s n=%d inverse=%v threads=%d (%s): L2 error %.3g, tolerance %.3g", lvl, n, inverse, threads, p.Kernel(), e, tol)
				}
				if first == nil {
					first = out
				} else if i := firstDiff(out, first); i >= 0 {
					t.Fatalf("%s n=%d threads=%d: output %d is %v, on one thread %v", lvl, n, threads, i, out[i], first[i])
				}
			}
		}
	}
}

// firstDiff is the first index where a and b differ, or −1.
func firstDiff[C comparable](a, b []C) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestRealShared: a real transform long enough to share its split pass
// as well as its stages (the cache cut lowered) gives the same bits on 2 and 3 threads as on one,
// and that is the complex transform of the same input, to rounding.
func TestRealShared(t *testing.T) {
	shareEveryLength(t)
	n := 4 * minSplitSteps * 2 // h/2 = 2·minSplitSteps steps: two pieces
	x := realInput(n, 11)
	in, cx := make([]float64, n), make([]complex128, n)
	for i, v := range x {
		in[i], cx[i] = real(v), v
	}
	for _, lvl := range isa.Levels() {
		want := make([]complex128, n)
		NewPlan[complex128](lvl, n, false, 1).Transform(want, cx)
		var first []complex128
		for threads := 1; threads <= 3; threads++ {
			p := NewRealPlan[float64, complex128](lvl, n, threads)
			out := make([]complex128, n/2+1)
			p.Transform(out, in)
			if e, tol := relErr(out, want[:n/2+1]), 2*(8*math.Log2(float64(n))+16)*0x1p-53; e > tol || math.IsNaN(e) {
				t.Errorf("%s n=%d threads=%d (%s): L2 error %.3g from the complex transform, tolerance %.3g", lvl, n, threads, p.Kernel(), e, tol)
			}
			if first == nil {
				first = out
			} else if i := firstDiff(out, first); i >= 0 {
				t.Fatalf("%s n=%d threads=%d: output %d is %v, on one thread %v", lvl, n, threads, i, out[i], first[i])
			}
		}
	}
}

// BenchmarkShared: lengths in and past the L2 cache on 1 and 2 threads.
func BenchmarkShared(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
		for threads := 1; threads <= 2; threads++ {
			b.Run(fmt.Sprintf("c128/%d/threads=%d", n, threads), func(b *testing.B) {
				p := NewPlan[complex128](isa.AVX512, n, false, threads)
				x, y := make([]complex128, n), make([]complex128, n)
				for i := range x {
					x[i] = complex(float64(i%7), float64(i%3))
				}
				for b.Loop() {
					p.Transform(y, x)
				}
				b.ReportMetric(5*float64(n)*math.Log2(float64(n))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestWorthSharing: the cut is the tune parameter fft.share of the type,
// in bytes of input and output: a transform whose input and output take
// less stays on one thread, one whose reach it is shared, and one thread
// or a length below minParallelLen never shares.
func TestWorthSharing(t *testing.T) {
	defer tune.Save().Restore()
	const n = 4 * minParallelLen
	p := tune.Defaults()
	p.FFT.Share.F32, p.FFT.Share.F64 = 2*n*8, 2*n*16 // n complex64, n complex128
	tune.Apply(p, "test")
	if !worthSharing[complex64](n, 2) || !worthSharing[complex128](n, 2) {
		t.Errorf("%d values at the cut not shared", n)
	}
	if worthSharing[complex64](n-1, 2) || worthSharing[complex128](n-1, 2) {
		t.Errorf("%d values below the cut shared", n-1)
	}
	if worthSharing[complex128](n, 1) {
		t.Errorf("shared on one thread")
	}
	p.FFT.Share.F32, p.FFT.Share.F64 = 0, 0
	tune.Apply(p, "test")
	if worthSharing[complex64](minParallelLen-1, 2) || !worthSharing[complex64](minParallelLen, 2) {
		t.Errorf("fft.share 0: the least shared length is not minParallelLen (%d)", minParallelLen)
	}
}

// shareEveryLength makes every transform of minParallelLen values or more
// share its stages for the rest of t.
func shareEveryLength(t *testing.T) {
	saved := tune.Save()
	t.Cleanup(saved.Restore)
	p := *tune.Current()
	p.FFT.Share = tune.PerDType{}
	tune.Apply(p, "test: share every length")
}
