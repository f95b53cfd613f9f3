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
	Data []T // Full[Guard : len(Full)-Guard], capacity capped
}

// New returns n elements uniform in [-1, 1) between NaN guards.
func New[T num.Float](n int, rnd *rand.Rand) Guarded[T] {
	full := make([]T, n+2*Guard)
	for i := range full {
		full[i] = T(math.NaN())
	}
	g := Guarded[T]{Full: full, Data: full[Guard : Guard+n : Guard+n]}
	for i := range g.Data {
		g.Data[i] = T(2*rnd.Float64() - 1)
	}
	return g
}

// Clone returns a deep copy, guards included.
func (g Guarded[T]) Clone() Guarded[T] {
	full := append([]T(nil), g.Full...)
	return Guarded[T]{Full: full, Data: full[Guard : len(full)-Guard : len(full)-Guard]}
}

// CheckGuards fails the test if a guard element is no longer NaN.
func (g Guarded[T]) CheckGuards(t testing.TB, name string) {
	t.Helper()
	for i := 0; i < Guard; i++ {
		if v := g.Full[i]; v == v {
			t.Fatalf("%s: guard before the buffer overwritten at %d: %v", name, i-Guard, v)
		}
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
