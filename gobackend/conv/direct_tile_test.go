package conv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// tileGeometries reach every case of the tile path (stride 1, NCHW): K
// of every row-tile height and a remainder, planes shorter than a tile,
// in place (no padding) with the last tile moved back, tiles across output
// rows and planes, dilation, batches.
func tileGeometries() []Params {
	one := [3]int{1, 1, 1}
	w1 := func(n, c, k, w, s, pad, dil int) Params {
		return Params{N: n, C: c, K: k, In: [3]int{1, 1, w}, Window: [3]int{1, 1, s}, Stride: one, Pad: [3]int{0, 0, pad}, Dil: [3]int{1, 1, dil}}
	}
	ps := []Params{
		w1(1, 3, 1, 10, 3, 0, 1),  // a plane shorter than a tile, no padding: copied
		w1(1, 5, 9, 61, 5, 2, 1),  // the suite's 1-D form, short
		w1(2, 4, 17, 55, 3, 0, 1), // in place, last tile moved back
		w1(1, 2, 8, 130, 3, 3, 2), // dilated, padding beyond the window's reach
		w1(1, 1, 33, 200, 1, 0, 1),
	}
	for k := 1; k <= 9; k++ { // every height of the kernels, alone and after full tiles
		ps = append(ps, w1(1, 3, k, 50, 3, 1, 1), w1(1, 2, 8+k, 30, 2, 0, 1))
	}
	ps = append(ps,
		Params{N: 1, C: 6, K: 7, In: [3]int{1, 13, 11}, Window: [3]int{1, 3, 3}, Stride: one, Pad: [3]int{0, 1, 1}, Dil: one},
		Params{N: 2, C: 3, K: 10, In: [3]int{1, 9, 30}, Window: [3]int{1, 3, 2}, Stride: one, Pad: [3]int{0, 0, 1}, Dil: [3]int{1, 2, 1}},
		Params{N: 2, C: 8, K: 5, In: [3]int{1, 20, 20}, Window: one, Stride: one, Dil: one}, // pointwise, in place
		Params{N: 1, C: 4, K: 12, In: [3]int{1, 7, 7}, Window: [3]int{1, 3, 3}, Stride: one, Dil: one},
		Params{N: 2, C: 2, K: 6, In: [3]int{5, 8, 9}, Window: [3]int{3, 3, 3}, Stride: one, Pad: one, Dil: one},
		Params{N: 1, C: 3, K: 3, In: [3]int{4, 12, 12}, Window: [3]int{2, 3, 3}, Stride: one, Pad: [3]int{0, 2, 1}, Dil: [3]int{2, 1, 2}},
	)
	return ps
}

func testDirectTiles[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range tileGeometries() {
		x, xf := random[T](rng, p.InLen())
		w, wf := random[T](rng, p.FilterLen())
		want, scale := refConv(p, xf, wf)
		tol := float64(p.C*prod(p.Window)+2) * eps[T]()
		for _, lvl := range isa.Levels() {
			_, mr, _ := tileKernels[T](lvl)
			for _, threads := range []int{1, 2, 3} {
				name := fmt.Sprintf("%+v/%s/threads=%d", p, lvl, threads)
				d := NewDirectConv[T](p)
				y := make([]T, p.OutLen())
				for range 2 { // the padded copy is reused
					for i := range y {
						y[i] = T(math.NaN()) // outputs must be written, never read
					}
					d.Run(lvl, x, w, y, threads)
					checkClose(t, name, y, want, scale, tol)
				}
				if (d.tile != nil) != (mr > 0) {
					t.Fatalf("%s: tile path %v, kernels of %d rows", name, d.tile != nil, mr)
				}
			}
		}
	}
}

func TestDirectTiles(t *testing.T) {
	t.Run("f32", testDirectTiles[float32])
	t.Run("f64", testDirectTiles[float64])
}

// TestScatterTile checks the copy of a tile across output rows: only the
// positions [lo, hi) of the real columns (q mod wp < wo) are written.
func TestScatterTile(t *testing.T) {
	const h, ld, wp, wo, P = 2, 12, 7, 5, 40
	tile := make([]float64, h*ld)
	for i := range tile {
		tile[i] = float64(i + 1)
	}
	y := make([]float64, h*P)
	q0, lo, hi := 3, 4, 15
	scatterTile(tile, ld, h, q0, lo, hi, wp, wo, y, P)
	for i := range h {
		for q := range 3 * wp {
			want := 0.0
			if q >= lo && q < hi && q%wp < wo {
				want = tile[i*ld+q-q0]
			}
			if q%wp < wo {
				if got := y[i*P+q/wp*wo+q%wp]; got != want {
					t.Fatalf("row %d position %d: %v, want %v", i, q, got, want)
				}
			}
		}
	}
}
