package workload

import (
	"math"
	"strings"
	"testing"
)

func TestQuantShapes(t *testing.T) {
	for _, c := range []struct {
		op       Op
		spec     string
		elements int
		bytes    float64
		flops    float64
	}{
		{Quantize, "1Ki", 2048 + 2, 1024*5 + 8, 1024},
		{Quantize, "4x256:channel", 2048 + 8, 1024*5 + 32, 1024},
		{Dequantize, "1024", 2048 + 2, 1024*5 + 8, 1024},
		{Convert, "1024", 2048, 1024 * 6, 1024},
		{Widen, "1024", 2048, 1024 * 6, 1024},
		{QLinear, "2x3x4", 8 + 12 + 3 + 2 + 6, 8 + 12 + 12 + 8 + 24, 2*2*3*4 + 2*2*3},
	} {
		sh, err := ParseShape(c.op, c.spec)
		if err != nil {
			t.Fatalf("%s %s: %v", c.op, c.spec, err)
		}
		w := Workload{Op: c.op, DType: c.op.QuantDTypes()[0], Shape: sh}
		if err := w.Validate(); err != nil {
			t.Errorf("%v: %v", w, err)
		}
		if back, err := ParseShape(c.op, sh.Format(c.op)); err != nil || back != sh {
			t.Errorf("%s %s formats as %q", c.op, c.spec, sh.Format(c.op))
		}
		if w.Elements() != c.elements || w.Bytes() != c.bytes || w.FLOPs() != c.flops {
			t.Errorf("%v: %d elements, %g bytes, %g FLOPs; want %d, %g, %g", w, w.Elements(), w.Bytes(), w.FLOPs(), c.elements, c.bytes, c.flops)
		}
	}
	for _, bad := range []struct {
		op   Op
		spec string
	}{{Quantize, "4x4"}, {Convert, "4x4:channel"}, {QLinear, "64:NT"}, {Quantize, "4x4:row"}} {
		if _, err := ParseShape(bad.op, bad.spec); err == nil {
			t.Errorf("%s %s accepted", bad.op, bad.spec)
		}
	}
	if err := (Workload{Op: Exp, DType: I8, Shape: Shape{N: 8}}).Validate(); err == nil || !strings.Contains(err.Error(), "quantize") {
		t.Errorf("exp i8: %v", err)
	}
}

// TestQuantVerify: every op's reference passes; a wrong element fails;
// quantize forgives one step at a tie only; the accuracy is what 8 and 16
// bits give.
func TestQuantVerify(t *testing.T) {
	for _, c := range []struct {
		op      Op
		dt      DType
		spec    string
		minSQNR float64 // dB; 0: no accuracy figure
	}{
		{Quantize, I8, "4099", 35}, {Quantize, U8, "7x300:channel", 35},
		{Dequantize, I8, "4099", 0}, {Dequantize, U8, "3x65:channel", 0},
		{Convert, BF16, "4099", 45}, {Convert, F16, "4099", 65},
		{Widen, BF16, "4099", 0}, {Widen, F16, "4099", 0},
		{QLinear, U8S8, "17x33x65", 25}, {QLinear, I8, "17x33x65", 25},
	} {
		sh, _ := ParseShape(c.op, c.spec)
		w := Workload{Op: c.op, DType: c.dt, Shape: sh}
		d := w.NewData(1)
		ref := w.Reference(d)
		if chk := w.Verify(d, ref); !chk.OK {
			t.Errorf("%v: the reference fails: %s", w, chk.Detail)
		}
		acc, ok := w.QuantError(d, ref)
		if ok != (c.minSQNR > 0) || ok && (acc.SQNRdB < c.minSQNR || acc.SQNRdB > c.minSQNR+30 || acc.MaxAbsErr <= 0) {
			t.Errorf("%v: accuracy %+v, %v; want SQNR from %g dB", w, acc, ok, c.minSQNR)
		}
		bad := append([]float64(nil), ref...)
		bad[len(bad)/2] += 1
		if chk := w.Verify(d, bad); chk.OK {
			t.Errorf("%v: an element off by one passed", w)
		}
	}
	// A tie: x/scale = 2.5 may give 3 (half away from zero) as well as 2.
	w := Workload{Op: Quantize, DType: I8, Shape: Shape{N: 2}}
	d := Data{Args: [][]float64{{2.5, 2.4}, {1}, {0}}}
	if chk := w.Verify(d, []float64{3, 2}); !chk.OK || chk.MaxRelErr != 1 {
		t.Errorf("half away from zero at a tie: %+v", chk)
	}
	if chk := w.Verify(d, []float64{2, 3}); chk.OK {
		t.Error("one step off away from a tie passed")
	}
	// The zero point added before rounding (oneDNN's reorder): u8 with zero
	// point 117 rounds 2.5 + 117 to 120, and 1.5 + 2⁻²⁰ + 117, rounded to
	// f32, is 118.5, which rounds to 118, where rne(1.5 + 2⁻²⁰) + 117 is 119.
	w = Workload{Op: Quantize, DType: U8, Shape: Shape{N: 3}}
	d = Data{Args: [][]float64{{2.5, 1.5 + 0x1p-20, 2.4}, {1}, {117}}}
	if chk := w.Verify(d, []float64{120, 118, 119}); !chk.OK || chk.MaxRelErr != 1 {
		t.Errorf("the zero point added before rounding at a tie: %+v", chk)
	}
	if chk := w.Verify(d, []float64{119, 119, 120}); chk.OK {
		t.Error("one step off away from a tie, with a zero point, passed")
	}
	if v := QuantizeValue(2.5, 1, 0, I8); v != 2 {
		t.Errorf("quantize(2.5) = %g, want 2 (ties to even)", v)
	}
	if v := QuantizeValue(1e6, 1, 0, I8); v != 127 || QuantizeValue(-3, 1, 10, U8) != 7 || QuantizeValue(-30, 1, 10, U8) != 0 {
		t.Error("saturation or zero point wrong")
	}
	if v := DequantizeValue(5, 0.5, 3); v != 1 || math.Signbit(DequantizeValue(3, 0.5, 3)) {
		t.Errorf("dequantize(5, 0.5, 3) = %g", v)
	}
}
