package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Layer data, by op (every tensor in the layout of LayerShape):
//
//	conv        x, w                  uniform in [-1, 1)
//	pools       x                     uniform in [-1, 1)
//	batchnorm   x, μ, σ², γ, β (C each)   x in [-1, 1), μ in [-0.5, 0.5),
//	                                      σ² in [0.25, 1.25), γ in [0.5, 1.5), β in [-0.5, 0.5)
//	layernorm   x, γ, β (C·D·H·W each, in x's order within one sample)
//	groupnorm   x, γ, β (C each)
func (w Workload) newLayerData(seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, uint64(len(w.Op))<<32^uint64(w.DType.Size())^0x1a7e5))
	uniform := func(n int, lo, hi float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = w.DType.Round(lo + (hi-lo)*rng.Float64())
		}
		return v
	}
	l := w.Shape.Layer
	x := uniform(l.N*l.C*l.InSize(), -1, 1)
	d := Data{Alpha: 1}
	switch w.Op {
	case Conv1D, Conv2D, Conv3D:
		d.Args = [][]float64{x, uniform(l.K*l.C*l.WindowSize(), -1, 1)}
	case BatchNorm:
		c := l.C
		d.Args = [][]float64{x, uniform(c, -0.5, 0.5), uniform(c, 0.25, 1.25), uniform(c, 0.5, 1.5), uniform(c, -0.5, 0.5)}
	case LayerNorm:
		f := l.C * l.InSize()
		d.Args = [][]float64{x, uniform(f, 0.5, 1.5), uniform(f, -0.5, 0.5)}
	case GroupNorm:
		d.Args = [][]float64{x, uniform(l.C, 0.5, 1.5), uniform(l.C, -0.5, 0.5)}
	default:
		d.Args = [][]float64{x}
	}
	return d
}

// tensor describes one N×C×D×H×W tensor in a layout.
type tensor struct {
	n, c int
	dim  [3]int
	nhwc bool
}

// at returns the offset of element (n, c, d, h, w).
func (t tensor) at(n, c, d, h, w int) int {
	if t.nhwc {
		return (((n*t.dim[0]+d)*t.dim[1]+h)*t.dim[2]+w)*t.c + c
	}
	return (((n*t.c+c)*t.dim[0]+d)*t.dim[1]+h)*t.dim[2] + w
}

func (t tensor) len() int { return t.n * t.c * t.dim[0] * t.dim[1] * t.dim[2] }

// logical returns v (in t's layout) in N×C×D×H×W order.
func (t tensor) logical(v []float64) []float64 {
	if !t.nhwc {
		return v
	}
	out := make([]float64, len(v))
	plain := tensor{n: t.n, c: t.c, dim: t.dim}
	t.each(func(n, c, d, h, w int) { out[plain.at(n, c, d, h, w)] = v[t.at(n, c, d, h, w)] })
	return out
}

// layout returns v (in N×C×D×H×W order) in t's layout.
func (t tensor) layout(v []float64) []float64 {
	if !t.nhwc {
		return v
	}
	out := make([]float64, len(v))
	plain := tensor{n: t.n, c: t.c, dim: t.dim}
	t.each(func(n, c, d, h, w int) { out[t.at(n, c, d, h, w)] = v[plain.at(n, c, d, h, w)] })
	return out
}

func (t tensor) each(f func(n, c, d, h, w int)) {
	for n := range t.n {
		for c := range t.c {
			for d := range t.dim[0] {
				for h := range t.dim[1] {
					for w := range t.dim[2] {
						f(n, c, d, h, w)
					}
				}
			}
		}
	}
}

// Tensors of a layer workload: input, output and (conv) filter, the filter
// as a tensor of K "samples" of C channels over the window.
func (w Workload) layerTensors() (in, out, filter tensor) {
	l := w.Shape.Layer
	in = tensor{n: l.N, c: l.C, dim: l.In, nhwc: l.NHWC}
	out = tensor{n: l.N, c: l.OutChannels(w.Op), dim: l.OutDims(w.Op), nhwc: l.NHWC}
	filter = tensor{n: l.K, c: l.C, dim: l.Window, nhwc: l.NHWC}
	return in, out, filter
}

// fullConvLimit is the most multiply-adds (N·K·P·C·T·R·S) of a convolution
// checked element by element; larger ones are checked by projection.
const fullConvLimit = 1 << 26

// layerReference computes the exact-as-float64 result of a layer op in the
// output's layout, each element's error scale and the tolerance in units of
// the dtype's roundoff:
//
//	conv      scale Σ|x||w|, tolerance C·T·R·S + 2 (the γ_k bound of a k-term sum)
//	maxpool   scale |y|, tolerance 0 (the result is one of the inputs)
//	avgpool   scale Σ|x|/count, tolerance window + 2
//	batchnorm scale |γ|·(|x|+|μ|)/√(σ²+ε) + |β|, tolerance 16
//	layernorm, groupnorm over groups of F elements: scale
//	          |γ|·(ρ·|x−μ| + mean|x|)/√(σ²+ε) + |β| with ρ = 1 + 1.5·mean(x²)/(σ²+ε),
//	          tolerance F + 16: the mean's error (γ_F·mean|x|), the variance's
//	          (γ_F·mean(x²), which one-pass formulas make relative to σ² through
//	          ρ) and a few roundings of the affine step.
func (w Workload) layerReference(d Data) (ref, scale []float64, tolULPs float64) {
	l := w.Shape.Layer
	tin, tout, tf := w.layerTensors()
	x := tin.logical(d.Args[0])
	switch w.Op {
	case Conv1D, Conv2D, Conv3D:
		wt := tf.logical(d.Args[1])
		ref, scale = convLogical(l, x, wt, absOf(wt), l.K)
		return tout.layout(ref), tout.layout(scale), float64(l.C*l.WindowSize()) + 2
	case MaxPool, AvgPool, AdaptiveAvgPool:
		ref, scale, tolULPs = poolLogical(w.Op, l, x)
		return tout.layout(ref), tout.layout(scale), tolULPs
	case BatchNorm:
		mean, vr, gamma, beta := d.Args[1], d.Args[2], d.Args[3], d.Args[4]
		ref, scale = make([]float64, len(x)), make([]float64, len(x))
		sp := l.InSize()
		for n := range l.N {
			for c := range l.C {
				rstd := 1 / math.Sqrt(vr[c]+NormEpsilon)
				for i := range sp {
					j := (n*l.C+c)*sp + i
					ref[j] = gamma[c]*(x[j]-mean[c])*rstd + beta[c]
					scale[j] = math.Abs(gamma[c])*(math.Abs(x[j])+math.Abs(mean[c]))*rstd + math.Abs(beta[c])
				}
			}
		}
		return tout.layout(ref), tout.layout(scale), 16
	}
	// layernorm and groupnorm: groups of consecutive channels of one sample.
	groups := 1
	if w.Op == GroupNorm {
		groups = l.Groups
	}
	per := l.C / groups * l.InSize() // elements per group
	gamma, beta := d.Args[1], d.Args[2]
	affine := func(j int) (g, b float64) { // γ, β of logical element j
		if w.Op == LayerNorm {
			f := l.C * l.InSize()
			return gamma[j%f], beta[j%f]
		}
		c := j / l.InSize() % l.C
		return gamma[c], beta[c]
	}
	ref, scale = make([]float64, len(x)), make([]float64, len(x))
	for g := 0; g < l.N*groups; g++ {
		seg := x[g*per : (g+1)*per]
		var sum, abs, sq float64
		for _, v := range seg {
			sum += v
			abs += math.Abs(v)
			sq += v * v
		}
		mu := sum / float64(per)
		var vs float64
		for _, v := range seg {
			vs += (v - mu) * (v - mu)
		}
		vr := vs / float64(per)
		rstd := 1 / math.Sqrt(vr+NormEpsilon)
		rho := 1 + 1.5*(sq/float64(per))/(vr+NormEpsilon)
		meanAbs := abs / float64(per)
		for i, v := range seg {
			j := g*per + i
			ga, be := affine(j)
			ref[j] = ga*(v-mu)*rstd + be
			scale[j] = math.Abs(ga)*(rho*math.Abs(v-mu)+meanAbs)*rstd + math.Abs(be)
		}
	}
	return tout.layout(ref), tout.layout(scale), float64(per) + 16
}

// convLogical computes the convolution of x (N×C×D×H×W) with the k filters
// wt (k×C×T×R×S) and, with wabs in place of wt and |x| for x, the error
// scale, both N×k×P₀×P₁×P₂; parallel over samples and filters.
func convLogical(l LayerShape, x, wt, wabs []float64, k int) (ref, scale []float64) {
	o := l.OutDims(Conv2D)
	osz := o[0] * o[1] * o[2]
	isz := l.InSize()
	win := l.WindowSize()
	ref, scale = make([]float64, l.N*k*osz), make([]float64, l.N*k*osz)
	xabs := absOf(x)
	parallelRows(l.N*k, func(nk int) {
		n, kk := nk/k, nk%k
		r, s := ref[nk*osz:(nk+1)*osz], scale[nk*osz:(nk+1)*osz]
		for c := range l.C {
			xc, ac := x[(n*l.C+c)*isz:(n*l.C+c+1)*isz], xabs[(n*l.C+c)*isz:(n*l.C+c+1)*isz]
			for t := range l.Window[0] {
				for rr := range l.Window[1] {
					for ss := range l.Window[2] {
						wi := ((kk*l.C+c)*win + (t*l.Window[1]+rr)*l.Window[2] + ss)
						wv, wa := wt[wi], wabs[wi]
						for o0 := range o[0] {
							i0 := o0*l.Stride[0] + t*l.Dil[0] - l.Pad[0]
							if i0 < 0 || i0 >= l.In[0] {
								continue
							}
							for o1 := range o[1] {
								i1 := o1*l.Stride[1] + rr*l.Dil[1] - l.Pad[1]
								if i1 < 0 || i1 >= l.In[1] {
									continue
								}
								row := (i0*l.In[1] + i1) * l.In[2]
								out := (o0*o[1] + o1) * o[2]
								lo, hi := validRange(o[2], l.Stride[2], ss*l.Dil[2]-l.Pad[2], l.In[2])
								for o2 := lo; o2 < hi; o2++ {
									i2 := row + o2*l.Stride[2] + ss*l.Dil[2] - l.Pad[2]
									r[out+o2] += xc[i2] * wv
									s[out+o2] += ac[i2] * wa
								}
							}
						}
					}
				}
			}
		}
	})
	return ref, scale
}

// validRange returns the outputs o in [0, n) whose input o·stride + off
// lies in [0, in).
func validRange(n, stride, off, in int) (lo, hi int) {
	// o·stride + off ≥ 0  ⇔  o ≥ ⌈−off/stride⌉
	if off < 0 {
		lo = (-off + stride - 1) / stride
	}
	// o·stride + off ≤ in−1  ⇔  o ≤ ⌊(in−1−off)/stride⌋
	if in-1-off < 0 {
		return lo, lo
	}
	hi = min(n, (in-1-off)/stride+1)
	return lo, max(lo, hi)
}

// poolLogical pools x (N×C×D×H×W) into N×C×P₀×P₁×P₂.
func poolLogical(op Op, l LayerShape, x []float64) (ref, scale []float64, tolULPs float64) {
	o := l.OutDims(op)
	osz, isz := o[0]*o[1]*o[2], l.InSize()
	ref, scale = make([]float64, l.N*l.C*osz), make([]float64, l.N*l.C*osz)
	window := func(dim, i int) (lo, hi int) {
		if op == AdaptiveAvgPool {
			return AdaptiveWindow(i, l.In[dim], l.Out[dim])
		}
		lo = i*l.Stride[dim] - l.Pad[dim]
		return lo, lo + l.Window[dim]
	}
	maxCount := 0
	for nc := 0; nc < l.N*l.C; nc++ {
		xc := x[nc*isz : (nc+1)*isz]
		for o0 := range o[0] {
			a0, b0 := window(0, o0)
			for o1 := range o[1] {
				a1, b1 := window(1, o1)
				for o2 := range o[2] {
					a2, b2 := window(2, o2)
					m, sum, abs := math.Inf(-1), 0.0, 0.0
					for i0 := max(a0, 0); i0 < min(b0, l.In[0]); i0++ {
						for i1 := max(a1, 0); i1 < min(b1, l.In[1]); i1++ {
							for i2 := max(a2, 0); i2 < min(b2, l.In[2]); i2++ {
								v := xc[(i0*l.In[1]+i1)*l.In[2]+i2]
								m = math.Max(m, v)
								sum += v
								abs += math.Abs(v)
							}
						}
					}
					// avgpool counts the padding (PyTorch's count_include_pad,
					// oneDNN's avg_include_padding): the window size.
					count := (b0 - a0) * (b1 - a1) * (b2 - a2)
					maxCount = max(maxCount, count)
					j := nc*osz + (o0*o[1]+o1)*o[2] + o2
					if op == MaxPool {
						ref[j], scale[j] = m, math.Abs(m)
					} else {
						ref[j], scale[j] = sum/float64(count), abs/float64(count)
					}
				}
			}
		}
	}
	if op == MaxPool {
		return ref, scale, 0
	}
	return ref, scale, float64(maxCount) + 2
}

// verifyLayer checks a layer op's output; large convolutions by projection.
func (w Workload) verifyLayer(d Data, out []float64) Check {
	l := w.Shape.Layer
	macs := float64(l.N) * float64(l.K) * float64(l.OutSize(w.Op)) * float64(l.C) * float64(l.WindowSize())
	if w.Op.layerKind() == KindConv && macs > fullConvLimit {
		return w.verifyConvProjected(d, out)
	}
	ref, scale, tol := w.layerReference(d)
	c := compare(out, ref, scale, tol*w.DType.Epsilon())
	c.Method = "full"
	return c
}

// verifyConvProjected checks a large convolution's output y by projecting
// it on a random vector t over the output channels: Σₖ tₖ·y[n,k,p] is the
// convolution of x with the one filter Σₖ tₖ·wₖ, which costs 1/K of the
// whole. Each yₖ errs by at most γ·Σ|x||wₖ|, so the projection errs by at
// most γ·Σ|x|·(Σₖ|tₖ||wₖ|): the same bound, with that scale. The
// projection catches systematic errors anywhere (a wrong channel, stride,
// padding or layout); the first and last output channel of the first and
// last sample and 4096 sampled elements, recomputed exactly, catch local
// ones with the per-element bound.
func (w Workload) verifyConvProjected(d Data, out []float64) Check {
	l := w.Shape.Layer
	tin, tout, tf := w.layerTensors()
	x := tin.logical(d.Args[0])
	wt := tf.logical(d.Args[1])
	y := tout.logical(out)
	eps := w.DType.Epsilon()
	terms := l.C * l.WindowSize()
	tol := (float64(terms) + 2) * eps
	rng := rand.New(rand.NewPCG(uint64(l.N*l.K), uint64(terms)))
	t := make([]float64, l.K)
	for k := range t {
		t[k] = 0.5 + rng.Float64()
		if rng.IntN(2) == 0 {
			t[k] = -t[k]
		}
	}
	wp, wa := make([]float64, terms), make([]float64, terms)
	for k := range l.K {
		for i := range terms {
			v := wt[k*terms+i]
			wp[i] += t[k] * v
			wa[i] += math.Abs(t[k] * v)
		}
	}
	ref, scale := convLogical(l, x, wp, wa, 1)
	osz := l.OutSize(w.Op)
	got := make([]float64, len(ref))
	for n := range l.N {
		for k := range l.K {
			yk := y[(n*l.K+k)*osz : (n*l.K+k+1)*osz]
			g := got[n*osz : (n+1)*osz]
			for p, v := range yk {
				g[p] += t[k] * v
			}
		}
	}
	c := compare(got, ref, scale, tol)
	c.Method = "projection+sampled"
	if !c.OK {
		c.Detail = "projection Σₖ tₖ·y[n,k] differs from x ⋆ Σₖ tₖ·wₖ: " + c.Detail
		return c
	}
	type nkp struct{ n, k, p int }
	var cells []nkp
	for _, n := range []int{0, l.N - 1} {
		for _, k := range []int{0, l.K - 1} {
			for _, p := range []int{0, osz / 2, osz - 1} {
				cells = append(cells, nkp{n, k, p})
			}
		}
	}
	for range 4096 {
		cells = append(cells, nkp{rng.IntN(l.N), rng.IntN(l.K), rng.IntN(osz)})
	}
	o := l.OutDims(w.Op)
	isz := l.InSize()
	for _, e := range cells {
		o0, o1, o2 := e.p/(o[1]*o[2]), e.p/o[2]%o[1], e.p%o[2]
		var r, sc float64
		for ch := range l.C {
			for tt := range l.Window[0] {
				i0 := o0*l.Stride[0] + tt*l.Dil[0] - l.Pad[0]
				if i0 < 0 || i0 >= l.In[0] {
					continue
				}
				for rr := range l.Window[1] {
					i1 := o1*l.Stride[1] + rr*l.Dil[1] - l.Pad[1]
					if i1 < 0 || i1 >= l.In[1] {
						continue
					}
					for ss := range l.Window[2] {
						i2 := o2*l.Stride[2] + ss*l.Dil[2] - l.Pad[2]
						if i2 < 0 || i2 >= l.In[2] {
							continue
						}
						p := x[(e.n*l.C+ch)*isz+(i0*l.In[1]+i1)*l.In[2]+i2] *
							wt[e.k*terms+ch*l.WindowSize()+(tt*l.Window[1]+rr)*l.Window[2]+ss]
						r += p
						sc += math.Abs(p)
					}
				}
			}
		}
		v := y[(e.n*l.K+e.k)*osz+e.p]
		cc := compare([]float64{v}, []float64{r}, []float64{sc}, tol)
		c.MaxRelErr = math.Max(c.MaxRelErr, cc.MaxRelErr)
		if !cc.OK {
			c.OK = false
			c.Detail = fmt.Sprintf("element (n=%d, k=%d, position %d) is %g, want %g", e.n, e.k, e.p, v, r)
			break
		}
	}
	return c
}
