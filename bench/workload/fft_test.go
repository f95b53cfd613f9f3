package workload

import (
	"math"
	"math/cmplx"
	"testing"
)

// naiveDFT is the O(n²) definition, each twiddle from its exact angle.
func naiveDFT(x []complex128, sign float64) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range n {
		for j, v := range x {
			s, c := math.Sincos(2 * math.Pi * float64(j*k%n) / float64(n))
			out[k] += v * complex(c, sign*s)
		}
	}
	return out
}

func l2RelErr(got, want []complex128) float64 {
	var d, n float64
	for i := range want {
		d += cmplx.Abs(got[i]-want[i]) * cmplx.Abs(got[i]-want[i])
		n += cmplx.Abs(want[i]) * cmplx.Abs(want[i])
	}
	return math.Sqrt(d / n)
}

// TestRefDFTMatchesDefinition runs the reference on every size class:
// powers of two, 3·2^k, 5·2^k, small and large primes (Bluestein), and a
// product with a large prime factor.
func TestRefDFTMatchesDefinition(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7, 8, 12, 20, 64, 96, 160, 1024, 67, 257, 1031, 2 * 67, 3 * 131} {
		for _, sign := range []float64{-1, 1} {
			x := make([]complex128, n)
			for i := range x {
				x[i] = complex(math.Sin(float64(i)*1.3), math.Cos(float64(i*i)*0.7))
			}
			got := newRefDFT(n, sign).transform(x)
			if e := l2RelErr(got, naiveDFT(x, sign)); e > 1e-13 {
				t.Errorf("n=%d sign=%v: L2 error %.3g against the definition", n, sign, e)
			}
		}
	}
}

// TestFFTRoundTrip checks that ifft of fft is n times the input, through
// the workloads' own reference.
func TestFFTRoundTrip(t *testing.T) {
	for _, spec := range []string{"1Ki", "3x96", "4099", "12x20:2d"} {
		fwd := Workload{Op: FFT, DType: F64}
		var err error
		if fwd.Shape, err = ParseShape(FFT, spec); err != nil {
			t.Fatal(err)
		}
		d := fwd.NewData(1)
		spec := fwd.Reference(d)
		back := Workload{Op: IFFT, DType: F64, Shape: fwd.Shape}
		got := back.Reference(Data{Args: [][]float64{spec}})
		n := float64(fwd.Shape.FFTPoints())
		var worst float64
		for i, v := range got {
			worst = max(worst, math.Abs(v/n-d.Args[0][i]))
		}
		if worst > 1e-12 {
			t.Errorf("%s: ifft(fft(x))/n differs from x by %.3g", fwd.Shape.Format(FFT), worst)
		}
	}
}

// TestRFFTIsHalfOfFFT: rfft's outputs are the first N/2+1 of the complex
// transform of the same real input, row by row (2-D: after the columns).
func TestRFFTIsHalfOfFFT(t *testing.T) {
	for _, spec := range []string{"15", "2x16", "6x10:2d"} {
		r := Workload{Op: RFFT, DType: F64}
		r.Shape, _ = ParseShape(RFFT, spec)
		d := r.NewData(3)
		c := Workload{Op: FFT, DType: F64, Shape: r.Shape}
		cx := make([]float64, 2*len(d.Args[0]))
		for i, v := range d.Args[0] {
			cx[2*i] = v
		}
		full := c.Reference(Data{Args: [][]float64{cx}})
		half := r.Reference(d)
		n, h := r.Shape.N, r.Shape.N/2+1
		rows := r.Shape.M * r.Shape.FFTRows()
		if len(half) != 2*rows*h {
			t.Fatalf("%s: rfft reference has %d values, want %d", spec, len(half), 2*rows*h)
		}
		for row := range rows {
			for k := range 2 * h {
				if got, want := half[row*2*h+k], full[row*2*n+k]; math.Abs(got-want) > 1e-12 {
					t.Fatalf("%s: row %d value %d: rfft %v, fft %v", spec, row, k, got, want)
				}
			}
		}
	}
}

func TestParseFFTShape(t *testing.T) {
	for _, c := range []struct {
		spec    string
		want    Shape
		format  string
		points  int
		outLen  int // fft's Output length
		invalid bool
	}{
		{spec: "64Ki", want: Shape{M: 1, N: 64 << 10}, format: "65536", points: 64 << 10, outLen: 2 << 16},
		{spec: "3Ki", want: Shape{M: 1, N: 3072}, format: "3072", points: 3072, outLen: 6144},
		{spec: "3x64Ki", want: Shape{M: 3, N: 64 << 10}, format: "3x65536", points: 64 << 10, outLen: 6 << 16},
		{spec: "32x64:2d", want: Shape{M: 1, K: 32, N: 64}, format: "32x64:2d", points: 2048, outLen: 4096},
		{spec: "2x32x64:2d", want: Shape{M: 2, K: 32, N: 64}, format: "2x32x64:2d", points: 2048, outLen: 8192},
	} {
		got, err := ParseShape(FFT, c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if got != c.want || got.Format(FFT) != c.format || got.FFTPoints() != c.points {
			t.Errorf("%s: got %+v %q (%d points), want %+v %q (%d)", c.spec, got, got.Format(FFT), got.FFTPoints(), c.want, c.format, c.points)
		}
		w := Workload{Op: FFT, DType: F32, Shape: got}
		if err := w.Validate(); err != nil || w.OutputLen() != c.outLen {
			t.Errorf("%s: Validate %v, OutputLen %d, want nil and %d", c.spec, err, w.OutputLen(), c.outLen)
		}
	}
	for _, bad := range []string{"1x2x3", "4:3d", "0", "2x2x2x2:2d", "64:NN"} {
		if _, err := ParseShape(FFT, bad); err == nil {
			t.Errorf("ParseShape(fft, %q) accepted", bad)
		}
	}
	if err := (Workload{Op: FFT, DType: BF16, Shape: Shape{M: 1, N: 8}}).Validate(); err == nil {
		t.Error("fft in bf16 validated")
	}
}

// TestFFTCosts checks the benchFFT FLOP convention and the byte counts.
func TestFFTCosts(t *testing.T) {
	c := Workload{Op: FFT, DType: F32, Shape: Shape{M: 2, N: 1024}}
	if got, want := c.FLOPs(), 2*5*1024*10.0; got != want {
		t.Errorf("fft 2x1024 FLOPs %v, want %v", got, want)
	}
	if got, want := c.Bytes(), 2*2*2*1024*4.0; got != want {
		t.Errorf("fft 2x1024 f32 bytes %v, want %v", got, want)
	}
	r := Workload{Op: RFFT, DType: F64, Shape: Shape{M: 1, K: 4, N: 8}}
	if got, want := r.FLOPs(), 5*32*5/2.0; got != want {
		t.Errorf("rfft 4x8:2d FLOPs %v, want %v", got, want)
	}
	if got, want := r.Bytes(), (32+2*4*5)*8.0; got != want {
		t.Errorf("rfft 4x8:2d f64 bytes %v, want %v", got, want)
	}
}

// TestVerifyFFT: the reference passes; one wrong element, a NaN and a
// wrong transform of a batch fail; f32 rounding of the output passes.
func TestVerifyFFT(t *testing.T) {
	for _, op := range FFTOps {
		w := Workload{Op: op, DType: F32, Shape: Shape{M: 3, N: 4099}}
		d := w.NewData(7)
		ref := w.Reference(d)
		rounded := make([]float64, len(ref))
		for i, v := range ref {
			rounded[i] = float64(float32(v))
		}
		if c := w.Verify(d, rounded); !c.OK {
			t.Errorf("%s: the rounded reference failed: %+v", op, c)
		}
		bad := append([]float64(nil), ref...)
		bad[len(bad)-3] += 0.01 * math.Sqrt(float64(w.Shape.N))
		if c := w.Verify(d, bad); c.OK || c.Detail == "" {
			t.Errorf("%s: a wrong element in the last transform passed: %+v", op, c)
		}
		bad[len(bad)-3] = math.NaN()
		if c := w.Verify(d, bad); c.OK || c.MaxRelErr != math.MaxFloat64 {
			t.Errorf("%s: a NaN passed: %+v", op, c)
		}
	}
}
