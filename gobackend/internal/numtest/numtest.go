// Package numtest holds the test helpers of the gobackend kernels, in the
// style of gonum's internal/asm tests: buffers with NaN guard elements on
// both sides, bitwise comparison, the unit roundoff of each type.
package numtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// Guard is the number of guard elements on each side of a Guarded buffer.
const Guard = 7

// Guarded is a buffer with NaN guard elements around the part kernels see.
type Guarded[T num.Float] struct {
	Full []T
	Data []T // Full[Guard+Off : len(Full)-Guard], capacity capped
	Off  int // extra guard elements before Data (NewAt)
}

// New returns n elements uniform in [-1, 1) between NaN guards.
func New[T num.Float](n int, rnd *rand.Rand) Guarded[T] { return NewAt[T](n, 0, rnd) }

// NewAt is New with off more guard elements before the data, so that Data
// starts off elements past the aligned start of an allocation: the kernels'
// unaligned paths.
func NewAt[T num.Float](n, off int, rnd *rand.Rand) Guarded[T] {
	full := make([]T, n+2*Guard+off)
	for i := range full {
		full[i] = T(math.NaN())
	}
	start := Guard + off
	g := Guarded[T]{Full: full, Data: full[start : start+n : start+n], Off: off}
	for i := range g.Data {
		g.Data[i] = T(2*rnd.Float64() - 1)
	}
	return g
}

// Clone returns a deep copy, guards included.
func (g Guarded[T]) Clone() Guarded[T] {
	full := append([]T(nil), g.Full...)
	start, end := Guard+g.Off, len(full)-Guard
	return Guarded[T]{Full: full, Data: full[start:end:end], Off: g.Off}
}

// CheckGuards fails the test if a guard element is no longer NaN.
func (g Guarded[T]) CheckGuards(t testing.TB, name string) {
	t.Helper()
	for i := 0; i < Guard+g.Off; i++ {
		if v := g.Full[i]; v == v {
			t.Fatalf("%s: guard before the buffer overwritten at %d: %v", name, i-Guard-g.Off, v)
		}
	}
	for i := 0; i < Guard; i++ {
		if v := g.Full[len(g.Full)-1-i]; v == v {
			t.Fatalf("%s: guard after the buffer overwritten at +%d: %v", name, i, v)
		}
	}
}

// Differ returns the first index where x and y differ (NaN equals NaN), or
// -1. +0 and -0 count as equal.
func Differ[T num.Float](x, y []T) int {
	if len(x) != len(y) {
		return min(len(x), len(y))
	}
	for i := range x {
		if x[i] != y[i] && !(x[i] != x[i] && y[i] != y[i]) {
			return i
		}
	}
	return -1
}

// Eps is the unit roundoff of T: 2⁻²⁴ for float32, 2⁻⁵³ for float64.
func Eps[T num.Float]() float64 {
	var one T = 1
	if float64(one+T(0x1p-30)) == 1 { // float32 drops 2⁻³⁰
		return 0x1p-24
	}
	return 0x1p-53
}

// Quick reports whether tests should take their reduced set of cases: under
// -short, and under -race, which slows the kernels' Go parts ~20×.
func Quick() bool { return testing.Short() || Race }

// Offsets are the element offsets tests start slices at, past an aligned
// allocation: all of them, or two under Quick.
func Offsets() []int {
	if Quick() {
		return []int{0, 3}
	}
	return []int{0, 1, 2, 3, 4, 5, 6, 7}
}
