//go:build !purego

package fft

import (
	"fmt"
	"math"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestFusedStages: at isa.AVX512 (zmm) and isa.AVX2 (ymm, through a stack
// buffer), pairs of radix-4 stages run as one radix-16 pass
// (cfft16bAVX512, cfft16bAVX2, …), which computes what the two stages did
// to the bit: powers of 4 and of 2 (an odd and an even
// number of broadcast stages, a last radix-2), both directions, on 1 to 3 threads with the stages shared
// (the pieces split p' or q). The definition checks the fused plans in
// TestTransforms and TestSharedStages.
func TestFusedStages(t *testing.T) {
	for _, lvl := range []isa.Level{isa.AVX2, isa.AVX512} {
		if !lvl.Supported() {
			t.Logf("%s: not on this CPU", lvl)
			continue
		}
		checkFused[complex64](t, lvl)
		checkFused[complex128](t, lvl)
	}
}

func checkFused[C Complex](t *testing.T, lvl isa.Level) {
	ymmFuseBytes = 1 // fuse at every length at isa.AVX2
	defer func() { noFuse, ymmFuseBytes = false, 0 }()
	shareEveryLength(t) // on more than one thread
	for _, n := range []int{32, 64, 256, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 16} {
		x := randomInput(n, uint64(n)+7)
		in := make([]C, n)
		for i, v := range x {
			in[i] = C(v)
		}
		for _, inverse := range []bool{false, true} {
			for threads := 1; threads <= 3; threads++ {
				noFuse = true
				plain := NewPlan[C](lvl, n, inverse, threads)
				noFuse = false
				fused := NewPlan[C](lvl, n, inverse, threads)
				if countFused(fused.stages) == 0 && n >= 256 { // below, some levels fuse none
					t.Fatalf("%s n=%d threads=%d: no fused stage", lvl, n, threads)
				}
				want, got := make([]C, n), make([]C, n)
				plain.Transform(want, in)
				fused.Transform(got, in)
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%s %T n=%d inverse=%v threads=%d: output %d is %v fused, %v as two stages", lvl, got[0], n, inverse, threads, i, got[i], want[i])
				}
			}
		}
	}
}

func countFused[C Complex](stages []stage[C]) int {
	k := 0
	for _, st := range stages {
		k += b2i(st.r == 16 || st.r == 8)
	}
	return k
}

// BenchmarkFused: 1 Ki, 64 Ki and 1 Mi points with the radix-4 pairs
// fused and as two stages, alternated, at isa.AVX512 (zmm) and isa.AVX2
// (ymm, forced where AVX-512 runs too).
func BenchmarkFused(b *testing.B) {
	for _, lvl := range []isa.Level{isa.AVX2, isa.AVX512} {
		if !lvl.Supported() {
			continue
		}
		for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
			for _, c := range []string{"c64", "c128"} {
				for _, fuse := range []bool{false, true} {
					b.Run(fmt.Sprintf("%s/%s/%d/fused=%v", lvl, c, n, fuse), func(b *testing.B) {
						noFuse = !fuse
						defer func() { noFuse = false }()
						if c == "c64" {
							benchPlan(b, NewPlan[complex64](lvl, n, false, 1))
						} else {
							benchPlan(b, NewPlan[complex128](lvl, n, false, 1))
						}
					})
				}
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

// TestYmmFusedDefinition: the ymm fused passes (cfft16bAVX2, cfft16uAVX2,
// cfft8uAVX2, their x2 forms of two vectors a step, and the z forms),
// which plans use only from L2's size, at every length of TestTransforms
// against the definition.
func TestYmmFusedDefinition(t *testing.T) {
	if !isa.AVX2.Supported() {
		t.Skip("no AVX2")
	}
	ymmFuseBytes = 1
	defer func() { ymmFuseBytes, ymmLines = 0, true }()
	if p := NewPlan[complex64](isa.AVX2, 1024, false, 1); countFused(p.stages) == 0 {
		t.Fatal("1 Ki at avx2: no fused stage")
	}
	for _, lines := range []bool{true, false} {
		ymmLines = lines
		check[complex64](t, isa.AVX2, 0x1p-24)
		check[complex128](t, isa.AVX2, 0x1p-53)
	}
}

// BenchmarkYmmLines: at isa.AVX2, stage by stage, fused a vector of q a
// step, and fused two (ymmLines), fused at every length.
func BenchmarkYmmLines(b *testing.B) {
	if !isa.AVX2.Supported() {
		b.Skip("no AVX2")
	}
	ymmFuseBytes = 1
	defer func() { ymmFuseBytes = 0 }()
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
		for _, c := range []string{"c64", "c128"} {
			for _, v := range []string{"unfused", "fused", "lines"} {
				b.Run(fmt.Sprintf("%s/%d/%s", c, n, v), func(b *testing.B) {
					noFuse, ymmLines = v == "unfused", v == "lines"
					defer func() { noFuse, ymmLines = false, true }()
					if c == "c64" {
						benchPlan(b, NewPlan[complex64](isa.AVX2, n, false, 1))
					} else {
						benchPlan(b, NewPlan[complex128](isa.AVX2, n, false, 1))
					}
				})
			}
		}
	}
}

// TestFusedRadices: the passes fuseStages makes. A last radix-2 stage
// fuses with the radix 4 before it (radix 8, no twiddles), the first
// broadcast stage left alone where they are odd in number; radix-4 stages
// alone pair from the first.
func TestFusedRadices(t *testing.T) {
	if !isa.AVX512.Supported() {
		t.Skip("AVX-512: not on this CPU")
	}
	radices := func(n int) []int {
		var r []int
		for _, st := range NewPlan[complex128](isa.AVX512, n, false, 1).stages {
			r = append(r, st.r)
		}
		return r
	}
	for n, want := range map[int][]int{
		128:     {16, 8},
		256:     {16, 16},
		512:     {16, 4, 8},
		1024:    {16, 16, 4},
		2048:    {16, 16, 8},
		8192:    {16, 4, 16, 8},
		1 << 17: {16, 4, 16, 16, 8},
	} {
		if got := radices(n); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d points: passes of radix %v, want %v", n, got, want)
		}
	}
}
