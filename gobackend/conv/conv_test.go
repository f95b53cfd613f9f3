package conv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// geometries with odd sizes, stride, padding (also larger than the
// window), dilation, 1 to 3 spatial dimensions and both layouts.
func geometries() []Params {
	one := [3]int{1, 1, 1}
	var ps []Params
	for _, nhwc := range []bool{false, true} {
		ps = append(ps,
			Params{N: 2, C: 3, K: 5, In: [3]int{1, 9, 11}, Window: [3]int{1, 3, 2}, Stride: [3]int{1, 2, 1}, Pad: [3]int{0, 1, 0}, Dil: [3]int{1, 1, 2}, NHWC: nhwc},
			Params{N: 1, C: 4, K: 3, In: [3]int{1, 1, 17}, Window: [3]int{1, 1, 3}, Stride: [3]int{1, 1, 2}, Pad: [3]int{0, 0, 1}, Dil: [3]int{1, 1, 2}, NHWC: nhwc},
			Params{N: 1, C: 3, K: 4, In: [3]int{5, 6, 7}, Window: [3]int{3, 2, 3}, Stride: [3]int{1, 2, 1}, Pad: [3]int{1, 1, 1}, Dil: one, NHWC: nhwc},
			Params{N: 3, C: 7, K: 9, In: [3]int{1, 6, 6}, Window: one, Stride: one, Dil: one, NHWC: nhwc}, // pointwise
			Params{N: 1, C: 5, K: 3, In: [3]int{1, 7, 7}, Window: one, Stride: [3]int{1, 2, 2}, Pad: [3]int{0, 3, 3}, Dil: one, NHWC: nhwc},
			Params{N: 1, C: 2, K: 3, In: [3]int{1, 5, 5}, Window: [3]int{1, 5, 5}, Stride: [3]int{1, 3, 3}, Pad: [3]int{0, 8, 8}, Dil: one, NHWC: nhwc},
			Params{N: 1, C: 1, K: 1, In: one, Window: one, Stride: one, Dil: one, NHWC: nhwc},
			Params{N: 2, C: 16, K: 17, In: [3]int{1, 12, 13}, Window: [3]int{1, 3, 3}, Stride: one, Pad: [3]int{0, 1, 1}, Dil: one, NHWC: nhwc},
			// Output as large as the input, dilated: im2col copies runs of
			// whole rows at once.
			Params{N: 1, C: 3, K: 4, In: [3]int{4, 6, 7}, Window: [3]int{3, 3, 3}, Stride: one, Pad: [3]int{1, 2, 2}, Dil: [3]int{1, 2, 2}, NHWC: nhwc},
		)
	}
	return ps
}

// at is the offset of (n, c, d, h, w) in a tensor of dims in, c channels.
func at(nhwc bool, c, n, ch int, in [3]int, d, h, w int) int {
	if nhwc {
		return (((n*in[0]+d)*in[1]+h)*in[2]+w)*c + ch
	}
	return (((n*c+ch)*in[0]+d)*in[1]+h)*in[2] + w
}

// refConv is the convolution in float64, with Σ|x||w| per output.
func refConv(p Params, x, w []float64) (y, scale []float64) {
	o := p.Out()
	y, scale = make([]float64, p.OutLen()), make([]float64, p.OutLen())
	for n := range p.N {
		for k := range p.K {
			for o0 := range o[0] {
				for o1 := range o[1] {
					for o2 := range o[2] {
						var s, a float64
						for c := range p.C {
							for t := range p.Window[0] {
								for r := range p.Window[1] {
									for u := range p.Window[2] {
										i0 := o0*p.Stride[0] + t*p.Dil[0] - p.Pad[0]
										i1 := o1*p.Stride[1] + r*p.Dil[1] - p.Pad[1]
										i2 := o2*p.Stride[2] + u*p.Dil[2] - p.Pad[2]
										if i0 < 0 || i1 < 0 || i2 < 0 || i0 >= p.In[0] || i1 >= p.In[1] || i2 >= p.In[2] {
											continue
										}
										v := x[at(p.NHWC, p.C, n, c, p.In, i0, i1, i2)] * w[at(p.NHWC, p.C, k, c, p.Window, t, r, u)]
										s += v
										a += math.Abs(v)
									}
								}
							}
						}
						j := at(p.NHWC, p.K, n, k, o, o0, o1, o2)
						y[j], scale[j] = s, a
					}
				}
			}
		}
	}
	return y, scale
}

func random[T Float](rng *rand.Rand, n int) ([]T, []float64) {
	v, f := make([]T, n), make([]float64, n)
	for i := range v {
		v[i] = T(2*rng.Float64() - 1)
		f[i] = float64(v[i])
	}
	return v, f
}

func eps[T Float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

func checkClose[T Float](t *testing.T, what string, got []T, want, scale []float64, tol float64) {
	t.Helper()
	for i := range want {
		g := float64(got[i])
		if math.IsNaN(g) || math.Abs(g-want[i]) > tol*math.Max(scale[i], 1e-300) {
			t.Fatalf("%s: element %d = %v, want %v (scale %v, tol %v)", what, i, g, want[i], scale[i], tol)
		}
	}
}

func testConv[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range geometries() {
		x, xf := random[T](rng, p.InLen())
		w, wf := random[T](rng, p.FilterLen())
		want, scale := refConv(p, xf, wf)
		tol := float64(p.C*prod(p.Window)+2) * eps[T]()
		for _, lvl := range isa.Levels() {
			for _, threads := range []int{1, 3} {
				name := fmt.Sprintf("%+v/%s/threads=%d", p, lvl, threads)
				y := make([]T, p.OutLen())
				for i := range y {
					y[i] = T(math.NaN()) // outputs must be written, never read
				}
				Direct(lvl, p, x, w, y, threads)
				checkClose(t, "direct "+name, y, want, scale, tol)
				for i := range y {
					y[i] = T(math.NaN())
				}
				l := NewLowered[T](p)
				for range 2 { // the column buffer is reused
					l.Run(lvl, x, w, y, threads)
					checkClose(t, "im2col "+name, y, want, scale, tol)
				}
			}
		}
	}
}

func TestConv(t *testing.T) {
	t.Run("f32", testConv[float32])
	t.Run("f64", testConv[float64])
}

// TestConvTiled runs the tests with NCHW lowered in tiles of a few output
// positions, partial output rows at both ends of most tiles (and whole
// rows between them at 30).
func TestConvTiled(t *testing.T) {
	for _, cols := range []int{1, 7, 30} {
		testTileCols = cols
		t.Run(fmt.Sprintf("cols=%d/f32", cols), testConv[float32])
		t.Run(fmt.Sprintf("cols=%d/f64", cols), testConv[float64])
	}
	testTileCols = 0
}

func TestPool(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	one := [3]int{1, 1, 1}
	for _, nhwc := range []bool{false, true} {
		for _, c := range []struct {
			kind PoolKind
			p    Params
			out  [3]int
		}{
			{Max, Params{N: 2, C: 3, In: [3]int{1, 9, 10}, Window: [3]int{1, 3, 3}, Stride: [3]int{1, 2, 2}, Pad: [3]int{0, 1, 1}, Dil: one}, [3]int{}},
			{Avg, Params{N: 2, C: 3, In: [3]int{1, 9, 10}, Window: [3]int{1, 3, 2}, Stride: [3]int{1, 2, 1}, Pad: [3]int{0, 1, 1}, Dil: one}, [3]int{}},
			{Max, Params{N: 1, C: 2, In: [3]int{4, 5, 6}, Window: [3]int{2, 2, 3}, Stride: one, Pad: [3]int{1, 0, 1}, Dil: one}, [3]int{}},
			{AdaptiveAvg, Params{N: 2, C: 3, In: [3]int{1, 9, 10}, Dil: one}, [3]int{1, 4, 3}},
			{AdaptiveAvg, Params{N: 1, C: 5, In: [3]int{1, 7, 7}, Dil: one}, [3]int{1, 1, 1}},
		} {
			p := c.p
			p.NHWC = nhwc
			out := c.out
			if c.kind != AdaptiveAvg {
				out = p.Out()
			}
			x, xf := random[float32](rng, p.InLen())
			y := make([]float32, p.N*p.C*prod(out))
			for _, tl := range poolRuns() {
				threads := tl.threads
				Pool(tl.lvl, c.kind, p, c.out, x, y, threads)
				for n := range p.N {
					for ch := range p.C {
						for o0 := range out[0] {
							for o1 := range out[1] {
								for o2 := range out[2] {
									m, s, cnt := math.Inf(-1), 0.0, 1
									var lo, hi [3]int
									for d, o := range [3]int{o0, o1, o2} {
										if c.kind == AdaptiveAvg {
											lo[d], hi[d] = o*p.In[d]/out[d], ((o+1)*p.In[d]+out[d]-1)/out[d]
										} else {
											lo[d] = o*p.Stride[d] - p.Pad[d]
											hi[d] = lo[d] + p.Window[d]
										}
										cnt *= hi[d] - lo[d]
									}
									for a := max(lo[0], 0); a < min(hi[0], p.In[0]); a++ {
										for b := max(lo[1], 0); b < min(hi[1], p.In[1]); b++ {
											for e := max(lo[2], 0); e < min(hi[2], p.In[2]); e++ {
												v := xf[at(nhwc, p.C, n, ch, p.In, a, b, e)]
												m, s = math.Max(m, v), s+v
											}
										}
									}
									want := m
									if c.kind != Max {
										want = s / float64(cnt)
									}
									got := float64(y[at(nhwc, p.C, n, ch, out, o0, o1, o2)])
									if math.Abs(got-want) > 1e-6 {
										t.Fatalf("kind %d %+v %v threads %d: (%d,%d,%d,%d,%d) = %v, want %v", c.kind, p, tl.lvl, threads, n, ch, o0, o1, o2, got, want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestNorms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const e = 1e-5
	for _, lvl := range isa.Levels() {
		for _, nhwc := range []bool{false, true} {
			n, c, sp, groups := 2, 6, 35, 3
			x, xf := random[float32](rng, n*c*sp)
			idx := func(s, ch, i int) int {
				if nhwc {
					return (s*sp+i)*c + ch
				}
				return (s*c+ch)*sp + i
			}
			mean, mf := random[float32](rng, c)
			vr, vf := random[float32](rng, c)
			for i := range vr {
				vr[i] = vr[i]*vr[i] + 0.25
				vf[i] = float64(vr[i])
			}
			gamma, gf := random[float32](rng, c)
			beta, bf := random[float32](rng, c)
			y := make([]float32, n*c*sp)
			BatchNorm(n, c, sp, nhwc, x, mean, vr, gamma, beta, y, e, 2)
			for s := range n {
				for ch := range c {
					for i := range sp {
						j := idx(s, ch, i)
						want := gf[ch]*(xf[j]-mf[ch])/math.Sqrt(vf[ch]+e) + bf[ch]
						if math.Abs(float64(y[j])-want) > 1e-5 {
							t.Fatalf("batchnorm %v: %v, want %v", nhwc, y[j], want)
						}
					}
				}
			}
			GroupNorm(lvl, n, c, sp, groups, nhwc, x, gamma, beta, y, e, 2)
			cpg := c / groups
			for s := range n {
				for g := range groups {
					var mu, v float64
					for ch := g * cpg; ch < (g+1)*cpg; ch++ {
						for i := range sp {
							mu += xf[idx(s, ch, i)]
						}
					}
					mu /= float64(cpg * sp)
					for ch := g * cpg; ch < (g+1)*cpg; ch++ {
						for i := range sp {
							d := xf[idx(s, ch, i)] - mu
							v += d * d
						}
					}
					v /= float64(cpg * sp)
					for ch := g * cpg; ch < (g+1)*cpg; ch++ {
						for i := range sp {
							j := idx(s, ch, i)
							want := gf[ch]*(xf[j]-mu)/math.Sqrt(v+e) + bf[ch]
							if math.Abs(float64(y[j])-want) > 1e-4 {
								t.Fatalf("groupnorm %s %v: %v, want %v", lvl, nhwc, y[j], want)
							}
						}
					}
				}
			}
		}
		// LayerNorm: rows of f.
		n, f := 3, 70
		x, xf := random[float64](rng, n*f)
		gamma, gf := random[float64](rng, f)
		beta, bf := random[float64](rng, f)
		y := make([]float64, n*f)
		LayerNorm(lvl, n, f, x, gamma, beta, y, e, 2)
		for r := range n {
			var mu, v float64
			for _, a := range xf[r*f : (r+1)*f] {
				mu += a
			}
			mu /= float64(f)
			for _, a := range xf[r*f : (r+1)*f] {
				v += (a - mu) * (a - mu)
			}
			v /= float64(f)
			for i := range f {
				want := gf[i]*(xf[r*f+i]-mu)/math.Sqrt(v+e) + bf[i]
				if math.Abs(y[r*f+i]-want) > 1e-12 {
					t.Fatalf("layernorm %s: %v, want %v", lvl, y[r*f+i], want)
				}
			}
		}
	}
}

func TestPanics(t *testing.T) {
	p := Params{N: 1, C: 1, K: 1, In: [3]int{1, 1, 4}, Window: [3]int{1, 1, 3}, Stride: [3]int{1, 1, 1}, Dil: [3]int{1, 1, 1}}
	for name, f := range map[string]func(){
		"short x":    func() { Direct(isa.Generic, p, make([]float32, 3), make([]float32, 3), make([]float32, 2), 1) },
		"threads 0":  func() { Direct(isa.Generic, p, make([]float32, 4), make([]float32, 3), make([]float32, 2), 0) },
		"big window": func() { q := p; q.Window[2] = 9; NewLowered[float32](q) },
		"bad groups": func() { GroupNorm[float32](isa.Generic, 1, 4, 1, 3, false, nil, nil, nil, nil, 1e-5, 1) },
		"pool dilate": func() {
			q := p
			q.Dil[2] = 2
			Pool(isa.Generic, Max, q, [3]int{}, make([]float32, 4), make([]float32, 2), 1)
		},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 6 || s[:6] != "conv: " {
					t.Errorf("%s: panic %v, want a conv: message", name, r)
				}
			}()
			f()
		}()
	}
}

// TestPoolRow: every window, stride, padding and row length up to small
// bounds against the definition, for the interior/edge split.
func TestPoolRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for in := 1; in <= 12; in++ {
		for win := 1; win <= 4; win++ {
			for st := 1; st <= 3; st++ {
				for pad := 0; 2*pad <= win; pad++ {
					if in+2*pad < win {
						continue
					}
					n := (in+2*pad-win)/st + 1
					x, _ := random[float64](rng, in)
					for _, kind := range []PoolKind{Max, Avg} {
						y := make([]float64, n)
						for i := range y {
							y[i] = 0.25 // poolRow folds into what is there
						}
						rp := newRowPlan(n, in, win, st, pad)
						poolRow(kind, y, x, &rp)
						for q := range n {
							want := 0.25
							for s := range win {
								if i := q*st + s - pad; i >= 0 && i < in {
									if kind == Max {
										want = math.Max(want, x[i])
									} else {
										want += x[i]
									}
								}
							}
							if math.Abs(y[q]-want) > 1e-12 {
								t.Fatalf("in %d win %d stride %d pad %d kind %d: y[%d] = %v, want %v", in, win, st, pad, kind, q, y[q], want)
							}
						}
					}
				}
			}
		}
	}
}
