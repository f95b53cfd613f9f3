//go:build !purego

package fft

import (
	"fmt"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
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
	q.work = newWork[C](p.n)
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
				pairMaxBytes = 1 << 30 // every length as pairs
				p := NewPlan[complex64](isa.AVX512, n, inverse, threads)
				pairMaxBytes = 0
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

// BenchmarkPairStage: the pair kernel's plan of a length against the one
// fft.pair = 0 gives (the first two stages fused where they fuse), side by
// side (run it several times with -count): the measurement behind the
// default.
func BenchmarkPairStage(b *testing.B) {
	if !haveAsm || !isa.AVX512.Supported() {
		b.Skip("no AVX-512")
	}
	for _, n := range []int{1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12} {
		pairMaxBytes = 1 << 30 // every length as pairs
		pairs := NewPlan[complex64](isa.AVX512, n, false, 1)
		pairMaxBytes = 0
		fused := withPair(b, 0, func() *Plan[complex64] { return NewPlan[complex64](isa.AVX512, n, false, 1) })
		for _, v := range []struct {
			name string
			plan *Plan[complex64]
		}{{"pairs", pairs}, {"fused", fused}} {
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

// withPair returns what f makes with fft.pair at limit.
func withPair[T any](tb testing.TB, limit int, f func() T) T {
	tb.Helper()
	saved := tune.Save()
	defer saved.Restore()
	p := *tune.Current()
	p.FFT.Pair = limit
	tune.Apply(p, "test: fft.pair")
	return f()
}

// TestPairCut: the pair kernel runs the stride-4 stage of a transform of at
// most fft.pair bytes of input and output (1 Ki complex64: 16 KiB), not of
// a longer one (2 Ki: 32 KiB), nor of any at the default, 0; where it does
// not, the first two stages are one fused pass.
func TestPairCut(t *testing.T) {
	if !haveAsm || !isa.AVX512.Supported() {
		t.Skip("no AVX-512")
	}
	for _, c := range []struct {
		limit, n int
		pair     bool
	}{{16 << 10, 1 << 10, true}, {16 << 10, 1 << 11, false}, {0, 1 << 10, false}, {0, 1 << 8, false}, {tune.Defaults().FFT.Pair, 1 << 10, false}} {
		p := withPair(t, c.limit, func() *Plan[complex64] { return NewPlan[complex64](isa.AVX512, c.n, false, 1) })
		pair, fusedFirst := false, p.stages[0].r == 16 && p.stages[0].s == 1
		for _, st := range p.stages {
			pair = pair || st.s > 1 && st.blk == 2
		}
		if pair != c.pair || fusedFirst == c.pair {
			t.Errorf("n=%d, fft.pair %d: pair stage %v, first two stages fused %v; want pairs %v", c.n, c.limit, pair, fusedFirst, c.pair)
		}
	}
}
