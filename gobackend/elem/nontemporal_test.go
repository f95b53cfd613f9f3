package elem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

// TestNonTemporalBits checks that the NT kernels give the bits of the
// ordinary ones over a long vector, whatever its offset from a 64-byte
// line (the head before the first line runs the ordinary kernel), on 1
// and 2 threads. forCases covers every short length the same way.
func TestNonTemporalBits(t *testing.T) {
	lvl := isa.Levels()[len(isa.Levels())-1]
	rnd := rand.New(rand.NewPCG(3, 4))
	n := 3<<14 + 37
	defer tune.Save().Restore()
	for off := range 16 {
		x, y := input[float32](n, off, rnd, 4, true).Data, input[float32](n, 15-off, rnd, 4, true).Data
		xd := input[float64](n, off, rnd, 4, true).Data
		for _, th := range []int{1, 2} {
			run := func() [][]float64 {
				z, e, ed := make([]float32, n+16), make([]float32, n+16), make([]float64, n+8)
				Add(lvl, x, y, z[off:n+off], th)
				Exp(lvl, x, e[off:n+off], th)
				Sigmoid(lvl, xd, ed[off%8:n+off%8], th)
				return [][]float64{widen(z), widen(e), ed}
			}
			setNT(tune.MaxPieceBytes)
			want := run()
			setNT(0)
			got := run()
			for i := range want {
				for j := range want[i] {
					if math.Float64bits(want[i][j]) != math.Float64bits(got[i][j]) {
						t.Fatalf("off=%d threads=%d: output %d differs at %d: %v, ordinary stores %v", off, th, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
}

// setNT applies the parameters in force with nontemporal.elem at v.
func setNT(v int) { tunetest.With(func(p *tune.Params) { p.NonTemporal.Elem = v }) }

func widen(s []float32) []float64 {
	w := make([]float64, len(s))
	for i, v := range s {
		w[i] = float64(v)
	}
	return w
}

// BenchmarkNonTemporal times the ops with an output of their own, with
// ordinary stores (nt=off) and non-temporal ones (nt=on), from sizes that
// stay in the caches to ones that do not. Alternate nt=on and nt=off in
// separate runs of the binary to compare them.
func BenchmarkNonTemporal(b *testing.B) {
	lvl := isa.Levels()[len(isa.Levels())-1]
	rnd := rand.New(rand.NewPCG(7, 8))
	defer tune.Save().Restore()
	for _, n := range []int{256 << 10, 1 << 20, 4 << 20, 16 << 20} {
		x, y, z := input[float32](n, 0, rnd, 1, false).Data, input[float32](n, 0, rnd, 1, false).Data, make([]float32, n)
		xd, yd, zd := input[float64](n, 0, rnd, 1, false).Data, input[float64](n, 0, rnd, 1, false).Data, make([]float64, n)
		for _, th := range []int{1, 2} {
			for _, nt := range []bool{false, true} {
				setNT(tune.MaxPieceBytes)
				if nt {
					setNT(0)
				}
				name := fmt.Sprintf("n=%d/t=%d/nt=%v", n, th, nt)
				b.Run("Add/f32/"+name, func(b *testing.B) { benchOp(b, n, 12, func() { Add(lvl, x, y, z, th) }) })
				b.Run("Add/f64/"+name, func(b *testing.B) { benchOp(b, n, 24, func() { Add(lvl, xd, yd, zd, th) }) })
				b.Run("ReLU/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { ReLU(lvl, x, z, th) }) })
				b.Run("Exp/f32/"+name, func(b *testing.B) { benchOp(b, n, 8, func() { Exp(lvl, x, z, th) }) })
				b.Run("Exp/f64/"+name, func(b *testing.B) { benchOp(b, n, 16, func() { Exp(lvl, xd, zd, th) }) })
			}
		}
	}
}
