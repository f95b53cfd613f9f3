package conv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refAdaptive is adaptive average pooling by its definition (windows
// ⌊i·in/out⌋ … ⌈(i+1)·in/out⌉ − 1) in float64, with the error scale
// Σ|x| / window size per output.
func refAdaptive(p Params, out [3]int, x []float64) (y, scale []float64) {
	y, scale = make([]float64, p.N*p.C*prod(out)), make([]float64, p.N*p.C*prod(out))
	for n := range p.N {
		for ch := range p.C {
			for o0 := range out[0] {
				for o1 := range out[1] {
					for o2 := range out[2] {
						var lo, hi [3]int
						cnt := 1
						for d, o := range [3]int{o0, o1, o2} {
							lo[d], hi[d] = o*p.In[d]/out[d], ((o+1)*p.In[d]+out[d]-1)/out[d]
							cnt *= hi[d] - lo[d]
						}
						var s, a float64
						for i0 := lo[0]; i0 < hi[0]; i0++ {
							for i1 := lo[1]; i1 < hi[1]; i1++ {
								for i2 := lo[2]; i2 < hi[2]; i2++ {
									v := x[at(p.NHWC, p.C, n, ch, p.In, i0, i1, i2)]
									s, a = s+v, a+math.Abs(v)
								}
							}
						}
						j := at(p.NHWC, p.C, n, ch, out, o0, o1, o2)
						y[j], scale[j] = s/float64(cnt), a/float64(cnt)
					}
				}
			}
		}
	}
	return y, scale
}

// TestAdaptiveEqualWindows checks the adaptive pools that run as average
// pooling (input extents multiples of the output's) at every level and in
// both layouts against the definition: global, stride 2 (the vector
// kernel), stride 7 (the generic loops), 3-D, odd channel counts, and an
// output as large as the input (windows of one element). A NaN input
// makes its own output NaN and no other.
func TestAdaptiveEqualWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	one := [3]int{1, 1, 1}
	for _, nhwc := range []bool{false, true} {
		for _, c := range []struct {
			n, ch   int
			in, out [3]int
		}{
			{1, 37, [3]int{1, 7, 7}, [3]int{1, 1, 1}},
			{2, 5, [3]int{1, 8, 10}, [3]int{1, 4, 5}},
			{1, 3, [3]int{1, 14, 14}, [3]int{1, 2, 2}},
			{1, 4, [3]int{4, 6, 6}, [3]int{2, 3, 3}},
			{1, 3, [3]int{1, 5, 9}, [3]int{1, 5, 9}},
			{3, 17, [3]int{1, 1, 33}, [3]int{1, 1, 1}},
		} {
			p := Params{N: c.n, C: c.ch, In: c.in, Dil: one, NHWC: nhwc}
			if _, ok := equalWindows(c.in, c.out); !ok {
				t.Fatalf("%v → %v: not equal windows", c.in, c.out)
			}
			x, xf := random[float32](rng, p.InLen())
			nan := rng.IntN(len(x))
			for _, withNaN := range []bool{false, true} {
				if withNaN {
					x[nan], xf[nan] = float32(math.NaN()), math.NaN()
				}
				want, scale := refAdaptive(p, c.out, xf)
				for _, r := range poolRuns() {
					y := make([]float32, len(want))
					Pool(r.lvl, AdaptiveAvg, p, c.out, x, y, r.threads)
					for j, w := range want {
						g := float64(y[j])
						if math.IsNaN(w) != math.IsNaN(g) || math.Abs(g-w) > scale[j]*float64(prod(c.in)/prod(c.out)+2)*0x1p-24 {
							t.Fatalf("%v → %v nhwc=%v %v threads %d: y[%d] = %v, want %v", c.in, c.out, nhwc, r.lvl, r.threads, j, g, w)
						}
					}
				}
			}
		}
	}
}

// TestEqualWindows checks which extents make equal windows.
func TestEqualWindows(t *testing.T) {
	for _, c := range []struct {
		in, out, q [3]int
		ok         bool
	}{
		{[3]int{1, 7, 7}, [3]int{1, 1, 1}, [3]int{1, 7, 7}, true},
		{[3]int{1, 14, 14}, [3]int{1, 7, 2}, [3]int{1, 2, 7}, true},
		{[3]int{1, 14, 14}, [3]int{1, 3, 3}, [3]int{}, false},
		{[3]int{4, 14, 14}, [3]int{3, 7, 7}, [3]int{}, false},
	} {
		q, ok := equalWindows(c.in, c.out)
		if ok != c.ok || (ok && q != c.q) {
			t.Errorf("equalWindows(%v, %v) = %v, %v; want %v, %v", c.in, c.out, q, ok, c.q, c.ok)
		}
	}
}
