package fft

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// dft is the definition in complex128, each twiddle from its exact angle.
func dft(x []complex128, inverse bool) []complex128 {
	n := len(x)
	sign := -1.0
	if inverse {
		sign = 1
	}
	out := make([]complex128, n)
	for k := range n {
		for j, v := range x {
			s, c := math.Sincos(2 * math.Pi * float64(j*k%n) / float64(n))
			out[k] += v * complex(c, sign*s)
		}
	}
	return out
}

func randomInput(n int, seed uint64) []complex128 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(float64(float32(2*rng.Float64()-1)), float64(float32(2*rng.Float64()-1)))
	}
	return x
}

// relErr is the L2 error of got against want relative to want's norm.
func relErr[C Complex](got []C, want []complex128) float64 {
	var d, n float64
	for i, w := range want {
		e := cmplx.Abs(complex128(got[i]) - w)
		d += e * e
		n += cmplx.Abs(w) * cmplx.Abs(w)
	}
	return math.Sqrt(d / n)
}

// sizes covers every code path: powers of two with an even and an odd
// number of factors 2 (a last radix-2 stage), lengths whose stride-1
// stage has too few butterflies for the assembly, 3·2^k, 5·2^k, 15·2^k,
// primes (Bluestein) and a product with a prime above 5.
var sizes = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 6, 12, 96, 3072, 20, 160, 5120, 960, 7, 17, 257, 4099, 3 * 7 * 16}

// want caches the definition's outputs, by length and direction.
var want = map[[2]int][]complex128{}

func check[C Complex](t *testing.T, lvl isa.Level, eps float64) {
	for _, n := range sizes {
		for _, inverse := range []bool{false, true} {
			x := randomInput(n, uint64(n))
			key := [2]int{n, b2i(inverse)}
			if want[key] == nil {
				want[key] = dft(x, inverse)
			}
			want := want[key]
			in, out := make([]C, n), make([]C, n)
			for i, v := range x {
				in[i] = C(v)
			}
			p := NewPlan[C](lvl, n, inverse, 1)
			p.Transform(out, in)
			tol := (8*math.Log2(float64(max(n, 2))) + 16) * eps
			if e := relErr(out, want); e > tol || math.IsNaN(e) {
				t.Errorf("%s n=%d inverse=%v (%s): L2 error %.3g, tolerance %.3g", lvl, n, inverse, p.Kernel(), e, tol)
			}
			for i, v := range x { // the input is left as it was
				if in[i] != C(v) {
					t.Fatalf("%s n=%d: Transform changed its input", lvl, n)
				}
			}
		}
	}
}

// TestTransforms runs every level the CPU has (the generic one always)
// against the definition, in complex64 and complex128.
func TestTransforms(t *testing.T) {
	for _, lvl := range isa.Levels() {
		t.Run(fmt.Sprint(lvl), func(t *testing.T) {
			check[complex64](t, lvl, 0x1p-24)
			check[complex128](t, lvl, 0x1p-53)
		})
	}
}

// TestRoundTrip: the inverse of the forward transform is n times the input.
func TestRoundTrip(t *testing.T) {
	for _, lvl := range isa.Levels() {
		for _, n := range []int{1 << 16, 3 << 12, 4099} {
			x := randomInput(n, 9)
			in, mid, out := make([]complex64, n), make([]complex64, n), make([]complex64, n)
			for i, v := range x {
				in[i] = complex64(v)
			}
			NewPlan[complex64](lvl, n, false, 1).Transform(mid, in)
			NewPlan[complex64](lvl, n, true, 1).Transform(out, mid)
			var d, norm float64
			for i := range x {
				e := cmplx.Abs(complex128(out[i])/complex(float64(n), 0) - x[i])
				d, norm = d+e*e, norm+cmplx.Abs(x[i])*cmplx.Abs(x[i])
			}
			if e, tol := math.Sqrt(d/norm), 2*(8*math.Log2(float64(n))+16)*0x1p-24; e > tol {
				t.Errorf("%s n=%d: ifft(fft(x))/n is %.3g from x, tolerance %.3g", lvl, n, e, tol)
			}
		}
	}
}

// TestKernelNames: a power of two runs assembly at the AVX levels (where
// the CPU has them), Go at the generic level, Bluestein for a prime.
func TestKernelNames(t *testing.T) {
	if k := NewPlan[complex64](isa.Generic, 1024, false, 1).Kernel(); k != "go" {
		t.Errorf("generic 1024: %q", k)
	}
	if k := NewPlan[complex64](isa.Generic, 4099, false, 1).Kernel(); k != "bluestein(go)" {
		t.Errorf("generic 4099: %q", k)
	}
	if haveAsm && isa.AVX2.Supported() {
		if k := NewPlan[complex64](isa.AVX2, 1024, false, 1).Kernel(); k != "avx2" {
			t.Errorf("avx2 1024: %q", k)
		}
	}
}

func BenchmarkTransform(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		for _, lvl := range isa.Levels() {
			b.Run(fmt.Sprintf("c64/%s/%d", lvl, n), func(b *testing.B) {
				p := NewPlan[complex64](lvl, n, false, 1)
				x, y := make([]complex64, n), make([]complex64, n)
				for i := range x {
					x[i] = complex(float32(i%7), float32(i%3))
				}
				b.SetBytes(int64(16 * n))
				for b.Loop() {
					p.Transform(y, x)
				}
				b.ReportMetric(5*float64(n)*math.Log2(float64(n))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
