package fft

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestBlockedStages: transforms whose last stages run in cache blocks (the
// cache cut lowered to a sixteenth and a quarter of the transform, so
// blocks start at different stages), on 1 to 3 threads with the whole-array
// stages shared, against the definition: powers of 4 and of 2 with a last
// radix-2 stage, 3·2^k and 5·2^k (Go radix-3 and 5 stages in the blocks),
// and a prime, whose Bluestein convolution is blocked. The threads change
// no bit.
func TestBlockedStages(t *testing.T) {
	shareAbove = 1
	defer func() { shareAbove, blockCacheBytes = 0, 0 }()
	for _, lvl := range isa.Levels() {
		t.Run(fmt.Sprint(lvl), func(t *testing.T) {
			checkBlocked[complex64](t, lvl, 0x1p-24)
			checkBlocked[complex128](t, lvl, 0x1p-53)
		})
	}
}

// wantBlocked caches the definition's outputs of checkBlocked's lengths.
var wantBlocked = map[[2]int][]complex128{}

func checkBlocked[C Complex](t *testing.T, lvl isa.Level, eps float64) {
	var z C
	for _, n := range []int{1 << 12, 1 << 13, 3 << 10, 5 << 9, 4099} {
		for _, part := range []int{16, 4} {
			blockCacheBytes = n * int(unsafe.Sizeof(z)) / part
			for _, inverse := range []bool{false, true} {
				x := randomInput(n, uint64(n)+5)
				key := [2]int{n, b2i(inverse)}
				if wantBlocked[key] == nil {
					wantBlocked[key] = dft(x, inverse)
				}
				in := make([]C, n)
				for i, v := range x {
					in[i] = C(v)
				}
				var first []C
				for threads := 1; threads <= 3; threads++ {
					p := NewPlan[C](lvl, n, inverse, threads)
					if n&(n-1) == 0 && p.blocks == nil {
						t.Fatalf("%s n=%d cut=%d: not blocked", lvl, n, blockCacheBytes)
					}
					out := make([]C, n)
					p.Transform(out, in)
					tol := (8*math.Log2(float64(n)) + 16) * eps
					if e := relErr(out, wantBlocked[key]); e > tol || math.IsNaN(e) {
						t.Errorf("%s n=%d cut=%d inverse=%v threads=%d (%s): L2 error %.3g, tolerance %.3g", lvl, n, blockCacheBytes, inverse, threads, p.Kernel(), e, tol)
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
}

// TestBlockedCut: a transform whose input and output fit in the L2 cache
// runs stage after stage; one past it is blocked, in blocks of whole cache
// lines within half of it.
func TestBlockedCut(t *testing.T) {
	l2 := isa.Caches().L2
	fits := l2 / 16 // complex64 values of input and output in L2
	if fits&(fits-1) != 0 {
		t.Skipf("L2 of %d bytes: not a power of two", l2)
	}
	if p := NewPlan[complex64](isa.Generic, fits, false, 1); p.blocks != nil {
		t.Errorf("%d complex64 (in and out: L2's %d bytes) blocked", fits, l2)
	}
	p := NewPlan[complex64](isa.Generic, 4*fits, false, 1)
	b := p.blocks
	if b == nil {
		t.Fatalf("%d complex64 (four times L2's %d bytes) not blocked", 4*fits, l2)
	}
	if bytes := 2 * b.cols * (4 * fits / b.stride) * 8; bytes > l2/2 || b.cols*8 < blockMinBytes {
		t.Errorf("blocks of %d columns at stride %d: %d bytes, L2 %d", b.cols, b.stride, bytes, l2)
	}
}

// BenchmarkBlocked: 1 Mi points past the L2 cache, stage after stage
// (blocking off) and blocked, alternated, on 1 and 2 threads.
func BenchmarkBlocked(b *testing.B) {
	n := 1 << 20
	for _, c := range []string{"c64", "c128"} {
		for threads := 1; threads <= 2; threads++ {
			for _, on := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/threads=%d/blocked=%v", c, threads, on), func(b *testing.B) {
					if c == "c64" {
						benchBlocked[complex64](b, n, threads, on)
					} else {
						benchBlocked[complex128](b, n, threads, on)
					}
				})
			}
		}
	}
}

func benchBlocked[C Complex](b *testing.B, n, threads int, on bool) {
	p := NewPlan[C](isa.Best, n, false, threads)
	if !on {
		p.blocks = nil
	}
	x, y := make([]C, n), make([]C, n)
	for i := range x {
		x[i] = C(complex(float64(i%7), float64(i%3)))
	}
	for b.Loop() {
		p.Transform(y, x)
	}
	b.ReportMetric(5*float64(n)*math.Log2(float64(n))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
