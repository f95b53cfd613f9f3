package workload

import (
	"math"
	"strings"
	"testing"
)

// f16Value decodes an IEEE binary16 bit pattern.
func f16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * m * 0x1p-24
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1024 + m) * math.Ldexp(1, e-25)
}

func bf16Value(b uint16) float64 { return float64(math.Float32frombits(uint32(b) << 16)) }

// TestRoundExhaustive: every finite value of f16 and bf16 rounds to itself,
// and each midpoint between neighbours rounds to the one with an even
// significand.
func TestRoundExhaustive(t *testing.T) {
	for _, c := range []struct {
		dt     DType
		decode func(uint16) float64
		max    uint16 // bits of the largest finite positive value
	}{{F16, f16Value, 0x7bff}, {BF16, bf16Value, 0x7f7f}} {
		for b := uint16(0); b <= c.max; b++ {
			v := c.decode(b)
			if r := c.dt.Round(v); r != v {
				t.Fatalf("%s: Round(%g) = %g", c.dt, v, r)
			}
			if r := c.dt.Round(-v); r != -v {
				t.Fatalf("%s: Round(%g) = %g", c.dt, -v, r)
			}
			if b == c.max {
				break
			}
			next := c.decode(b + 1)
			mid := (v + next) / 2
			want := v
			if b&1 == 1 {
				want = next
			}
			if r := c.dt.Round(mid); r != want {
				t.Fatalf("%s: Round(midpoint %g of %g and %g) = %g; want %g", c.dt, mid, v, next, r, want)
			}
			if r := c.dt.Round(math.Nextafter(mid, v)); r != v {
				t.Fatalf("%s: below midpoint %g: %g", c.dt, mid, r)
			}
			if r := c.dt.Round(math.Nextafter(mid, next)); r != next {
				t.Fatalf("%s: above midpoint %g: %g", c.dt, mid, r)
			}
		}
	}
	// Overflow: half an ulp above the largest finite value rounds away.
	if r := F16.Round(65519.99); r != 65504 {
		t.Errorf("f16 65519.99 -> %g", r)
	}
	if r := F16.Round(65520); !math.IsInf(r, 1) {
		t.Errorf("f16 65520 -> %g; want +Inf", r)
	}
	if r := BF16.Round(-math.MaxFloat64); !math.IsInf(r, -1) {
		t.Errorf("bf16 -MaxFloat64 -> %g", r)
	}
	// tf32: f16's precision with f32's range.
	for _, c := range []struct{ in, want float64 }{
		{1 + 0x1p-11, 1}, {1 + 3*0x1p-11, 1 + 0x1p-9}, {0x1p-136, 0x1p-136}, {0x1p-140, 0},
		{math.Pi, 3.140625},
	} {
		if r := TF32.Round(c.in); math.Abs(r-c.want) > 1e-7*math.Abs(c.want) {
			t.Errorf("tf32 Round(%g) = %g; want %g", c.in, r, c.want)
		}
	}
	if r := TF32.Round(1e30); float64(float32(r)) != r || math.Float32bits(float32(r))&0x1fff != 0 {
		t.Errorf("tf32 Round(1e30) = %g: not 11 significant bits", r)
	}
}

func TestReducedDTypes(t *testing.T) {
	for _, c := range []struct {
		dt   DType
		size int
		eps  float64
	}{{F16, 2, 0x1p-11}, {BF16, 2, 0x1p-8}, {TF32, 4, 0x1p-11}, {F32, 4, 0x1p-24}, {F64, 8, 0x1p-53}} {
		got, err := ParseDType(string(c.dt))
		if err != nil || got != c.dt || c.dt.Size() != c.size || c.dt.Epsilon() != c.eps || c.dt.GEMMOnly() != (c.size < 8 && c.dt != F32) {
			t.Errorf("%s: parse %v %v, size %d, eps %g, gemm-only %v", c.dt, got, err, c.dt.Size(), c.dt.Epsilon(), c.dt.GEMMOnly())
		}
	}
	w := Workload{Op: GEMV, DType: BF16, Shape: Shape{M: 4, N: 4}}
	if err := w.Validate(); err == nil || err.Error() != "dtype bf16 applies to gemm, convert, widen only" {
		t.Errorf("gemv bf16: %v", err)
	}
	ws, err := Expand(Selection{Suite: "quick", DTypes: []DType{BF16, F16}})
	if err != nil || len(ws) == 0 {
		t.Fatalf("Expand(all ops, bf16): %v, %v", ws, err)
	}
	for _, w := range ws {
		if w.Op != GEMM && w.Op != Convert && w.Op != Widen {
			t.Errorf("Expand(all ops, bf16, f16) gave %v", w)
		}
	}
	if _, err := Expand(Selection{Suite: "quick", Ops: []Op{GEMM, Add}, DTypes: []DType{F16}}); err == nil || !strings.Contains(err.Error(), "add takes dtype f32 or f64, not f16") {
		t.Errorf("Expand(gemm,add f16): %v", err)
	}
	if ws, err := Expand(Selection{Suite: "quick"}); err == nil {
		for _, w := range ws {
			if w.DType.GEMMOnly() || w.Op.Quant() {
				t.Errorf("the default selection has %v", w)
			}
		}
	}
}

// simulate computes a gemm the way a tensor core or AMX does for dt: exact
// products summed in f32 (integers: exactly), the result rounded to dt's
// output type.
func simulate(w Workload, d Data) []float64 {
	s := w.Shape
	a, b := w.plainOperands(d)
	out := make([]float64, s.M*s.N)
	for i := 0; i < s.M; i++ {
		for j := 0; j < s.N; j++ {
			var acc float32
			var exact int64
			for p := 0; p < s.K; p++ {
				acc += float32(a[i*s.K+p] * b[p*s.N+j])
				exact += int64(a[i*s.K+p] * b[p*s.N+j])
			}
			out[i*s.N+j] = w.DType.OutputDType().Round(float64(acc))
			if w.DType.Integer() {
				out[i*s.N+j] = float64(exact)
			}
		}
	}
	return out
}

func TestVerifyReducedGEMM(t *testing.T) {
	for _, dt := range GEMMDTypes {
		for _, spec := range []string{"17x9x33:TN", "64x48x1000", "520x512x512"} {
			sh, err := ParseShape(GEMM, spec)
			if err != nil {
				t.Fatal(err)
			}
			w := Workload{GEMM, dt, sh}
			d := w.NewData(5)
			for i, arg := range d.Args {
				for _, v := range arg {
					if dt.OperandDType(i).Round(v) != v || (v == 0 && dt.Size() > 1) { // 8-bit types hold zeros
						t.Fatalf("%v: input %g is not a nonzero %s value", w, v, dt)
					}
				}
			}
			out := simulate(w, d)
			c := w.Verify(d, out)
			if !c.OK {
				t.Errorf("%v: a correct result fails: %s (max %g > tol %g)", w, c.Detail, c.MaxRelErr, c.Tolerance)
			}
			// An error of twice the tolerance in one element must show.
			if c.Method == "full" {
				_, scale, _ := w.reference(d)
				i := len(out) / 3
				out[i] += max(2*c.Tolerance*scale[i], 1) // integers: off by one
				if c := w.Verify(d, out); c.OK {
					t.Errorf("%v: a planted error passes (tol %g)", w, c.Tolerance)
				}
			}
		}
	}
}
