package workload

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestFLOPsAndBytes(t *testing.T) {
	for _, c := range []struct {
		w            Workload
		flops, bytes float64
	}{
		{Workload{GEMM, F32, Shape{M: 2, N: 3, K: 4}}, 2 * 2 * 3 * 4, 4 * (2*4 + 4*3 + 2*3)},
		{Workload{GEMM, F64, Shape{M: 512, N: 512, K: 512}}, 2 * 512 * 512 * 512, 8 * 3 * 512 * 512},
		{Workload{GEMV, F32, Shape{M: 10, N: 20}}, 2 * 10 * 20, 4 * (10*20 + 20 + 10)},
		{Workload{AXPY, F64, Shape{N: 100}}, 200, 8 * 3 * 100},
		{Workload{Dot, F32, Shape{N: 100}}, 200, 4 * 2 * 100},
		{Workload{Add, F32, Shape{N: 100}}, 100, 4 * 3 * 100},
		{Workload{Mul, F64, Shape{N: 100}}, 100, 8 * 3 * 100},
		{Workload{ReLU, F32, Shape{N: 100}}, 100, 4 * 2 * 100},
		{Workload{Exp, F64, Shape{N: 100}}, 100, 8 * 2 * 100},
		{Workload{Sum, F32, Shape{N: 100}}, 100, 4 * 100},
		{Workload{Max, F64, Shape{N: 100}}, 100, 8 * 100},
		{Workload{Softmax, F32, Shape{M: 3, N: 7}}, 5 * 21, 4 * 2 * 21},
	} {
		if got := c.w.FLOPs(); got != c.flops {
			t.Errorf("%v: FLOPs = %v, want %v", c.w, got, c.flops)
		}
		if got := c.w.Bytes(); got != c.bytes {
			t.Errorf("%v: Bytes = %v, want %v", c.w, got, c.bytes)
		}
		if got := c.w.Intensity(); math.Abs(got-c.flops/c.bytes) > 1e-12 {
			t.Errorf("%v: Intensity = %v", c.w, got)
		}
		// Only axpy's in-place y is traffic twice and memory once.
		want := c.bytes
		if c.w.Op == AXPY {
			want = c.bytes * 2 / 3
		}
		if got := c.w.Footprint(); got != want {
			t.Errorf("%v: Footprint = %v, want %v", c.w, got, want)
		}
	}
}

func TestParseShape(t *testing.T) {
	for _, c := range []struct {
		op   Op
		in   string
		want Shape
		fmt  string
	}{
		{GEMM, "512", Shape{M: 512, N: 512, K: 512}, "512x512x512"},
		{GEMM, "2x3x4", Shape{M: 2, N: 3, K: 4}, "2x3x4"},
		{GEMM, "64:TN", Shape{M: 64, N: 64, K: 64, TransA: true}, "64x64x64:TN"},
		{GEMM, "8x8x8:nt", Shape{M: 8, N: 8, K: 8, TransB: true}, "8x8x8:NT"},
		{GEMV, "100", Shape{M: 100, N: 100}, "100x100"},
		{GEMV, "10x20", Shape{M: 10, N: 20}, "10x20"},
		{Softmax, "4x1Ki", Shape{M: 4, N: 1024}, "4x1024"},
		{AXPY, "1M", Shape{N: 1000000}, "1000000"},
		{Sum, "4Mi", Shape{N: 4 << 20}, "4194304"},
		{Exp, "3k", Shape{N: 3000}, "3000"},
	} {
		got, err := ParseShape(c.op, c.in)
		if err != nil {
			t.Errorf("ParseShape(%s, %q): %v", c.op, c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("ParseShape(%s, %q) = %+v, want %+v", c.op, c.in, got, c.want)
		}
		if f := got.Format(c.op); f != c.fmt {
			t.Errorf("Format = %q, want %q", f, c.fmt)
		}
	}
	for _, c := range []struct {
		op Op
		in string
	}{
		{GEMM, ""}, {GEMM, "0"}, {GEMM, "-4"}, {GEMM, "2x3"}, {GEMM, "1x2x3x4"}, {GEMM, "8:XY"},
		{GEMV, "1x2x3"}, {Softmax, "100"}, {AXPY, "2x2"}, {AXPY, "1.5"}, {AXPY, "abc"},
		{AXPY, "8:NN"}, {Dot, "99999999999999G"},
	} {
		if _, err := ParseShape(c.op, c.in); err == nil {
			t.Errorf("ParseShape(%s, %q) accepted a bad size", c.op, c.in)
		} else if !strings.Contains(err.Error(), c.in) {
			t.Errorf("ParseShape(%s, %q): error %q does not name the value", c.op, c.in, err)
		}
	}
}

func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"512", "2x3x4", "64:TN", "1Ki", "4x1Ki", "0", "x", ":", "1x1x1x1", "9Gi"} {
		f.Add(s)
	}
	for _, s := range layerFuzzSeeds { // layer_test.go
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, op := range Ops {
			sh, err := ParseShape(op, s)
			if err != nil {
				continue
			}
			if op.Layer() {
				checkLayerRoundTrip(t, op, s, sh) // layer_test.go
				continue
			}
			// What parses is valid and round-trips through Format.
			w := Workload{Op: op, DType: F32, Shape: sh}
			if sh.N < 1 || (op.Kind() != KindVector && sh.M < 1) || (op == GEMM && sh.K < 1) {
				t.Fatalf("ParseShape(%s, %q) = %+v: non-positive dimension", op, s, sh)
			}
			again, err := ParseShape(op, sh.Format(op))
			if err != nil || again != sh {
				t.Fatalf("round trip of %q via %q: %+v, %v", s, sh.Format(op), again, err)
			}
			_ = w.Validate()
		}
	})
}

func TestParseOpAndDType(t *testing.T) {
	for _, op := range Ops {
		if got, err := ParseOp(string(op)); err != nil || got != op {
			t.Errorf("ParseOp(%q) = %v, %v", op, got, err)
		}
	}
	if _, err := ParseOp("conv9d"); err == nil || !strings.Contains(err.Error(), "gemm") {
		t.Errorf("ParseOp(conv9d): %v; want an error listing accepted ops", err)
	}
	if _, err := ParseDType("f8"); err == nil || !strings.Contains(err.Error(), "f32, f64, f16, bf16, tf32") {
		t.Errorf("ParseDType(f8): %v", err)
	}
}

func TestNewDataSeededAndRepresentable(t *testing.T) {
	w := Workload{GEMM, F32, Shape{M: 5, N: 6, K: 7}}
	a, b := w.NewData(42), w.NewData(42)
	c := w.NewData(43)
	if a.Args[0][0] != b.Args[0][0] || a.Args[1][41] != b.Args[1][41] {
		t.Error("same seed gave different inputs")
	}
	if a.Args[0][0] == c.Args[0][0] && a.Args[0][1] == c.Args[0][1] {
		t.Error("different seeds gave the same inputs")
	}
	zeros := 0
	for _, v := range a.Args[0] {
		if float64(float32(v)) != v {
			t.Fatalf("f32 input %v is not representable in float32", v)
		}
		if v == 0 {
			zeros++
		}
		if v < -1 || v >= 1 {
			t.Fatalf("input %v outside [-1, 1)", v)
		}
	}
	if zeros > 1 {
		t.Errorf("%d zeros in the inputs", zeros)
	}
	if len(a.Args[0]) != 35 || len(a.Args[1]) != 42 {
		t.Errorf("operand lengths %d, %d", len(a.Args[0]), len(a.Args[1]))
	}
}

func TestExpandSuites(t *testing.T) {
	for _, s := range Suites {
		ws, err := Expand(Selection{Suite: s})
		if err != nil {
			t.Fatalf("suite %s: %v", s, err)
		}
		seen := map[Op]bool{}
		for _, w := range ws {
			seen[w.Op] = true
		}
		// The quantization ops run when named (or by a dtype of theirs).
		if len(seen) != len(Ops)-len(QuantOps) && s != "deepbench" { // deepbench: gemm and layers
			t.Errorf("suite %s covers %d of %d ops", s, len(seen), len(Ops))
		}
		if s == "deepbench" {
			continue
		}
		qs, err := Expand(Selection{Suite: s, Ops: QuantOps})
		if err != nil || len(qs) == 0 {
			t.Errorf("suite %s, quantization ops: %v, %v", s, qs, err)
		}
	}
	ws, err := Expand(Selection{Ops: []Op{GEMM}, DTypes: []DType{F64}, Sizes: []string{"128", "64x32x16"}})
	if err != nil || len(ws) != 2 || ws[1].Shape != (Shape{M: 64, N: 32, K: 16}) || ws[0].DType != F64 {
		t.Errorf("Expand with sizes = %v, %v", ws, err)
	}
	if _, err := Expand(Selection{Suite: "huge"}); err == nil {
		t.Error("unknown suite accepted")
	}
	if _, err := Expand(Selection{Ops: []Op{Softmax}, Sizes: []string{"100"}}); err == nil {
		t.Error("softmax accepted a single count")
	}
}

// TestExpandSkipping: of ops and dtypes named together, the pairs that
// exist run and the others are named as skipped; an op with no dtype of
// the list, or a dtype with no op of it, is an error.
func TestExpandSkipping(t *testing.T) {
	ws, skipped, err := ExpandSkipping(Selection{Ops: []Op{GEMM, Quantize}, DTypes: []DType{F32, I8}, Sizes: []string{"64"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, fmt.Sprintf("%s %s", w.Op, w.DType))
	}
	if want := []string{"gemm f32", "gemm i8", "quantize i8"}; !slices.Equal(got, want) {
		t.Errorf("workloads %q, want %q", got, want)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "quantize f32: quantize takes dtype i8 or u8") {
		t.Errorf("skipped %q", skipped)
	}
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{Ops: []Op{Quantize}, DTypes: []DType{F32}}, "quantize takes dtype i8 or u8, not f32"},
		{Selection{Ops: []Op{Quantize, ReLU}, DTypes: []DType{I8}}, "relu takes dtype f32 or f64, not i8"},
		{Selection{Ops: []Op{ReLU, Exp}, DTypes: []DType{F32, I8}}, "dtype i8 applies to gemm, quantize"},
		{Selection{Ops: []Op{Exp}, DTypes: []DType{I8}}, "dtype i8 applies to gemm, quantize"},
		// gemm takes i8: the error names the op that none of the dtypes fits.
		{Selection{Ops: []Op{GEMM, AXPY}, DTypes: []DType{I8}}, "axpy takes dtype f32 or f64, not i8"},
		{Selection{Ops: []Op{GEMM, AXPY}, DTypes: []DType{I8, U8S8}}, "axpy takes dtype f32 or f64, not i8 or u8s8"},
		{Selection{Ops: []Op{GEMM, Quantize}, DTypes: []DType{U8}}, "gemm takes dtype f32, f64, f16, bf16, tf32, i8, u8s8, e4m3 or e5m2, not u8"},
	} {
		if _, _, err := ExpandSkipping(c.sel); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: error %v, want %q", c.sel.Ops, c.sel.DTypes, err, c.want)
		}
	}
	// -op=all with a dtype: the ops defined in it, nothing named skipped.
	ws, skipped, err = ExpandSkipping(Selection{DTypes: []DType{BF16}})
	if err != nil || len(ws) == 0 || len(skipped) != 0 {
		t.Errorf("-dtype=bf16 alone: %d workloads, skipped %q, %v", len(ws), skipped, err)
	}
}

// TestExpandOnceEach: a size written twice, or two ways (4Ki and 4096),
// is one workload, in its first place; a second would be measured again
// and then dropped from the results, which key on the shape.
func TestExpandOnceEach(t *testing.T) {
	for _, c := range []struct {
		op    Op
		sizes []string
		want  []string
	}{
		{AXPY, []string{"4Ki", "4096", "8Ki", "4Ki"}, []string{"4096", "8192"}},
		{GEMM, []string{"256", "256x256x256", "256:NN", "256:NT"}, []string{"256x256x256", "256x256x256:NT"}},
	} {
		ws, err := Expand(Selection{Ops: []Op{c.op}, DTypes: []DType{F32}, Sizes: c.sizes})
		var got []string
		for _, w := range ws {
			got = append(got, w.Shape.Format(w.Op))
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s %q: %q, %v; want %q", c.op, c.sizes, got, err, c.want)
		}
	}
}

// TestOneInput: the workloads that stream one input array, which a
// triad's share of stored bytes does not make a triad.
func TestOneInput(t *testing.T) {
	for op, want := range map[Op]bool{
		ReLU: true, Exp: true, Sum: true, Softmax: true, Quantize: true, Dequantize: true, Convert: true, Widen: true,
		Add: false, Mul: false, AXPY: false, Dot: false, GEMM: false, GEMV: false, QLinear: false,
	} {
		if got := (Workload{Op: op}).OneInput(); got != want {
			t.Errorf("%s: OneInput() = %v, want %v", op, got, want)
		}
	}
}

// ParseCount says what is wrong with a count in words of its own: a number
// missing at a stray x read as `"" is not a positive whole number`, and one
// past int64 as not positive.
func TestParseCountErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "a number is missing",
		"Ki":                     "a number is missing",
		"9999999999999999999999": `"9999999999999999999999" is too large`,
		"2000Gi":                 `"2000" is too large`,
		"-3":                     `"-3" is not a positive whole number`,
		"x":                      `"x" is not a positive whole number`,
	} {
		if _, err := ParseCount(in); err == nil || err.Error() != want {
			t.Errorf("ParseCount(%q): %v, want %q", in, err, want)
		}
	}
	if _, err := ParseShape(GEMM, "2x"); err == nil || !strings.Contains(err.Error(), "a number is missing") {
		t.Errorf(`ParseShape(gemm, "2x"): %v`, err)
	}
}

// TestExpandTooLarge: a size that parses but holds more than a workload
// may is refused naming the flag and the size in -size's units.
func TestExpandTooLarge(t *testing.T) {
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{Ops: []Op{AXPY}, Sizes: []string{"2Gi"}}, "-size: axpy: shape 2147483648 holds 4 Gi elements, more than the 1 Gi (8 GiB in f64) one workload may hold"},
		{Selection{Ops: []Op{GEMM}, Sizes: []string{"65536"}}, "-size: gemm: shape 65536x65536x65536 holds 12 Gi elements"},
		{Selection{Ops: []Op{Quantize}, DTypes: []DType{I8}, Sizes: []string{"2Gi"}}, "-size: quantize: shape 2147483648 holds 4 Gi elements"},
		{Selection{Ops: []Op{Conv2D}, Sizes: []string{"64x1024x1024x1024:3x3x3"}}, "-size: conv2d: size \"64x1024x1024x1024:3x3x3\": 64.2 Gi elements"},
	} {
		if _, err := Expand(c.sel); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v -size=%v: error %v, want %q", c.sel.Ops, c.sel.Sizes, err, c.want)
		}
	}
}
