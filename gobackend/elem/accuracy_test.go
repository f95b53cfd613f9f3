package elem

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// TestAccuracy measures the largest error of Exp, Tanh and Sigmoid at every
// level this CPU runs, and fails when it exceeds MaxULP:
//
//   - float32: every 97th of the 2^32 bit patterns (every 99991st under
//     -short or -race) plus special values, against the float64 function
//     (math's, within 1 ulp of float64: 2^-29 of a float32 ulp);
//   - float64: about 10^6 inputs (10^5 quick): bit patterns spread evenly
//     over all 2^64, and uniform samples of the ranges where the functions
//     change, against a double-double evaluation (about 2^-100 relative).
//
// Errors are in ulps of the exact result's binade (of the smallest
// subnormal below the normal range); overflow to ±Inf is exact when the
// exact result rounds beyond the largest finite value.
func TestAccuracy(t *testing.T) {
	for _, lvl := range levels() {
		for _, fn := range []string{"exp", "tanh", "sigmoid"} {
			t.Run(lvl.String()+"/"+fn+"/f32", func(t *testing.T) {
				if lvl == isa.Generic && numtest.Quick() {
					t.Skip("generic float32 is float64 math rounded once")
				}
				worst, at, n := sweep32(lvl, fn)
				bound := MaxULP(lvl, fn, false)
				t.Logf("max error %.3f ulp at x=%v (%d inputs); bound %g", worst, at, n, bound)
				if worst > bound {
					t.Errorf("max error %.3f ulp at x=%v (%b) exceeds MaxULP %g", worst, at, math.Float32bits(at), bound)
				}
			})
			t.Run(lvl.String()+"/"+fn+"/f64", func(t *testing.T) {
				worst, at, n := sweep64(lvl, fn)
				bound := MaxULP(lvl, fn, true)
				t.Logf("max error %.3f ulp at x=%v (%d inputs); bound %g", worst, at, n, bound)
				if worst > bound {
					t.Errorf("max error %.3f ulp at x=%v (%#x) exceeds MaxULP %g", worst, at, math.Float64bits(at), bound)
				}
			})
		}
	}
}

var fnOps = map[string]op{"exp": opExp, "tanh": opTanh, "sigmoid": opSigmoid}

func kernel32(lvl isa.Level, fn string) func(x, y []float32) {
	return func(x, y []float32) { unaryKernel(implFor(lvl), fnOps[fn], x, y, false) }
}

func kernel64(lvl isa.Level, fn string) func(x, y []float64) {
	return func(x, y []float64) { unaryKernel(implFor(lvl), fnOps[fn], x, y, false) }
}

var ref64 = map[string]func(float64) float64{"exp": math.Exp, "tanh": math.Tanh, "sigmoid": sigmoidRef}

var specials32 = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32,
	-math.SmallestNonzeroFloat32, 0x1p-126, -0x1p-126, 88.72283, 88.72284, -87.33654, -103.97208,
	-103.27893, 0.625, -0.625, 0.62499994, 9.010913, -9.010913, 1, -1}

func sweep32(lvl isa.Level, fn string) (worst float64, at float32, count int) {
	stride := uint64(97)
	if numtest.Quick() {
		stride = 99991
	}
	return sweep32Range(lvl, fn, specials32, 0, 1<<32, stride)
}

// sweep32Range measures fn's largest error over extra and the bit
// patterns lo, lo+stride, … below hi.
func sweep32Range(lvl isa.Level, fn string, extra []float32, lo, hi, stride uint64) (worst float64, at float32, count int) {
	kern, ref := kernel32(lvl, fn), ref64[fn]
	const batch = 1 << 16
	x, y := make([]float32, 0, batch), make([]float32, batch)
	check := func() {
		y = y[:len(x)]
		kern(x, y)
		for i, v := range x {
			if e := ulpErr32(y[i], ref(float64(v))); e > worst || math.IsNaN(e) {
				worst, at = e, v
			}
		}
		count += len(x)
		x = x[:0]
	}
	x = append(x, extra...)
	for b := lo; b < hi; b += stride {
		x = append(x, math.Float32frombits(uint32(b)))
		if len(x) == batch {
			check()
		}
	}
	check()
	return worst, at, count
}

func sweep64(lvl isa.Level, fn string) (worst, at float64, count int) {
	n := 1 << 20
	if numtest.Quick() {
		n = 1 << 16
	}
	if lvl == isa.Generic {
		n /= 8 // math's functions, checked for the record
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	var x []float64
	for _, v := range specials {
		x = append(x, v)
	}
	x = append(x, 709.782712893384, 709.7827128933841, -708.3964185322641, -745.1332191019411,
		-745.1332191019412, 0.625, math.Nextafter(0.625, 0), math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-1022)
	step := ^uint64(0)/uint64(n/2) + 1
	for b := uint64(12345); len(x) < n/2; b += step {
		x = append(x, math.Float64frombits(b))
	}
	for _, r := range []float64{750, 40, 2, 0.7} {
		for range n / 8 {
			x = append(x, r*(2*rnd.Float64()-1))
		}
	}
	y := make([]float64, len(x))
	kernel64(lvl, fn)(x, y)
	for i, v := range x {
		hi, lo, k := refDD(fn, v)
		if e := ulpErr64(y[i], hi, lo, k); e > worst || math.IsNaN(e) {
			worst, at = e, v
		}
	}
	return worst, at, len(x)
}

// ulpErr32 is |got − ref| in ulps of ref's float32 binade (2^-149 below
// the normal range). A ref beyond the rounding threshold of the largest
// float32 is exactly ±Inf.
func ulpErr32(got float32, ref float64) float64 {
	g := float64(got)
	if math.IsNaN(ref) || math.IsNaN(g) {
		if math.IsNaN(ref) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	}
	const ovf = 0x1p128 - 0x1p103 // rounds to +Inf from here on
	if math.Abs(ref) >= ovf {
		if math.IsInf(g, 0) && math.Signbit(g) == math.Signbit(ref) {
			return 0
		}
		ref = math.Copysign(0x1p128, ref)
	}
	if math.IsInf(g, 0) {
		g = math.Copysign(0x1p128, g)
	}
	_, e := math.Frexp(ref)
	e = min(max(e-1, -126), 127)
	return math.Abs(g-ref) / math.Ldexp(1, e-23)
}

// ulpErr64 is the error of got against (hi+lo)·2^k in ulps of the exact
// result's float64 binade (2^-1074 below the normal range); a result
// beyond the rounding threshold of the largest float64 is exactly ±Inf.
func ulpErr64(got, hi, lo float64, k int) float64 {
	if math.IsNaN(hi) || math.IsNaN(got) {
		if math.IsNaN(hi) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	}
	if math.IsInf(hi, 0) {
		if got == hi {
			return 0
		}
		return math.Inf(1)
	}
	if hi == 0 {
		return math.Abs(got) / 0x1p-1074
	}
	_, e := math.Frexp(hi)
	binade := e - 1 + k
	// Overflow: from (1 − 2^-54)·2^1024 on, the result rounds to Inf.
	if binade >= 1023 {
		s := (hi + lo) * math.Ldexp(1, k-1024) // the result / 2^1024
		if binade > 1023 || s >= 1-0x1p-54 {
			if math.IsInf(got, 0) && math.Signbit(got) == math.Signbit(hi) {
				return 0
			}
			if math.IsInf(got, 0) {
				return math.Inf(1)
			}
			return math.Abs(math.Ldexp(got, -1024)-math.Copysign(1, hi)) * 0x1p53
		}
		if math.IsInf(got, 0) { // rounded up past the largest finite
			return (math.Copysign(1, got) - s) * 0x1p53
		}
	}
	u := max(binade, -1022) - 52 // ulp = 2^u
	gs := math.Ldexp(got, -k)
	return math.Abs((gs-hi)-lo) / math.Ldexp(1, u-k)
}

// A double-double reference: hi + lo with |lo| ≤ ulp(hi)/2, about 106 bits.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quick(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func (a dd) add(b dd) dd {
	s, t := twoSum(a.hi, b.hi), twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quick(s.hi, s.lo)
	s.lo += t.lo
	return quick(s.hi, s.lo)
}

func (a dd) neg() dd           { return dd{-a.hi, -a.lo} }
func (a dd) sub(b dd) dd       { return a.add(b.neg()) }
func (a dd) addf(f float64) dd { return a.add(dd{f, 0}) }

func (a dd) mul(b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return quick(p, e)
}

func (a dd) mulf(f float64) dd { return a.mul(dd{f, 0}) }

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.sub(b.mulf(q1))
	q2 := r.hi / b.hi
	r = r.sub(b.mulf(q2))
	q3 := r.hi / b.hi
	return quick(q1, q2).addf(q3)
}

// ln2 as three float64s (about 159 bits), from Σ 1/(k·2^k) in big.Float.
var ln2 = func() [3]float64 {
	const prec = 256
	sum := new(big.Float).SetPrec(prec)
	for k := 1; k < 300; k++ {
		term := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1).SetPrec(prec), -k)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	var parts [3]float64
	for i := range parts {
		parts[i], _ = sum.Float64()
		sum.Sub(sum, new(big.Float).SetPrec(prec).SetFloat64(parts[i]))
	}
	return parts
}()

// expDD returns exp(x) as (hi+lo)·2^k with hi+lo in [1/√2, √2].
func expDD(x float64) (dd, int) {
	switch {
	case math.IsNaN(x):
		return dd{x, 0}, 0
	case x > 710:
		return dd{1, 0}, 1100
	case x < -746:
		return dd{1, 0}, -1100
	}
	n := math.Round(x * math.Log2E)
	// r = x − n·ln2, n·ln2 in triple precision.
	r := dd{x, 0}
	for _, l := range ln2 {
		p := dd{n * l, math.FMA(n, l, -n*l)}
		r = r.sub(p)
	}
	// Taylor series by Horner's rule; |r| ≤ 0.35 and 0.35^25/25! < 2^-114.
	sum := invFact[len(invFact)-1]
	for k := len(invFact) - 2; k >= 0; k-- {
		sum = sum.mul(r).add(invFact[k])
	}
	return sum, int(n)
}

// invFact[k] is 1/k! as a double-double, k = 0..24.
var invFact = func() []dd {
	const prec = 256
	f := make([]dd, 25)
	fact := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := range f {
		if k > 0 {
			fact.Mul(fact, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		}
		v := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), fact)
		hi, _ := v.Float64()
		v.Sub(v, new(big.Float).SetPrec(prec).SetFloat64(hi))
		lo, _ := v.Float64()
		f[k] = dd{hi, lo}
	}
	return f
}()

// plain returns v·2^k as a double-double (for results in the normal range).
func plain(v dd, k int) dd { return dd{math.Ldexp(v.hi, k), math.Ldexp(v.lo, k)} }

// refDD returns f(x) as (hi+lo)·2^k.
func refDD(fn string, x float64) (hi, lo float64, k int) {
	if math.IsNaN(x) {
		return x, 0, 0
	}
	switch fn {
	case "exp":
		e, k := expDD(x)
		return e.hi, e.lo, k
	case "tanh":
		ax := math.Abs(x)
		var t dd
		switch {
		case ax < 0x1p-27:
			t = dd{ax, -ax * ax * ax / 3}
		case ax > 40:
			t = dd{1, -2 * math.Exp(-2*ax)}
		default:
			e := plain(expDD(2 * ax))
			t = e.addf(-1).div(e.addf(1))
		}
		if x < 0 || math.Signbit(x) {
			t = t.neg()
		}
		return t.hi, t.lo, 0
	case "sigmoid":
		switch {
		case x > 40:
			return 1, -math.Exp(-x), 0
		case x < -40:
			e, k := expDD(x)
			s := e.mul(dd{1, -math.Exp(x)})
			return s.hi, s.lo, k
		}
		if x >= 0 {
			e := plain(expDD(-x))
			s := dd{1, 0}.div(e.addf(1))
			return s.hi, s.lo, 0
		}
		e := plain(expDD(x))
		s := e.div(e.addf(1))
		return s.hi, s.lo, 0
	}
	panic("refDD: " + fn)
}

// TestReference checks the double-double reference against math's
// functions (within 1 ulp of float64, so within 2 of each other here, 3
// for the composed sigmoid).
func TestReference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		x := 1400*rnd.Float64() - 700
		for fn, f := range ref64 {
			if fn == "tanh" {
				x /= 30
			}
			hi, lo, k := refDD(fn, x)
			// sigmoidRef rounds three times after math.Exp.
			if e := ulpErr64(f(x), hi, lo, k); e > 3 {
				t.Fatalf("%s(%v): math gives %v, reference %v·2^%d (%.3g ulp apart)", fn, x, f(x), hi+lo, k, e)
			}
		}
	}
}
