// Command tanhfit computes the float32 tanh kernel's table (tanhF32Table in
// ../math.go) and prints it as Go source, with each interval's largest
// error over every float32 in it (float32 Horner with FMAs, against
// math.Tanh):
//
//	go run ./tanhfit
//
// Each interval [a, b) gets c0 + c1·t + … + c6·t^6, t = x − a: c0 is
// tanh(a) rounded to float32 (exact at t = 0), c1…c6 a weighted
// least-squares fit of the relative error, reweighted towards minimax
// (Lawson), rounded to float32 one by one with the rest refitted after
// each.
package main

import (
	"fmt"
	"math"
)

const (
	degree = 6
	clamp  = 9.5 // |x| is clamped here: tanh rounds to 1 from 9.011 on
)

// starts are the intervals' lower ends: [0, 1/8), then two per binade up to
// [8, clamp]; the kernel finds an interval from the exponent and the top
// mantissa bit.
var starts = []float64{0, 0.125, 0.1875, 0.25, 0.375, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8}

func main() {
	fmt.Printf("var tanhF32Table = [][%d]float32{ // start, c0 … c%d\n", degree+2, degree)
	worst := 0.0
	for i, a := range starts {
		b := clamp
		if i+1 < len(starts) {
			b = starts[i+1]
		}
		c := fit(a, b-a)
		e, at := maxErr(a, b, c)
		worst = math.Max(worst, e)
		if i == len(starts)-1 {
			if v := horner(c, float32(clamp-a)); v != 1 {
				panic(fmt.Sprintf("tanh(%g) = %v, not 1", clamp, v))
			}
		}
		fmt.Printf("\t{%v", fmt32(float32(a)))
		for _, v := range c {
			fmt.Printf(", %v", fmt32(v))
		}
		fmt.Printf("}, // [%g, %g): %.3f ulp at %v\n", a, b, e, at)
	}
	fmt.Printf("}\n// largest error %.3f ulp\n", worst)
}

func fmt32(v float32) string { return fmt.Sprint(v) } // shortest decimal that reads back as v

func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

func horner(c []float32, t float32) float32 {
	acc := c[len(c)-1]
	for k := len(c) - 2; k >= 0; k-- {
		acc = fma32(acc, t, c[k])
	}
	return acc
}

// maxErr is the largest error, in ulps of the result's binade, over every
// float32 in [a, b).
func maxErr(a, b float64, c []float32) (worst float64, at float32) {
	for u := math.Float32bits(float32(a)); u < math.Float32bits(float32(b)); u++ {
		x := math.Float32frombits(u)
		ref := math.Tanh(float64(x))
		_, e := math.Frexp(ref)
		if err := math.Abs(float64(horner(c, x-float32(a)))-ref) / math.Ldexp(1, max(e-1, -126)-23); err > worst {
			worst, at = err, x
		}
	}
	return worst, at
}

// fit returns c0…c6 for tanh(a + t) on t in [0, h].
func fit(a, h float64) []float32 {
	const m = 400 // Chebyshev nodes
	ts := make([]float64, m)
	for i := range ts {
		ts[i] = h * (0.5 - 0.5*math.Cos(math.Pi*(float64(i)+0.5)/m))
	}
	c := []float32{float32(math.Tanh(a))}
	for k := 1; k <= degree; k++ {
		w := make([]float64, m)
		for i := range w {
			w[i] = 1
		}
		var coef []float64
		for range 30 { // Lawson: weights grow where the error is largest
			A, y := make([][]float64, m), make([]float64, m)
			for i, t := range ts {
				f := math.Tanh(a + t)
				r := f - float64(horner(c, 0)) // the fixed coefficients' sum
				for j := 1; j < len(c); j++ {
					r -= float64(c[j]) * math.Pow(t, float64(j))
				}
				s := w[i] / f // relative error
				A[i] = make([]float64, degree+1-k)
				for j := range A[i] {
					A[i][j] = s * math.Pow(t/h, float64(k+j))
				}
				y[i] = s * r
			}
			coef = leastSquares(A, y)
			errs, top := make([]float64, m), 0.0
			for i := range errs {
				e := y[i]
				for j := range coef {
					e -= A[i][j] * coef[j]
				}
				errs[i] = math.Abs(e / w[i])
				top = math.Max(top, errs[i])
			}
			sum := 0.0
			for i := range w {
				w[i] *= w[i] * errs[i] / top // Lawson's update of w²
				sum += w[i]
			}
			for i := range w {
				w[i] = math.Sqrt(w[i] / sum * m)
			}
		}
		c = append(c, float32(coef[0]/math.Pow(h, float64(k))))
	}
	return c
}

// leastSquares solves min ‖A·x − y‖ by a modified Gram–Schmidt QR.
func leastSquares(A [][]float64, y []float64) []float64 {
	m, n := len(A), len(A[0])
	q := make([][]float64, n) // columns
	r := make([][]float64, n)
	for j := range q {
		q[j], r[j] = make([]float64, m), make([]float64, n)
		for i := range m {
			q[j][i] = A[i][j]
		}
		for k := range j {
			d := dot(q[k], q[j])
			r[k][j] = d
			for i := range m {
				q[j][i] -= d * q[k][i]
			}
		}
		r[j][j] = math.Sqrt(dot(q[j], q[j]))
		for i := range m {
			q[j][i] /= r[j][j]
		}
	}
	x := make([]float64, n)
	for j := n - 1; j >= 0; j-- {
		s := dot(q[j], y)
		for k := j + 1; k < n; k++ {
			s -= r[j][k] * x[k]
		}
		x[j] = s / r[j][j]
	}
	return x
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
