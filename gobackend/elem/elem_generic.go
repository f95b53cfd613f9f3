package elem

import (
	"math"
	"unsafe"
)

// The pure-Go kernels: built everywhere, the go backend's, and the
// reference the assembly is tested against.

func addGeneric[T Float](x, y, z []T) {
	y, z = y[:len(x)], z[:len(x)]
	for i, v := range x {
		z[i] = v + y[i]
	}
}

func mulGeneric[T Float](x, y, z []T) {
	y, z = y[:len(x)], z[:len(x)]
	for i, v := range x {
		z[i] = v * y[i]
	}
}

func axpyGeneric[T Float](alpha T, x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

func reluGeneric[T Float](x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		switch {
		case v <= 0:
			v = 0
		case v != v:
			v = clearSign(v) // as the assembly's VMAXPS and VANDPS do
		}
		y[i] = v
	}
}

// clearSign is v with its sign bit cleared, every other bit kept (a NaN's
// payload too, which a conversion between float32 and float64 may change).
func clearSign[T Float](v T) T {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return T(math.Float32frombits(math.Float32bits(float32(v)) &^ (1 << 31)))
	}
	return T(math.Float64frombits(math.Float64bits(float64(v)) &^ (1 << 63)))
}

// exp is math.Exp, except above 709, where the amd64 assembly of math.Exp
// (Go 1.26) overflows early: it returns +Inf from about 709.44 on, while
// exp(x) is finite up to 709.78. There, e·exp(x−1) (x−1 is exact) is within
// 2 ulps.
func exp(x float64) float64 {
	if x > 709 {
		return math.Exp(x-1) * math.E
	}
	return math.Exp(x)
}

// sigmoid is computed in float64 as s = 1/(1+e) with e = exp(-|x|), giving s
// for x ≥ 0 and e·s = exp(x)/(1+exp(x)) for x < 0: exp never overflows,
// large |x| gives 0 or 1 (never NaN), and small results keep their relative
// accuracy.
func sigmoid(v float64) float64 {
	e := math.Exp(-math.Abs(v))
	s := 1 / (1 + e)
	// Pick the factor by the sign bit instead of a branch: signs of
	// activations are random, and a mispredicted branch costs about as much
	// as the exp.
	f := [2]float64{1, e}
	return f[math.Float64bits(v)>>63] * s
}

// mapMath applies a float64 function element-wise, rounding once to T. f is
// a plain function value: its call costs far less than the transcendental
// inside.
func mapMath[T Float](x, y []T, f func(float64) float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = T(f(float64(v)))
	}
}
