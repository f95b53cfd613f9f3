package workload

import (
	"strings"
	"testing"
)

// TestValidateHugeShapes: element counts past int's range are refused, not
// wrapped into small ones (a gemm of 2³² per side wrapped to 0).
func TestValidateHugeShapes(t *testing.T) {
	for _, c := range []struct {
		op   Op
		size string
	}{{GEMM, "4Gi"}, {GEMM, "4Gix4Gix1"}, {GEMV, "1099511627776x1099511627776"}, {Softmax, "1099511627776x1099511627776"}, {AXPY, "1099511627776"}} {
		sh, err := ParseShape(c.op, c.size)
		if err != nil {
			t.Errorf("%s %s: %v", c.op, c.size, err)
			continue
		}
		err = Workload{Op: c.op, DType: F64, Shape: sh}.Validate()
		if err == nil || !strings.Contains(err.Error(), "more than") {
			t.Errorf("%s %s: Validate = %v, want too many elements", c.op, c.size, err)
		}
	}
}

func TestHostBytes(t *testing.T) {
	sh, _ := ParseShape(GEMM, "256")
	w := Workload{Op: GEMM, DType: F32, Shape: sh}
	const mat = 256 * 256
	// inputs in f64, two kernels' operands and outputs, the reference and its scales.
	want := float64(8*2*mat + 2*(4*3*mat+8*mat) + 16*mat)
	if got := w.HostBytes(2, 1, false); got != want {
		t.Errorf("gemm 256 f32, 2 kernels: %g bytes, want %g", got, want)
	}
	// Checked by projection from 2²⁷ multiply-adds: no full reference.
	big := Workload{Op: GEMM, DType: F32, Shape: Shape{M: 1024, N: 1024, K: 1024}}
	if got, want := big.HostBytes(1, 1, false), 8*2.0*(1<<20)+4*3.0*(1<<20)+8.0*(1<<20); got != want {
		t.Errorf("gemm 1024 f32, 1 kernel: %g bytes, want %g", got, want)
	}
	if w.HostBytes(2, 3, false) <= w.HostBytes(2, 1, false) || w.HostBytes(2, 1, true) <= w.HostBytes(2, 1, false) {
		t.Error("cold sets and the reference stream must add memory")
	}
	ax := Workload{Op: AXPY, DType: F64, Shape: Shape{N: 1000}}
	if got, want := ax.HostBytes(1, 1, false), 8*2000.0+(8*2000+8*1000)+16*1000; got != want {
		t.Errorf("axpy 1000 f64: %g, want %g", got, want)
	}
}

func TestShrink(t *testing.T) {
	limit := 1e9
	fits := func(w Workload) bool { return w.HostBytes(2, 1, false) <= limit }
	for _, c := range []struct {
		op   Op
		size string
		want string
	}{
		{GEMM, "65536", ""}, {GEMM, "65536x32768x16", ""}, {GEMV, "100000", ""},
		{AXPY, "1Gi", ""}, {Softmax, "1000000x1000", "x1000"},
		{Conv2D, "1024x64x56x56:64x3x3:p1", "x64x56x56:64x3x3:p1"},
	} {
		sh, err := ParseShape(c.op, c.size)
		if err != nil {
			t.Fatal(err)
		}
		w := Workload{Op: c.op, DType: F32, Shape: sh}
		if fits(w) {
			t.Fatalf("%s %s fits already", c.op, c.size)
		}
		got, ok := w.Shrink(fits)
		if !ok || !fits(got) {
			t.Errorf("%s %s: Shrink = %s, %v", c.op, c.size, got, ok)
			continue
		}
		if !strings.HasSuffix(got.Shape.Format(c.op), c.want) {
			t.Errorf("%s %s: Shrink = %s, want …%s", c.op, c.size, got.Shape.Format(c.op), c.want)
		}
		// One step larger no longer fits (the largest that does).
		bigger := got
		switch {
		case c.op.Layer():
			bigger.Shape.Layer.N++
		case c.op == Softmax:
			bigger.Shape.M++
		case c.op == AXPY:
			bigger.Shape.N++
		}
		if bigger != got && fits(bigger) {
			t.Errorf("%s %s: %s fits too", c.op, c.size, bigger.Shape.Format(c.op))
		}
		if c.op == GEMM && c.size == "65536" && (got.Shape.M != got.Shape.N || got.Shape.N != got.Shape.K) {
			t.Errorf("a square gemm shrank to %s", got.Shape.Format(c.op))
		}
	}
	// Nothing fits: no suggestion.
	w := Workload{Op: AXPY, DType: F32, Shape: Shape{N: 100}}
	if _, ok := w.Shrink(func(Workload) bool { return false }); ok {
		t.Error("Shrink found a size where none fits")
	}
}
