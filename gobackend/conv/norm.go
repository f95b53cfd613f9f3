package conv

import (
	"fmt"
	"math"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/reduce"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// BatchNorm computes inference batch normalization, y = γ·(x−μ)/√(σ²+ε)+β
// per channel, with the given statistics (mean, variance) and affine
// parameters (gamma, beta), C each. x and y hold n·c·sp elements: N×C×sp
// or N×sp×C (nhwc). γ/√(σ²+ε) and β−μ·γ/√(σ²+ε) are folded per channel
// first (in float64), so each element costs one multiply-add.
func BatchNorm[T Float](n, c, sp int, nhwc bool, x, mean, variance, gamma, beta, y []T, eps float64, threads int) {
	if n < 1 || c < 1 || sp < 1 {
		panic(fmt.Sprintf("conv: batchnorm of %d×%d×%d", n, c, sp))
	}
	checkThreads(threads)
	checkLen("x", len(x), n*c*sp)
	checkLen("y", len(y), n*c*sp)
	for _, v := range [][]T{mean, variance, gamma, beta} {
		checkLen("mean, variance, gamma and beta", len(v), c)
	}
	a, b := make([]T, c), make([]T, c)
	for i := range c {
		s := float64(gamma[i]) / math.Sqrt(float64(variance[i])+eps)
		a[i], b[i] = T(s), T(float64(beta[i])-float64(mean[i])*s)
	}
	if nhwc {
		num.For(n*sp, threads, 1, 1024/c+1, func(_, lo, hi int) {
			for px := lo; px < hi; px++ {
				xs, ys := x[px*c:(px+1)*c], y[px*c:(px+1)*c]
				for i, v := range xs {
					ys[i] = a[i]*v + b[i]
				}
			}
		})
		return
	}
	num.For(n*c, threads, 1, 1024/sp+1, func(_, lo, hi int) {
		for nc := lo; nc < hi; nc++ {
			ai, bi := a[nc%c], b[nc%c]
			xs, ys := x[nc*sp:(nc+1)*sp], y[nc*sp:(nc+1)*sp]
			for i, v := range xs {
				ys[i] = ai*v + bi
			}
		}
	})
}

// LayerNorm normalizes each of n rows of f elements by its own mean and
// variance, y = γ·(x−μ)/√(σ²+ε)+β with γ and β of f elements. The
// statistics take one pass (Σx and Σx² by reduce.Sum and reduce.Dot at
// lvl; the variance is E[x²]−μ², clamped at 0); above isa.Generic the
// normalization is the normrow vector kernel (a Go loop ran 3× slower
// than oneDNN on 512×1024). Rows are split between threads once; a row is
// one thread's.
func LayerNorm[T Float](lvl isa.Level, n, f int, x, gamma, beta, y []T, eps float64, threads int) {
	if n < 1 || f < 1 {
		panic(fmt.Sprintf("conv: layernorm of %d×%d", n, f))
	}
	checkThreads(threads)
	checkLen("x", len(x), n*f)
	checkLen("y", len(y), n*f)
	checkLen("gamma", len(gamma), f)
	checkLen("beta", len(beta), f)
	k := vecImplFor(tune.Current().Level(lvl, 2*n*f*num.Size[T]()))
	num.For(n, threads, 1, 1, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			xs, ys := x[r*f:(r+1)*f], y[r*f:(r+1)*f]
			mu, rstd := moments(lvl, xs, eps)
			if k != vecGeneric {
				normRowCall(k, xs, gamma, beta, ys, mu, rstd)
				continue
			}
			for i, v := range xs {
				ys[i] = (v-mu)*(rstd*gamma[i]) + beta[i]
			}
		}
	})
}

// moments returns the mean and 1/√(variance+ε) of xs, in one pass.
func moments[T Float](lvl isa.Level, xs []T, eps float64) (mu, rstd T) {
	cnt := float64(len(xs))
	m := float64(reduce.Sum(lvl, xs, 1)) / cnt
	v := max(float64(reduce.Dot(lvl, xs, xs, 1))/cnt-m*m, 0)
	return T(m), T(1 / math.Sqrt(v+eps))
}

// GroupNorm normalizes each group of c/groups consecutive channels of each
// sample by the group's mean and variance, then applies γ and β per
// channel (c each). x and y hold n·c·sp elements, N×C×sp or N×sp×C (nhwc).
func GroupNorm[T Float](lvl isa.Level, n, c, sp, groups int, nhwc bool, x, gamma, beta, y []T, eps float64, threads int) {
	if n < 1 || c < 1 || sp < 1 || groups < 1 || c%groups != 0 {
		panic(fmt.Sprintf("conv: groupnorm of %d×%d×%d in %d groups", n, c, sp, groups))
	}
	checkThreads(threads)
	checkLen("x", len(x), n*c*sp)
	checkLen("y", len(y), n*c*sp)
	checkLen("gamma", len(gamma), c)
	checkLen("beta", len(beta), c)
	cpg := c / groups
	num.For(n*groups, threads, 1, 1, func(_, lo, hi int) {
		for ng := lo; ng < hi; ng++ {
			s, g := ng/groups, ng%groups
			if !nhwc {
				// The group is one contiguous block of cpg planes.
				blk := x[ng*cpg*sp : (ng+1)*cpg*sp]
				mu, rstd := moments(lvl, blk, eps)
				for ci := range cpg {
					ch := g*cpg + ci
					a := rstd * gamma[ch]
					b := beta[ch] - mu*a
					xs, ys := blk[ci*sp:(ci+1)*sp], y[(ng*cpg+ci)*sp:(ng*cpg+ci+1)*sp]
					for i, v := range xs {
						ys[i] = a*v + b
					}
				}
				continue
			}
			// NHWC: the group is cpg channels of every pixel.
			var sum, sq float64
			base := s * sp * c
			for px := range sp {
				for _, v := range x[base+px*c+g*cpg:][:cpg] {
					sum += float64(v)
					sq += float64(v) * float64(v)
				}
			}
			cnt := float64(sp * cpg)
			m := sum / cnt
			rstd := 1 / math.Sqrt(max(sq/cnt-m*m, 0)+eps)
			for ci := range cpg {
				ch := g*cpg + ci
				a := T(rstd * float64(gamma[ch]))
				b := T(float64(beta[ch]) - m*rstd*float64(gamma[ch]))
				for px := range sp {
					i := base + px*c + ch
					y[i] = a*x[i] + b
				}
			}
		}
	})
}
