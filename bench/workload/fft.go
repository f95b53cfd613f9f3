package workload

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// The discrete Fourier transforms, 1-D or 2-D, batched. Complex data is
// interleaved (re, im) in float64 Data, as complex64 and complex128 lie in
// memory; f32 workloads are complex64, f64 complex128.
//
//	fft   X[k] = Σ x[j]·e^(−2πi·jk/n)        complex → complex, forward
//	ifft  x[j] = Σ X[k]·e^(+2πi·jk/n)        complex → complex, backward, unnormalized (FFTW's FFTW_BACKWARD)
//	rfft  the forward transform of real x: the n/2+1 non-redundant outputs of the last dimension
//
// A 2-D transform is the 1-D transform of every row, then of every column.
const (
	FFT  Op = "fft"
	IFFT Op = "ifft"
	RFFT Op = "rfft"
)

// FFTOps lists the Fourier transforms in the order reports show them.
var FFTOps = []Op{FFT, IFFT, RFFT}

// KindFFT is the Fourier transforms' Kind: Shape.M is the batch, Shape.N
// the transform's length (a 2-D transform's columns), Shape.K a 2-D
// transform's rows (0 for 1-D).
const KindFFT Kind = 200

// Fourier reports whether op is a Fourier transform (fft, ifft, rfft).
func (op Op) Fourier() bool { return op == FFT || op == IFFT || op == RFFT }

// FFTPoints is the number of points of one transform: n, or rows·columns.
func (s Shape) FFTPoints() int { return max(s.K, 1) * s.N }

// FFTRows is the number of rows of one transform: 1 for a 1-D transform.
func (s Shape) FFTRows() int { return max(s.K, 1) }

// formatFFT writes an FFT shape as parseFFT reads it.
func formatFFT(s Shape) string {
	dims := fmt.Sprint(s.N)
	if s.K > 0 {
		dims = fmt.Sprintf("%dx%d", s.K, s.N)
	}
	if s.M > 1 {
		dims = fmt.Sprintf("%dx%s", s.M, dims)
	}
	if s.K > 0 {
		dims += ":2d"
	}
	return dims
}

// parseFFT reads an FFT's -size:
//
//	N            one 1-D transform of N points (64Ki; 3Ki = 3·2^10 points)
//	BxN          a batch of B 1-D transforms of N points each (3x64Ki)
//	RxC:2d       one 2-D transform of R rows by C columns
//	BxRxC:2d     a batch of B of them
func parseFFT(op Op, s string) (Shape, error) {
	dims, suffix, has2D := strings.Cut(s, ":")
	if has2D && suffix != "2d" {
		return Shape{}, fmt.Errorf("size %q: %s takes N, BxN (a batch of B transforms of N points), RxC:2d or BxRxC:2d", s, op)
	}
	var vals []int
	for _, p := range strings.Split(dims, "x") {
		v, err := ParseCount(p)
		if err != nil {
			return Shape{}, fmt.Errorf("size %q: %v", s, err)
		}
		vals = append(vals, v)
	}
	sh := Shape{M: 1}
	switch {
	case !has2D && len(vals) == 1:
		sh.N = vals[0]
	case !has2D && len(vals) == 2:
		sh.M, sh.N = vals[0], vals[1]
	case has2D && len(vals) == 2:
		sh.K, sh.N = vals[0], vals[1]
	case has2D && len(vals) == 3:
		sh.M, sh.K, sh.N = vals[0], vals[1], vals[2]
	default:
		return Shape{}, fmt.Errorf("size %q: %s takes N, BxN (a batch of B transforms of N points), RxC:2d or BxRxC:2d", s, op)
	}
	return sh, nil
}

// validateFFT checks an FFT's shape: at least one point and batch of one.
func (w Workload) validateFFT() error {
	s := w.Shape
	if s.M < 1 || s.N < 1 || s.K < 0 {
		return fmt.Errorf("%s: shape %s: batch and lengths must be at least 1", w.Op, formatFFT(s))
	}
	if w.DType != F32 && w.DType != F64 {
		return fmt.Errorf("%s: dtype %s: Fourier transforms are f32 (complex64) or f64 (complex128)", w.Op, w.DType)
	}
	return nil
}

// fftHalf is the number of complex outputs of rfft's last dimension.
func (s Shape) fftHalf() int { return s.N/2 + 1 }

// fftCounts returns the number of reals (float32 or float64 values) of
// the input and the output of all the batch's transforms.
func (w Workload) fftCounts() (in, out float64) {
	s := w.Shape
	b, rows, n := float64(s.M), float64(s.FFTRows()), float64(s.N)
	if w.Op == RFFT {
		return b * rows * n, 2 * b * rows * float64(s.fftHalf())
	}
	return 2 * b * rows * n, 2 * b * rows * n
}

// fftFLOPs is the benchFFT convention: 5·N·log₂N for a complex transform
// of N points (N = rows·columns for 2-D), whatever the algorithm and
// whether N is a power of two, and half that for a real one; times the
// batch. It is a scale to compare speeds by, not a count of operations.
func (w Workload) fftFLOPs() float64 {
	n := float64(w.Shape.FFTPoints())
	f := 5 * n * math.Log2(n) * float64(w.Shape.M)
	if w.Op == RFFT {
		f /= 2
	}
	return f
}

// fftTolULPs is the tolerance of a transform's error, relative to the L2
// norm of its exact result, in units of the dtype's roundoff: a float FFT
// of N points by any Cooley–Tukey or Bluestein algorithm has an error of
// O(ε·log₂N) relative to the L2 norm (exact twiddles: ε·√log₂N on
// average, the bound ε·log₂N times a small constant). 8·log₂N + 16 leaves
// room for the twiddles' own rounding and for the plain DFT of a small
// prime factor, whose L2 error grows as ε·√p.
func (s Shape) fftTolULPs() float64 {
	return 8*math.Log2(float64(max(s.FFTPoints(), 2))) + 16
}

// log2Exact returns k when n = 2^k, else -1.
func log2Exact(n int) int {
	if n < 1 || n&(n-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(n))
}
