//go:build !purego

package fft

import (
	"fmt"
	"math"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestFusedStages: at isa.AVX512, pairs of radix-4 stages run as one
// radix-16 pass (cfft16bAVX512, zfft16bAVX512), which computes what the
// two stages did to the bit: powers of 4 and of 2 (an odd and an even
// number of broadcast stages, a last radix-2), both directions, on 1 to 3 threads with the stages shared
// (the pieces split p' or q). The definition checks the fused plans in
// TestTransforms and TestSharedStages.
func TestFusedStages(t *testing.T) {
	if !isa.AVX512.Supported() {
		t.Skip("no AVX-512")
	}
	checkFused[complex64](t)
	checkFused[complex128](t)
}

func checkFused[C Complex](t *testing.T) {
	defer func() { shareAbove, noFuse = 0, false }()
	for _, n := range []int{256, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 16} {
		x := randomInput(n, uint64(n)+7)
		in := make([]C, n)
		for i, v := range x {
			in[i] = C(v)
		}
		for _, inverse := range []bool{false, true} {
			for _, shared := range []bool{false, true} {
				for threads := 1; threads <= 3; threads++ {
					if !shared && threads > 1 {
						continue
					}
					shareAbove = b2i(shared)
					noFuse = true
					plain := NewPlan[C](isa.AVX512, n, inverse, threads)
					noFuse = false
					fused := NewPlan[C](isa.AVX512, n, inverse, threads)
					if countFused(fused.stages) == 0 {
						t.Fatalf("n=%d threads=%d: no fused stage", n, threads)
					}
					want, got := make([]C, n), make([]C, n)
					plain.Transform(want, in)
					fused.Transform(got, in)
					if i := firstDiff(got, want); i >= 0 {
						t.Fatalf("%T n=%d inverse=%v shared=%v threads=%d: output %d is %v fused, %v as two stages", got[0], n, inverse, shared, threads, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func countFused[C Complex](stages []stage[C]) int {
	k := 0
	for _, st := range stages {
		k += b2i(st.r == 16)
	}
	return k
}

// BenchmarkFused: 1 Ki, 64 Ki and 1 Mi points with the radix-4 pairs
// fused and as two stages, alternated.
func BenchmarkFused(b *testing.B) {
	if !isa.AVX512.Supported() {
		b.Skip("no AVX-512")
	}
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
		for _, c := range []string{"c64", "c128"} {
			for _, fuse := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/%d/fused=%v", c, n, fuse), func(b *testing.B) {
					noFuse = !fuse
					defer func() { noFuse = false }()
					if c == "c64" {
						benchPlan(b, NewPlan[complex64](isa.AVX512, n, false, 1))
					} else {
						benchPlan(b, NewPlan[complex128](isa.AVX512, n, false, 1))
					}
				})
			}
		}
	}
}

func benchPlan[C Complex](b *testing.B, p *Plan[C]) {
	n := p.Len()
	x, y := make([]C, n), make([]C, n)
	for i := range x {
		x[i] = C(complex(float64(i%7), float64(i%3)))
	}
	for b.Loop() {
		p.Transform(y, x)
	}
	b.ReportMetric(5*float64(n)*math.Log2(float64(n))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
