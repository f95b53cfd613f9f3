package quant

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// lengths straddles every block and tail size, and a piece split.
func lengths(t *testing.T) []int {
	n := []int{}
	for i := 0; i <= 140; i++ {
		n = append(n, i)
	}
	n = append(n, 1000, 4099)
	if !testing.Short() {
		n = append(n, 300_001)
	}
	return n
}

// inputs are normal values around ±100 quantization steps of scale, some
// beyond the range (saturation), and some exactly on rounding ties.
func inputs(rng *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		switch rng.IntN(8) {
		case 0:
			x[i] = (float32(rng.IntN(300)-150) + 0.5) * scale // a tie, where scale is a power of two
		case 1:
			x[i] = float32(rng.NormFloat64() * 1e4) // saturates
		default:
			x[i] = float32(rng.NormFloat64() * 60 * float64(scale))
		}
	}
	return x
}

func forLevels(t *testing.T, f func(t *testing.T, lvl isa.Level)) {
	for _, lvl := range isa.Levels() {
		t.Run(lvl.String(), func(t *testing.T) { f(t, lvl) })
	}
}

// TestQuantizeLevels: every level, both types, per tensor and per row, one
// and two threads, gives the generic kernel's bits.
func TestQuantizeLevels(t *testing.T) {
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths(t) {
			for _, scale := range []float32{0.25, 0.0173} {
				x := inputs(rng, n, scale)
				for _, th := range []int{1, 2} {
					checkQuantize[int8](t, lvl, x, scale, 0, th)
					checkQuantize[uint8](t, lvl, x, scale, 128, th)
					checkQuantize[uint8](t, lvl, x, scale, 3, th)
				}
			}
		}
	})
}

func checkQuantize[Q Int8](t *testing.T, lvl isa.Level, x []float32, scale float32, zp int32, th int) {
	t.Helper()
	want, got := make([]Q, len(x)), make([]Q, len(x))
	quantizeGeneric(x, 1/scale, zp, want)
	Quantize(lvl, x, scale, zp, got, th)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("n=%d threads=%d zp=%d: q[%d] = %d, want %d (x = %g)", len(x), th, zp, i, got[i], want[i], x[i])
		}
	}
	deq, ref := make([]float32, len(x)), make([]float32, len(x))
	dequantizeGeneric(want, scale, zp, ref)
	Dequantize(lvl, want, scale, zp, deq, th)
	for i := range ref {
		if math.Float32bits(deq[i]) != math.Float32bits(ref[i]) {
			t.Fatalf("dequantize n=%d: x[%d] = %g, want %g", len(x), i, deq[i], ref[i])
		}
	}
}

// TestQuantizeRounding: ties to even, saturation, the zero point, exactly
// as the definition reads.
func TestQuantizeRounding(t *testing.T) {
	inf := float32(math.Inf(1))
	x := []float32{2.5, 3.5, -2.5, -3.5, 0.5, 1e9, -1e9, 126.5, 127.5, -128.5, 600, -600, inf, -inf, 244.5, -9.5}
	i8 := []int8{2, 4, -2, -4, 0, 127, -128, 126, 127, -128, 127, -128, 127, -128, 127, -10}
	u8 := []uint8{12, 14, 8, 6, 10, 255, 0, 136, 138, 0, 255, 0, 255, 0, 254, 0} // zero point 10
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		for _, n := range []int{len(x), 64, 128} { // the assembly's blocks too
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = x[i%len(x)]
			}
			gi, gu := make([]int8, n), make([]uint8, n)
			Quantize(lvl, xs, 1, 0, gi, 1)
			Quantize(lvl, xs, 1, 10, gu, 1)
			for i := range xs {
				if gi[i] != i8[i%len(x)] || gu[i] != u8[i%len(x)] {
					t.Fatalf("n=%d: x = %g: i8 %d, u8 %d; want %d, %d", n, xs[i], gi[i], gu[i], i8[i%len(x)], u8[i%len(x)])
				}
			}
		}
	})
}

func TestQuantizeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rows, cols := 7, 133
	x := inputs(rng, rows*cols, 0.1)
	scales, zps := make([]float32, rows), make([]int32, rows)
	for r := range rows {
		scales[r], zps[r] = float32(0.01+rng.Float64()), int32(rng.IntN(256))
	}
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		for _, th := range []int{1, 2} {
			q := make([]uint8, len(x))
			QuantizeRows(lvl, cols, x, scales, zps, q, th)
			back := make([]float32, len(x))
			DequantizeRows(lvl, cols, q, scales, zps, back, th)
			for r := range rows {
				want := make([]uint8, cols)
				quantizeGeneric(x[r*cols:(r+1)*cols], 1/scales[r], zps[r], want)
				for j, v := range want {
					if q[r*cols+j] != v {
						t.Fatalf("row %d col %d: %d, want %d", r, j, q[r*cols+j], v)
					}
					if d := float32(scales[r] * float32(int32(v)-zps[r])); back[r*cols+j] != d {
						t.Fatalf("dequantized row %d col %d: %g, want %g", r, j, back[r*cols+j], d)
					}
				}
			}
		}
	})
}

// roundRef rounds v to p significant bits, least exponent emin, largest
// finite top (beyond: ±Inf), ties to even, in float64 (exact).
func roundRef(v float64, p, emin int, top float64) float64 {
	if v == 0 {
		return v
	}
	_, e := math.Frexp(v)
	q := max(e-1, emin) - (p - 1)
	r := math.Ldexp(math.RoundToEven(math.Ldexp(v, -q)), q)
	if math.Abs(r) > top {
		return math.Copysign(math.Inf(1), v)
	}
	return r
}

// TestNarrowGeneric: the generic conversions against an exact float64
// rounding, on every f16 value and midpoint and on random f32 bit patterns
// (subnormals and overflow included).
func TestNarrowGeneric(t *testing.T) {
	f16ref := func(v float32) float64 { return roundRef(float64(v), 11, -14, 65504) }
	bf16ref := func(v float32) float64 { return roundRef(float64(v), 8, -126, math.MaxFloat32) }
	try := func(v float32) {
		if got := float64(F16Value(F16Bits(v))); got != f16ref(v) {
			t.Fatalf("f16(%g) = %g, want %g", v, got, f16ref(v))
		}
		if got := float64(BF16Value(BF16Bits(v))); got != bf16ref(v) {
			t.Fatalf("bf16(%g) = %g, want %g", v, got, bf16ref(v))
		}
	}
	for h := range uint16(0x7c00) {
		v := F16Value(h)
		try(v)
		try(-v)
		mid := float32((float64(v) + float64(F16Value(h+1))) / 2)
		try(mid)
		try(-mid)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1 << 20 {
		v := math.Float32frombits(rng.Uint32())
		if v == v && !math.IsInf(float64(v), 0) {
			try(v)
		}
	}
	if b := BF16Bits(float32(math.NaN())); BF16Value(b) == BF16Value(b) {
		t.Errorf("bf16(NaN) = %#x, not a NaN", b)
	}
	if b := F16Bits(float32(math.NaN())); F16Value(b) == F16Value(b) {
		t.Errorf("f16(NaN) = %#x, not a NaN", b)
	}
}

// TestNarrowLevels: every level (and at AVX-512 both bf16 kernels) gives
// the generic bits on normal, overflowing and f16-subnormal values, and
// the widening gives every value back.
func TestNarrowLevels(t *testing.T) {
	defer func(v bool) { NativeBF16 = v }(NativeBF16)
	rng := rand.New(rand.NewPCG(7, 8))
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		for _, native := range []bool{false, NativeBF16} {
			NativeBF16 = native
			for _, n := range lengths(t) {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-24)))
					if i%17 == 3 {
						x[i] = 7e4 // past f16's range
					}
				}
				for _, f := range []Format{BF16, F16} {
					want, got := make([]uint16, n), make([]uint16, n)
					narrowGeneric(f, x, want)
					Narrow(lvl, f, x, got, 2)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("format %d native=%v n=%d: y[%d] = %#x, want %#x (x = %g)", f, native, n, i, got[i], want[i], x[i])
						}
					}
					back, ref := make([]float32, n), make([]float32, n)
					widenGeneric(f, want, ref)
					Widen(lvl, f, want, back, 2)
					for i := range ref {
						if math.Float32bits(back[i]) != math.Float32bits(ref[i]) {
							t.Fatalf("widen format %d n=%d: y[%d] = %g, want %g", f, n, i, back[i], ref[i])
						}
					}
				}
			}
		}
	})
}

// TestNarrowNaN: the integer-rounding kernels keep a NaN a NaN, whatever
// its payload (adding the rounding bias to it could carry into Inf).
func TestNarrowNaN(t *testing.T) {
	defer func(v bool) { NativeBF16 = v }(NativeBF16)
	NativeBF16 = false
	x := make([]float32, 64)
	for i := range x {
		x[i] = math.Float32frombits(0x7f800001 + uint32(i)*0x1ff)
	}
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		y := make([]uint16, len(x))
		Narrow(lvl, BF16, x, y, 1)
		for i, b := range y {
			if v := BF16Value(b); v == v {
				t.Fatalf("bf16 of NaN %#x = %#x", math.Float32bits(x[i]), b)
			}
		}
	})
}

// TestQLinear: every level with every feature it allows and none, both
// input types, one and two threads, shapes with the kernels' tails, against
// the definition (int32 sums, then three f32 roundings).
func TestQLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 9, 65}, {64, 64, 64}, {29, 71, 130}, {0, 3, 4}, {2, 3, 0}}
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		for _, feats := range []isa.Feature{0, isa.Features} {
			for _, s := range shapes {
				m, n, k := s[0], s[1], s[2]
				xu, xi, w := make([]uint8, m*k), make([]int8, m*k), make([]int8, n*k)
				for i := range xu {
					xu[i] = uint8(rng.IntN(256))
					xi[i] = int8(rng.IntN(256) - 128)
				}
				for i := range w {
					w[i] = int8(rng.IntN(256) - 128)
				}
				bias := inputs(rng, n, 0.01)
				for _, th := range []int{1, 2} {
					yu, yi := make([]float32, m*n), make([]float32, m*n)
					QLinear(lvl, feats, m, n, k, xu, w, bias, 0.02, 0.003, yu, th)
					QLinear(lvl, feats, m, n, k, xi, w, bias, 0.02, 0.003, yi, th)
					sc := float32(0.02) * float32(0.003)
					for i := range m {
						for j := range n {
							var au, ai int32
							for p := range k {
								au += int32(xu[i*k+p]) * int32(w[j*k+p])
								ai += int32(xi[i*k+p]) * int32(w[j*k+p])
							}
							if want := float32(sc*float32(au)) + bias[j]; yu[i*n+j] != want {
								t.Fatalf("u8 %v feats=%v threads=%d: y[%d,%d] = %g, want %g", s, feats, th, i, j, yu[i*n+j], want)
							}
							if want := float32(sc*float32(ai)) + bias[j]; yi[i*n+j] != want {
								t.Fatalf("i8 %v feats=%v threads=%d: y[%d,%d] = %g, want %g", s, feats, th, i, j, yi[i*n+j], want)
							}
						}
					}
				}
			}
		}
	})
}

// TestScaleBias: the epilogue kernels, in place and apart, every length to
// 140, against the generic code's bits (sums past 2²⁴ round in the
// conversion).
func TestScaleBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		k := implFor(lvl, 0)
		for n := 0; n <= 140; n++ {
			c, bias := make([]int32, n), inputs(rng, n, 0.01)
			for i := range c {
				c[i] = int32(rng.Uint32())
			}
			want, got := make([]float32, n), make([]float32, n)
			scaleBiasGeneric(c, 1.7e-5, bias, want)
			scaleBias(k, c, 1.7e-5, bias, got)
			in := make([]float32, n)
			ci := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(in))), n)
			copy(ci, c)
			scaleBias(k, ci, 1.7e-5, bias, in)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(in[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d: y[%d] = %g (in place %g), want %g", n, i, got[i], in[i], want[i])
				}
			}
		}
	})
}

// TestOneThreadAllocs: a call that runs as one piece allocates nothing
// (the closure num.For takes escapes to its workers).
func TestOneThreadAllocs(t *testing.T) {
	lvl := isa.Levels()[len(isa.Levels())-1]
	n := 4096
	x, q, y := make([]float32, n), make([]int8, n), make([]uint16, n)
	scales, zps := []float32{0.5, 0.25}, []int32{0, 3}
	for name, f := range map[string]func(){
		"Quantize":       func() { Quantize(lvl, x, 0.5, 0, q, 1) },
		"QuantizeRows":   func() { QuantizeRows(lvl, n/2, x, scales, zps, q, 1) },
		"Dequantize":     func() { Dequantize(lvl, q, 0.5, 0, x, 1) },
		"DequantizeRows": func() { DequantizeRows(lvl, n/2, q, scales, zps, x, 1) },
		"Narrow":         func() { Narrow(lvl, BF16, x, y, 1) },
		"Widen":          func() { Widen(lvl, F16, y, x, 1) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations a call, want 0", name, a)
		}
	}
}

// TestQuantizeExtremes: products past int32's range and infinities, with
// every zero point a type allows at its ends and middle, per level, against
// the definition computed in int64; and a zero point outside the range
// panics.
func TestQuantizeExtremes(t *testing.T) {
	inf := float32(math.Inf(1))
	vals := []float32{inf, -inf, 3e9, -3e9, 0x1p31, -0x1p31, 0x1p30, -0x1p30, 512.5, -512.5, 383, -383, 100.5, -100.5, 0, 1e-30}
	x := make([]float32, 0, 2*64)
	for len(x) < cap(x) {
		x = append(x, vals[len(x)%len(vals)])
	}
	// want is clamp(rne(v) + zp) to [lo, hi], in int64.
	want := func(v float32, zp int32, lo, hi int64) int64 {
		r := min(max(float64(v), -1e12), 1e12)
		return min(max(int64(math.RoundToEven(r))+int64(zp), lo), hi)
	}
	forLevels(t, func(t *testing.T, lvl isa.Level) {
		for _, zp := range []int32{-128, -127, -1, 0, 1, 126, 127} {
			q := make([]int8, len(x))
			Quantize(lvl, x, 1, zp, q, 1)
			for i, v := range x {
				if w := want(v, zp, -128, 127); int64(q[i]) != w {
					t.Fatalf("i8: x = %g, zp = %d: %d, want %d", v, zp, q[i], w)
				}
			}
		}
		for _, zp := range []int32{0, 1, 127, 128, 254, 255} {
			q := make([]uint8, len(x))
			Quantize(lvl, x, 1, zp, q, 1)
			for i, v := range x {
				if w := want(v, zp, 0, 255); int64(q[i]) != w {
					t.Fatalf("u8: x = %g, zp = %d: %d, want %d", v, zp, q[i], w)
				}
			}
		}
	})
	for name, f := range map[string]func(){
		"i8 128":      func() { Quantize(isa.Best, x, 1, 128, make([]int8, len(x)), 1) },
		"u8 −1":       func() { Quantize(isa.Best, x, 1, -1, make([]uint8, len(x)), 1) },
		"u8 256 rows": func() { QuantizeRows(isa.Best, 64, x, []float32{1, 1}, []int32{0, 256}, make([]uint8, len(x)), 1) },
		"dequantize":  func() { Dequantize(isa.Best, make([]int8, 4), 1, -129, make([]float32, 4), 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic for a zero point outside the type's range", name)
				}
			}()
			f()
		}()
	}
}
