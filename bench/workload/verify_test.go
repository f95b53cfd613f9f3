package workload

import (
	"math"
	"strings"
	"testing"
)

// computeF32 evaluates w in float32 arithmetic, as a correct f32 backend
// would, so verification is tested against real rounding.
func computeF32(w Workload, d Data) []float64 {
	ref := w.Reference(d)
	out := make([]float64, len(ref))
	if w.Op == GEMM {
		a, b := w.plainOperands(d)
		s := w.Shape
		for i := 0; i < s.M; i++ {
			for j := 0; j < s.N; j++ {
				var acc float32
				for p := 0; p < s.K; p++ {
					acc += float32(a[i*s.K+p]) * float32(b[p*s.N+j])
				}
				out[i*s.N+j] = float64(acc)
			}
		}
		return out
	}
	if w.Op.Sparse() {
		return sparseF32(w, d) // sparse_test.go
	}
	for i, v := range ref {
		out[i] = float64(float32(v))
	}
	return out
}

func TestVerifyAcceptsCorrectResults(t *testing.T) {
	for _, op := range Ops {
		for _, dt := range DTypes {
			spec := map[Kind]string{KindMatMul: "17x9x33:TN", KindMatVec: "13x7", KindVector: "1000", KindRows: "5x40", KindFFT: "3x40", KindSparse: "powerlaw:n=300:nnz=3000"}[op.Kind()]
			if op.Layer() {
				spec = layerTestSpecs[op] // layer_test.go
			}
			sh, _ := ParseShape(op, spec)
			w := Workload{op, dt, sh}
			d := w.NewData(7)
			out := w.Reference(d)
			if dt == F32 {
				out = computeF32(w, d)
			}
			if c := w.Verify(d, out); !c.OK {
				t.Errorf("%v: correct result rejected: %s (err %g, tol %g)", w, c.Detail, c.MaxRelErr, c.Tolerance)
			}
		}
	}
}

func TestVerifyCatchesPlantedErrors(t *testing.T) {
	for _, op := range Ops {
		spec := map[Kind]string{KindMatMul: "16x8x32", KindMatVec: "13x7", KindVector: "1000", KindRows: "5x40", KindFFT: "3x40", KindSparse: "powerlaw:n=300:nnz=3000"}[op.Kind()]
		if op.Layer() {
			spec = layerTestSpecs[op] // layer_test.go
		}
		sh, _ := ParseShape(op, spec)
		w := Workload{op, F32, sh}
		d := w.NewData(3)
		for name, plant := range map[string]func([]float64){
			"off by 1%": func(o []float64) { o[len(o)/2] = o[len(o)/2]*1.01 + 1e-3 },
			"NaN":       func(o []float64) { o[0] = math.NaN() },
			"Inf":       func(o []float64) { o[len(o)-1] = math.Inf(1) },
		} {
			out := computeF32(w, d)
			plant(out)
			c := w.Verify(d, out)
			if c.OK {
				t.Errorf("%v: %s not caught (err %g, tol %g)", w, name, c.MaxRelErr, c.Tolerance)
			}
			if c.Detail == "" {
				t.Errorf("%v: %s: failure has no detail", w, name)
			}
		}
	}
	w := Workload{Add, F64, Shape{N: 10}}
	if c := w.Verify(w.NewData(1), make([]float64, 9)); c.OK || !strings.Contains(c.Detail, "9 elements") {
		t.Errorf("short output: %+v", c)
	}
}

func TestVerifyLargeGEMMByProjection(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 600×600×600 problem")
	}
	w := Workload{GEMM, F64, Shape{M: 600, N: 520, K: 560, TransB: true}}
	d := w.NewData(5)
	out := w.Reference(d)
	c := w.Verify(d, out)
	if !c.OK || c.Method != "projection+sampled" {
		t.Fatalf("correct large gemm: %+v", c)
	}
	bad := append([]float64(nil), out...)
	for j := 0; j < w.Shape.N; j++ { // a wrong row, as a mishandled edge tile gives
		bad[7*w.Shape.N+j] += 0.5
	}
	if c := w.Verify(d, bad); c.OK {
		t.Errorf("corrupted row not caught: %+v", c)
	}
	bad = append([]float64(nil), out...)
	bad[len(bad)-1] = 0 // a corner element
	if c := w.Verify(d, bad); c.OK {
		t.Errorf("corrupted corner not caught: %+v", c)
	}
}
