package conv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

type poolRun struct {
	lvl     isa.Level
	threads int
}

// poolRuns is every isa level the CPU runs, at 1 and 2 threads.
func poolRuns() []poolRun {
	var rs []poolRun
	for _, l := range isa.Levels() {
		rs = append(rs, poolRun{l, 1}, poolRun{l, 2})
	}
	return rs
}

// refPool is max or avg pooling by its definition in float64, with the
// avg error scale Σ|x| / window size per output.
func refPool(kind PoolKind, p Params, x []float64) (y, scale []float64) {
	out := p.Out()
	cnt := float64(prod(p.Window))
	y, scale = make([]float64, p.N*p.C*prod(out)), make([]float64, p.N*p.C*prod(out))
	for n := range p.N {
		for ch := range p.C {
			for o0 := range out[0] {
				for o1 := range out[1] {
					for o2 := range out[2] {
						m, s, a := math.Inf(-1), 0.0, 0.0
						o := [3]int{o0, o1, o2}
						var lo, hi [3]int
						for d := range 3 {
							lo[d] = max(o[d]*p.Stride[d]-p.Pad[d], 0)
							hi[d] = min(o[d]*p.Stride[d]-p.Pad[d]+p.Window[d], p.In[d])
						}
						for i0 := lo[0]; i0 < hi[0]; i0++ {
							for i1 := lo[1]; i1 < hi[1]; i1++ {
								for i2 := lo[2]; i2 < hi[2]; i2++ {
									v := x[at(p.NHWC, p.C, n, ch, p.In, i0, i1, i2)]
									m, s, a = math.Max(m, v), s+v, a+math.Abs(v)
								}
							}
						}
						i := at(p.NHWC, p.C, n, ch, out, o0, o1, o2)
						if kind == Max {
							y[i] = m
						} else {
							y[i], scale[i] = s/cnt, a/cnt
						}
					}
				}
			}
		}
	}
	return y, scale
}

// checkPool runs Pool at every level and thread count against refPool:
// max exactly, avg within (window + 2) roundings of Σ|x|/count, the
// tolerance of bench/workload.
func checkPool[T Float](t *testing.T, kind PoolKind, p Params, x []T, xf []float64) {
	t.Helper()
	want, scale := refPool(kind, p, xf)
	tol := float64(prod(p.Window)+2) * eps[T]()
	y := make([]T, len(want))
	for _, r := range poolRuns() {
		for i := range y {
			y[i] = T(math.NaN()) // every output must be written
		}
		Pool(r.lvl, kind, p, [3]int{}, x, y, r.threads)
		for i, g := range y {
			got := float64(g)
			ok := got == want[i] || math.IsNaN(got) && math.IsNaN(want[i])
			if kind == Avg {
				ok = math.Abs(got-want[i]) <= tol*scale[i]
			}
			if !ok {
				t.Fatalf("kind %d %+v %v threads %d: y[%d] = %v, want %v", kind, p, r.lvl, r.threads, i, got, want[i])
			}
		}
	}
}

// TestPoolGeometries: NCHW rows of every width to 40 (every tail of a
// stride-2 and stride-1 vector of both types at both widths), windows 1 to
// 4, strides 1 to 3, every padding, one and several window rows; NHWC
// channel counts to 37 with the same windows; 3-D windows.
func TestPoolGeometries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ps []Params
	for w := 1; w <= 40; w++ {
		for win := 1; win <= 4; win++ {
			for st := 1; st <= 3; st++ {
				for pad := 0; 2*pad <= win; pad++ {
					if w+2*pad < win {
						continue
					}
					ps = append(ps,
						Params{N: 1, C: 2, In: [3]int{1, 1, w}, Window: [3]int{1, 1, win}, Stride: [3]int{1, 1, st}, Pad: [3]int{0, 0, pad}},
						Params{N: 2, C: 1, In: [3]int{1, 5, w}, Window: [3]int{1, 3, win}, Stride: [3]int{1, 2, st}, Pad: [3]int{0, 1, pad}})
				}
			}
		}
	}
	for c := 1; c <= 37; c++ {
		for win := 1; win <= 3; win++ {
			for st := 1; st <= 3; st++ {
				for pad := 0; 2*pad <= win; pad++ {
					ps = append(ps, Params{N: 2, C: c, In: [3]int{1, 4, 7}, Window: [3]int{1, win, win}, Stride: [3]int{1, st, st}, Pad: [3]int{0, pad, pad}, NHWC: true})
				}
			}
		}
	}
	for _, nhwc := range []bool{false, true} {
		ps = append(ps,
			Params{N: 1, C: 3, In: [3]int{4, 6, 9}, Window: [3]int{2, 2, 2}, Stride: [3]int{2, 2, 2}, NHWC: nhwc},
			Params{N: 1, C: 3, In: [3]int{5, 6, 19}, Window: [3]int{3, 3, 3}, Stride: [3]int{1, 2, 2}, Pad: [3]int{1, 1, 1}, NHWC: nhwc},
			Params{N: 2, C: 5, In: [3]int{1, 7, 7}, Window: [3]int{1, 7, 7}, Stride: [3]int{1, 7, 7}, NHWC: nhwc}, // global
			Params{N: 1, C: 3, In: [3]int{2, 6, 5}, Window: [3]int{2, 3, 5}, Stride: [3]int{1, 3, 5}, NHWC: nhwc}, // whole rows
			Params{N: 1, C: 2, In: [3]int{1, 9, 23}, Window: [3]int{1, 3, 3}, Stride: [3]int{1, 3, 4}, Pad: [3]int{0, 1, 1}, NHWC: nhwc},
		)
	}
	for _, p := range ps {
		p.Dil = [3]int{1, 1, 1}
		for _, kind := range []PoolKind{Max, Avg} {
			x32, xf := random[float32](rng, p.InLen())
			checkPool(t, kind, p, x32, xf)
			x64, xf := random[float64](rng, p.InLen())
			checkPool(t, kind, p, x64, xf)
		}
	}
}

// TestPoolSuiteShapes: the pooling shapes of peakbench's suites
// (bench/workload/deepbench.go).
func TestPoolSuiteShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	one, two, three := [3]int{1, 1, 1}, [3]int{1, 2, 2}, [3]int{1, 3, 3}
	for _, c := range []struct {
		kind PoolKind
		p    Params
	}{
		{Max, Params{N: 1, C: 64, In: [3]int{1, 112, 112}, Window: three, Stride: two, Pad: [3]int{0, 1, 1}}},
		{Max, Params{N: 1, C: 64, In: [3]int{1, 112, 112}, Window: three, Stride: two, Pad: [3]int{0, 1, 1}, NHWC: true}},
		{Max, Params{N: 1, C: 64, In: [3]int{16, 56, 56}, Window: [3]int{2, 2, 2}, Stride: [3]int{2, 2, 2}}},
		{Avg, Params{N: 1, C: 64, In: [3]int{1, 56, 56}, Window: two, Stride: two}},
		{Avg, Params{N: 1, C: 256, In: [3]int{1, 28, 28}, Window: three, Stride: one, Pad: [3]int{0, 1, 1}}},
		{Avg, Params{N: 1, C: 2048, In: [3]int{1, 7, 7}, Window: [3]int{1, 7, 7}, Stride: [3]int{1, 7, 7}}},
	} {
		t.Run(fmt.Sprintf("%d %v", c.kind, c.p.In), func(t *testing.T) {
			p := c.p
			p.Dil = one
			x, xf := random[float32](rng, p.InLen())
			checkPool(t, c.kind, p, x, xf)
		})
	}
}

// TestPoolNaN: a NaN anywhere in a window makes its max NaN (the kernels
// drop it and report so); an infinity is an ordinary maximum.
func TestPoolNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, nhwc := range []bool{false, true} {
		for _, st := range []int{1, 2} {
			p := Params{N: 1, C: 3, In: [3]int{1, 6, 37}, Window: [3]int{1, 3, 3}, Stride: [3]int{1, st, st}, Pad: [3]int{0, 1, 1}, Dil: [3]int{1, 1, 1}, NHWC: nhwc}
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				x, xf := random[float32](rng, p.InLen())
				for _, i := range []int{0, 5, 40, len(x) / 2, len(x) - 1} {
					x[i], xf[i] = float32(bad), bad
				}
				checkPool(t, Max, p, x, xf)
			}
		}
	}
}

// TestPoolPlanes: global NCHW pooling (the planes kernels) over planes of
// every length to 70 (shorter than a vector, whole vectors, the
// four-vector loop, tails) and 2-D planes, with NaN and infinities in
// some planes for max.
func TestPoolPlanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var ps []Params
	for l := 1; l <= 70; l++ {
		ps = append(ps, Params{N: 3, C: 3, In: [3]int{1, 1, l}, Window: [3]int{1, 1, l}, Stride: [3]int{1, 1, l}})
	}
	ps = append(ps, Params{N: 1, C: 37, In: [3]int{1, 9, 11}, Window: [3]int{1, 9, 11}, Stride: [3]int{1, 9, 11}},
		Params{N: 2, C: 4, In: [3]int{3, 5, 5}, Window: [3]int{3, 5, 5}, Stride: [3]int{3, 5, 5}})
	for _, p := range ps {
		p.Dil = [3]int{1, 1, 1}
		for _, kind := range []PoolKind{Max, Avg} {
			x32, xf := random[float32](rng, p.InLen())
			checkPool(t, kind, p, x32, xf)
			x64, xf := random[float64](rng, p.InLen())
			checkPool(t, kind, p, x64, xf)
		}
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			x, xf := random[float32](rng, p.InLen())
			for _, i := range []int{0, len(x) / 2, len(x) - 1} {
				x[i], xf[i] = float32(bad), bad
			}
			checkPool(t, Max, p, x, xf)
		}
	}
}

// TestPoolSeparableBlocks: NCHW planes with rows so wide that the
// separable kernels' scratch holds only a few of them, so the row fold
// runs in blocks and the column fold once per block; odd widths, both
// strides, padding, and a NaN in a later block.
func TestPoolSeparableBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, w := range []int{601, 1100} {
		for _, st := range []int{1, 2} {
			p := Params{N: 1, C: 2, In: [3]int{1, 13, w}, Window: [3]int{1, 3, 3}, Stride: [3]int{1, st, st}, Pad: [3]int{0, 1, 1}, Dil: [3]int{1, 1, 1}}
			for _, kind := range []PoolKind{Max, Avg} {
				x, xf := random[float32](rng, p.InLen())
				checkPool(t, kind, p, x, xf)
				x64, xf := random[float64](rng, p.InLen())
				checkPool(t, kind, p, x64, xf)
			}
			x, xf := random[float32](rng, p.InLen())
			i := 11*w + w - 1 // a row end in the last block
			x[i], xf[i] = float32(math.NaN()), math.NaN()
			checkPool(t, Max, p, x, xf)
		}
	}
}
