package fft

import (
	"fmt"
	"math"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// fourStepSizes are lengths the four-step plan splits in every way it
// can: powers of two (square and not), mixed radix with blocks of a whole
// cache line, with fewer columns (b halved: 3·5·7·… would not split, so
// 2·odd), odd lengths (b = 1), and a length whose second pass has Go stages.
var fourStepSizes = []int{16, 64, 128, 1024, 2048, 96, 960, 3072, 5120, 6 * 25, 2 * 81, 225, 405, 9 * 125}

// checkFourStep runs the forced four-step plan of each length on 1 to 3
// threads against the definition, and checks the threads give the same
// bits.
func checkFourStep[C Complex](t *testing.T, lvl isa.Level, eps float64) {
	for _, n := range fourStepSizes {
		for _, inverse := range []bool{false, true} {
			x := randomInput(n, uint64(n)+3)
			want := dft(x, inverse)
			in := make([]C, n)
			for i, v := range x {
				in[i] = C(v)
			}
			var first []C
			for threads := 1; threads <= 3; threads++ {
				p := newPlan[C](lvl, n, inverse, threads, true)
				if p.four == nil {
					t.Fatalf("%s n=%d: no four-step split", lvl, n)
				}
				out := make([]C, n)
				p.Transform(out, in)
				tol := (8*math.Log2(float64(n)) + 16) * eps
				if e := relErr(out, want); e > tol || math.IsNaN(e) {
					t.Errorf("%s n=%d inverse=%v threads=%d (%s, %d×%d): L2 error %.3g, tolerance %.3g",
						lvl, n, inverse, threads, p.Kernel(), p.four.n1, p.four.n2, e, tol)
				}
				if first == nil {
					first = out
					continue
				}
				for i := range out {
					if out[i] != first[i] {
						t.Fatalf("%s n=%d threads=%d: output %d is %v, on one thread %v", lvl, n, threads, i, out[i], first[i])
					}
				}
			}
		}
	}
}

func TestFourStep(t *testing.T) {
	for _, lvl := range isa.Levels() {
		t.Run(fmt.Sprint(lvl), func(t *testing.T) {
			checkFourStep[complex64](t, lvl, 0x1p-24)
			checkFourStep[complex128](t, lvl, 0x1p-53)
		})
	}
}

// TestFourStepLarge: lengths past the cache cut, as NewPlan chooses them,
// against the one-pass plan (the definition would take minutes), both
// directions, on 1 and 2 threads: a power of two and 15·2^14.
func TestFourStepLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large transforms")
	}
	for _, lvl := range isa.Levels() {
		for _, n := range []int{1 << 18, 15 << 14} {
			x := randomInput(n, 5)
			in, want := make([]complex128, n), make([]complex128, n)
			copy(in, x)
			for _, inverse := range []bool{false, true} {
				newPlan[complex128](lvl, n, inverse, 1, false).Transform(want, in)
				for threads := 1; threads <= 2; threads++ {
					p := NewPlan[complex128](lvl, n, inverse, threads)
					if p.four == nil {
						t.Fatalf("%s n=%d threads=%d: one pass (%s) past the cache cut", lvl, n, threads, p.Kernel())
					}
					out := make([]complex128, n)
					p.Transform(out, in)
					if e, tol := relErr(out, want), 2*(8*math.Log2(float64(n))+16)*0x1p-53; e > tol || math.IsNaN(e) {
						t.Errorf("%s n=%d inverse=%v threads=%d (%s): L2 error %.3g from one pass, tolerance %.3g", lvl, n, inverse, threads, p.Kernel(), e, tol)
					}
				}
			}
		}
	}
}

// TestRealThreads: a real transform whose half-length plan is shared
// between threads (four-step) against the definition.
func TestRealThreads(t *testing.T) {
	n := 2 * minParallelLen
	x := realInput(n, 11)
	want := dft(x, false)[:n/2+1]
	in := make([]float64, n)
	for i, v := range x {
		in[i] = real(v)
	}
	for _, lvl := range isa.Levels() {
		for threads := 1; threads <= 3; threads++ {
			p := NewRealPlan[float64, complex128](lvl, n, threads)
			out := make([]complex128, n/2+1)
			p.Transform(out, in)
			if e, tol := relErr(out, want), (8*math.Log2(float64(n))+16)*0x1p-53; e > tol || math.IsNaN(e) {
				t.Errorf("%s n=%d threads=%d (%s): L2 error %.3g, tolerance %.3g", lvl, n, threads, p.Kernel(), e, tol)
			}
		}
	}
}

// BenchmarkFourStep: the one-pass and four-step plans of the same
// lengths, on 1 and 2 threads.
func BenchmarkFourStep(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20} {
		for _, four := range []bool{false, true} {
			for threads := 1; threads <= 2; threads++ {
				b.Run(fmt.Sprintf("c128/%d/four=%v/threads=%d", n, four, threads), func(b *testing.B) {
					p := newPlan[complex128](isa.AVX512, n, false, threads, four)
					x, y := hugeSlice[complex128](p, n), hugeSlice[complex128](p, n)
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
}
