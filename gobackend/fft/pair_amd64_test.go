//go:build !purego

package fft

import (
	"fmt"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// withoutPairs returns p with its pair stages (pairBlock) turned back into
// the broadcast kernel's: the reference the pair kernel is compared with.
func withoutPairs[C Complex](p *Plan[C]) *Plan[C] {
	q := *p
	q.stages = append([]stage[C](nil), p.stages...)
	for i := range q.stages {
		if st := &q.stages[i]; st.s > 1 && st.blk == 2 {
			st.blk = 0
			st.tw = twiddles(*st, p.inverse)
		}
	}
	q.work = make([]C, p.n)
	return &q
}

// TestPairStage: a plan whose stride-4 stage runs two p a zmm vector
// gives the broadcast kernel's outputs bit for bit, both directions,
// lengths from the shortest with an even m to one shared between threads.
func TestPairStage(t *testing.T) {
	if !haveAsm || !isa.AVX512.Supported() {
		t.Skip("no AVX-512")
	}
	shareEveryLength(t) // 1 << 13 on more than one thread
	for _, n := range []int{32, 64, 128, 1024, 1 << 13} {
		for _, inverse := range []bool{false, true} {
			for threads := 1; threads <= 3; threads++ {
				pairCacheBytes = 1 << 30 // every length as pairs
				p := NewPlan[complex64](isa.AVX512, n, inverse, threads)
				pairCacheBytes = 0
				pairs := 0
				for _, st := range p.stages {
					if st.s > 1 && st.blk == 2 {
						pairs++
					}
				}
				if pairs != 1 {
					t.Fatalf("n=%d: %d pair stages, want 1", n, pairs)
				}
				x := make([]complex64, n)
				for i, v := range randomInput(n, uint64(n)) {
					x[i] = complex64(v)
				}
				got, want := make([]complex64, n), make([]complex64, n)
				p.Transform(got, x)
				withoutPairs(p).Transform(want, x)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("n=%d inverse=%v threads=%d: y[%d] = %v, the broadcast kernel's %v", n, inverse, threads, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkPairStage: one plan with its stride-4 stage as pairs and as
// broadcasts, side by side (-count alternates them), whatever pairFits
// would choose: the measurement behind it.
func BenchmarkPairStage(b *testing.B) {
	if !haveAsm || !isa.AVX512.Supported() {
		b.Skip("no AVX-512")
	}
	for _, n := range []int{1 << 10, 1 << 11, 1 << 12, 1 << 14, 1 << 16} {
		pairCacheBytes = 1 << 30 // every length as pairs
		p := NewPlan[complex64](isa.AVX512, n, false, 1)
		pairCacheBytes = 0
		for _, v := range []struct {
			name string
			plan *Plan[complex64]
		}{{"pairs", p}, {"broadcast", withoutPairs(p)}} {
			b.Run(fmt.Sprintf("%d/%s", n, v.name), func(b *testing.B) {
				x, y := make([]complex64, n), make([]complex64, n)
				for i := range x {
					x[i] = complex(float32(i%7), float32(i%3))
				}
				for b.Loop() {
					v.plan.Transform(y, x)
				}
			})
		}
	}
}

// TestPairCut: the pair kernel runs a stage whose buffers and table fit
// the cut (1 Ki complex64: 16 KiB of buffers, 6 KiB of table), not one
// past it (2 Ki: 44 KiB).
func TestPairCut(t *testing.T) {
	if !haveAsm || !isa.AVX512.Supported() {
		t.Skip("no AVX-512")
	}
	pairCacheBytes = 32 << 10
	defer func() { pairCacheBytes = 0 }()
	for n, want := range map[int]bool{1 << 10: true, 1 << 11: false} {
		got := false
		for _, st := range NewPlan[complex64](isa.AVX512, n, false, 1).stages {
			got = got || st.s > 1 && st.blk == 2
		}
		if got != want {
			t.Errorf("n=%d with a 32 KiB cut: pair stage %v, want %v", n, got, want)
		}
	}
}
