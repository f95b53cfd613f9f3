package reduce

import "math"

// The pure-Go kernels: built everywhere, the go backend's, and the
// reference the assembly is tested against.

// block is how many elements are summed in T before the partial is added to
// a float64 total. Within a block, 8 accumulators in T keep the adds
// independent (the add latency is 3–4 cycles); across blocks, float64 keeps
// a float32 sum of millions of elements from drifting: the error bound is
// about (block/8)·ε_T·Σ|x| instead of (n/8)·ε_T·Σ|x|.
const block = 256

func sumGeneric[T Float](x []T) float64 {
	var total float64
	for i := 0; i < len(x); i += block {
		total += float64(sumBlock(x[i:min(i+block, len(x))]))
	}
	return total
}

func sumBlock[T Float](x []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

func dotGeneric[T Float](x, y []T) float64 {
	var total float64
	for i := 0; i < len(x); i += block {
		j := min(i+block, len(x))
		total += float64(dotBlock(x[i:j], y[i:j]))
	}
	return total
}

func dotBlock[T Float](x, y []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	y = y[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		u := x[i : i+8 : i+8]
		v := y[i : i+8 : i+8]
		s0 += u[0] * v[0]
		s1 += u[1] * v[1]
		s2 += u[2] * v[2]
		s3 += u[3] * v[3]
		s4 += u[4] * v[4]
		s5 += u[5] * v[5]
		s6 += u[6] * v[6]
		s7 += u[7] * v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// maxGeneric uses the builtin max, which propagates NaN and orders ±0, with
// four accumulators so the compare chains run side by side.
func maxGeneric[T Float](x []T) T {
	m0 := T(math.Inf(-1))
	m1, m2, m3 := m0, m0, m0
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		m0 = max(m0, v[0])
		m1 = max(m1, v[1])
		m2 = max(m2, v[2])
		m3 = max(m3, v[3])
	}
	for ; i < len(x); i++ {
		m0 = max(m0, x[i])
	}
	return max(max(m0, m1), max(m2, m3))
}
