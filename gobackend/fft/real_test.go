package fft

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// realInput is randomInput's real parts: n reals exact in float32.
func realInput(n int, seed uint64) []complex128 {
	x := randomInput(n, seed)
	for i, v := range x {
		x[i] = complex(real(v), 0)
	}
	return x
}

func checkReal[R Real, C Complex](t *testing.T, lvl isa.Level, eps float64) {
	for _, n := range append([]int{3, 10, 2 * 4099, 2 * 3 * 5 * 8}, sizes...) {
		x := realInput(n, uint64(n)+7)
		want := dft(x, false)[:n/2+1]
		in, out := make([]R, n), make([]C, n/2+1)
		for i, v := range x {
			in[i] = R(real(v))
		}
		p := NewRealPlan[R, C](lvl, n, 1)
		p.Transform(out, in)
		tol := (8*math.Log2(float64(max(n, 2))) + 16) * eps
		if e := relErr(out, want); e > tol || math.IsNaN(e) {
			t.Errorf("%s n=%d (%s): L2 error %.3g, tolerance %.3g", lvl, n, p.Kernel(), e, tol)
		}
		for i, v := range x { // the input is left as it was
			if in[i] != R(real(v)) {
				t.Fatalf("%s n=%d: Transform changed its input", lvl, n)
			}
		}
	}
}

// TestRealTransforms: the n/2+1 outputs of every level against the
// definition, even lengths (the half-length path, its factors as the
// complex sizes cover them, and Bluestein halves) and odd ones.
func TestRealTransforms(t *testing.T) {
	for _, lvl := range isa.Levels() {
		t.Run(fmt.Sprint(lvl), func(t *testing.T) {
			checkReal[float32, complex64](t, lvl, 0x1p-24)
			checkReal[float64, complex128](t, lvl, 0x1p-53)
		})
	}
}

// TestRealMulti2D: a batch of 2-D real transforms is the first cols/2+1
// columns of each one's 2-D complex transform, computed by definition.
func TestRealMulti2D(t *testing.T) {
	const batch = 2
	for _, lvl := range isa.Levels() {
		for _, shape := range [][2]int{{1, 64}, {6, 16}, {4, 7}, {3, 10}} {
			rows, cols := shape[0], shape[1]
			half := cols/2 + 1
			x := realInput(batch*rows*cols, 3)
			in, out := make([]float64, len(x)), make([]complex128, batch*rows*half)
			for i, v := range x {
				in[i] = real(v)
			}
			m := NewRealMulti[float64, complex128](lvl, batch, rows, cols, 1)
			m.Transform(out, in)
			var want []complex128
			for b := range batch {
				full := make([]complex128, rows*cols)
				for r := range rows {
					copy(full[r*cols:], dft(x[(b*rows+r)*cols:(b*rows+r+1)*cols], false))
				}
				col := make([]complex128, rows)
				for c := range cols {
					for r := range rows {
						col[r] = full[r*cols+c]
					}
					for r, v := range dft(col, false) {
						full[r*cols+c] = v
					}
				}
				for r := range rows {
					want = append(want, full[r*cols:r*cols+half]...)
				}
			}
			tol := (8*math.Log2(float64(rows*cols)) + 16) * 0x1p-53
			if e := relErr(out, want); e > tol || math.IsNaN(e) {
				t.Errorf("%s %dx%d: L2 error %.3g, tolerance %.3g", lvl, rows, cols, e, tol)
			}
		}
	}
}

func BenchmarkRealTransform(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		for _, lvl := range isa.Levels() {
			b.Run(fmt.Sprintf("f32/%s/%d", lvl, n), func(b *testing.B) {
				p := NewRealPlan[float32, complex64](lvl, n, 1)
				x, y := make([]float32, n), make([]complex64, n/2+1)
				for i := range x {
					x[i] = float32(i % 7)
				}
				for b.Loop() {
					p.Transform(y, x)
				}
				b.ReportMetric(2.5*float64(n)*math.Log2(float64(n))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestSplitVecMiddle: the split's vectors, which run up to the middle step
// (its value computed in both of the last step's vectors), give every
// output within a few roundings of the Go loop's, at lengths whose
// middle ends a vector and at lengths that leave Go a remainder.
func TestSplitVecMiddle(t *testing.T) {
	for _, lvl := range isa.Levels() {
		for _, h := range []int{8, 16, 40, 64, 72, 256, 512} {
			checkSplit[float32](t, lvl, h, 1e-6)
			checkSplit[float64](t, lvl, h, 1e-14)
		}
	}
}

func checkSplit[R Real](t *testing.T, lvl isa.Level, h int, tol float64) {
	t.Helper()
	tw := splitTwiddles[R](2 * h)
	y := make([]R, 2*(h+1))
	for i, v := range randomInput(h+1, uint64(h)) {
		y[2*i], y[2*i+1] = R(real(v)), R(imag(v))
	}
	want := append([]R(nil), y...)
	splitSteps(lvl, y, tw, 0, h/2)
	splitSteps(isa.Generic, want, tw, 0, h/2)
	for i := range y {
		if d := math.Abs(float64(y[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) {
			t.Errorf("%s h=%d %T: float %d = %v, the Go loop's %v", lvl, h, y[0], i, y[i], want[i])
		}
	}
}

// TestSplitTwiddlesPlaced: the split's first vector of twiddles (W^1)
// starts a cache line, and one value past the table is there for the f64
// kernels' last load.
func TestSplitTwiddlesPlaced(t *testing.T) {
	for _, n := range []int{16, 1024, 1 << 16} {
		t32, t64 := splitTwiddles[float32](n), splitTwiddles[float64](n)
		if a := uintptr(unsafe.Pointer(&t32[2])) % 64; a != 0 {
			t.Errorf("f32 n=%d: W^1 %d bytes into a cache line", n, a)
		}
		if a := uintptr(unsafe.Pointer(&t64[2])) % 64; a != 0 || cap(t64) <= len(t64) {
			t.Errorf("f64 n=%d: W^1 %d bytes into a cache line, cap %d len %d", n, a, cap(t64), len(t64))
		}
	}
}
