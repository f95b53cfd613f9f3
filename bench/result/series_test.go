package result

import "testing"

// TestLowPrecisionNames: a low-precision gemm shows its output type beside
// its dtype, and its compute bound names the unit it is a share of.
func TestLowPrecisionNames(t *testing.T) {
	for _, c := range []struct {
		r            Result
		dtype, bound string
	}{
		{Result{DType: "f32", Peak: PeakRef{Bound: "compute"}}, "f32", "f32 FMA"},
		{Result{DType: "bf16", OutDType: "f32", Peak: PeakRef{Bound: "compute", ComputeUnit: "amx-bf16"}}, "bf16→f32", "bf16 amx-bf16"},
		{Result{DType: "bf16", OutDType: "f32", Peak: PeakRef{Bound: "compute", ComputeUnit: "fma"}}, "bf16→f32", "bf16 FMA"},
		{Result{DType: "i8", OutDType: "i32", Peak: PeakRef{Bound: "memory", BandwidthLevel: "L2", BandwidthPattern: "copy"}}, "i8→i32", "L2 copy"},
	} {
		if got := DTypeName(&c.r); got != c.dtype {
			t.Errorf("DTypeName(%+v) = %q, want %q", c.r, got, c.dtype)
		}
		if got := BoundName(&c.r); got != c.bound {
			t.Errorf("BoundName(%+v) = %q, want %q", c.r, got, c.bound)
		}
	}
}
