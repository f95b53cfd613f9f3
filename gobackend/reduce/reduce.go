// Package reduce is the reductions of peakbench's own backends: Sum, Max
// and Dot over contiguous slices, generic over float32 and float64, split
// over an explicit number of goroutines.
//
// Every function takes an isa.Level: isa.Generic runs the pure-Go kernels of
// reduce_generic.go (the go backend's, and the reference), a higher level the
// assembly of reduce_amd64.s (the asm backend's), clamped to what the CPU
// runs. Both sum in blocks in T and add the blocks' sums in float64; their
// roundings differ (the assembly has more accumulators and FMA), Max is
// the same at every level.
//
// Results are deterministic for a given length, thread count and level:
// the split depends on nothing else, and per-goroutine partials are
// combined in order. Different thread counts may round differently (Sum,
// Dot), as with any parallel BLAS.
package reduce

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
)

//go:generate go run -C ../_asm . -pkg reduce

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// minChunk is the least number of elements a piece of a parallel reduction
// gets: a reduction streams its input once, several elements per cycle, so
// a smaller piece costs more to hand to a worker than it saves. A variable
// so tests can shrink it.
var minChunk = 1 << 16

// impl is a set of kernels: the generic ones, or an assembly set. The
// exported functions dispatch with a switch, not through function values,
// so a call on a short vector allocates nothing.
type impl uint8

const (
	implGeneric impl = iota
	implAVX2         // reduce_amd64.s
	implAVX512       // the AVX2 Sum and Dot, the AVX-512 Max
)

// implFor returns the kernels lvl runs (clamped to what the CPU runs). Sum
// and Dot run their AVX2 assembly at isa.AVX512 too: they are bound by the
// loads, which 512-bit vectors do not widen on Zen 4 (it splits them in two
// 256-bit halves); Max has an AVX-512 kernel, whose mask registers take its
// NaN bookkeeping off the vector pipes.
func implFor(lvl isa.Level) impl {
	switch l := lvl.Clamp(); {
	case !haveAsm || l < isa.AVX2:
		return implGeneric
	case l >= isa.AVX512:
		return implAVX512
	}
	return implAVX2
}

// Kernel names the Sum and Dot kernels a level runs: "generic" or "AVX2".
func Kernel(lvl isa.Level) string {
	if implFor(lvl) != implGeneric {
		return "AVX2"
	}
	return "generic"
}

// MaxKernel names the Max kernel a level runs: "generic", "AVX2" or "AVX512".
func MaxKernel(lvl isa.Level) string {
	switch implFor(lvl) {
	case implAVX2:
		return "AVX2"
	case implAVX512:
		return "AVX512"
	}
	return "generic"
}

// Sum returns Σ x[i] (0 for an empty x). NaN or opposite infinities give NaN.
func Sum[T Float](lvl isa.Level, x []T, threads int) T {
	checkThreads(threads)
	k := implFor(lvl)
	if num.Single(len(x), threads, minChunk) {
		if k != implGeneric && len(x) > 0 {
			// The assembly straight from here, no wrapper between: on a
			// 4 KiB vector each call level costs ~1 ns of ~21 (Zen 4).
			if is32[T]() {
				return T(ssumAVX2(len(x), p32(x)))
			}
			return T(dsumAVX2(len(x), p64(x)))
		}
		return T(sum(k, x)) // no closure to allocate
	}
	return T(reduce(len(x), threads, func(lo, hi int) float64 { return sum(k, x[lo:hi]) }))
}

// Dot returns Σ x[i]·y[i] (0 for empty slices), with the same blocking as
// Sum. len(y) must equal len(x).
func Dot[T Float](lvl isa.Level, x, y []T, threads int) T {
	if len(y) != len(x) {
		panic("reduce: len(y) != len(x)")
	}
	checkThreads(threads)
	k := implFor(lvl)
	if num.Single(len(x), threads, minChunk) {
		if k != implGeneric && len(x) > 0 {
			if is32[T]() { // as Sum
				return T(sdotAVX2(len(x), p32(x), p32(y)))
			}
			return T(ddotAVX2(len(x), p64(x), p64(y)))
		}
		return T(dot(k, x, y))
	}
	return T(reduce(len(x), threads, func(lo, hi int) float64 { return dot(k, x[lo:hi], y[lo:hi]) }))
}

// reduce adds f's float64 partials over the chunks of [0, n), in chunk
// order.
func reduce(n, threads int, f func(lo, hi int) float64) float64 {
	parts, _ := num.Chunks(n, threads, 64, minChunk)
	partial := make([]float64, parts)
	num.For(n, threads, 64, minChunk, func(p, lo, hi int) { partial[p] = f(lo, hi) })
	var total float64
	for _, s := range partial {
		total += s
	}
	return total
}

// Max returns the largest element of x. If any element is NaN the result is
// NaN (as numpy.max and torch.max, unlike a plain comparison loop, which
// would skip it); +0 counts as larger than -0. An empty x gives -Inf, the
// identity of max.
func Max[T Float](lvl isa.Level, x []T, threads int) T {
	checkThreads(threads)
	k := implFor(lvl)
	if num.Single(len(x), threads, minChunk) {
		return maxOf(k, x)
	}
	parts, _ := num.Chunks(len(x), threads, 64, minChunk)
	partial := make([]T, parts)
	num.For(len(x), threads, 64, minChunk, func(p, lo, hi int) {
		partial[p] = maxOf(k, x[lo:hi])
	})
	m := partial[0]
	for _, v := range partial[1:] {
		m = max(m, v)
	}
	return m
}

// sum, dot and maxOf run one kernel on one chunk, serially.

func sum[T Float](k impl, x []T) float64 {
	if k != implGeneric {
		return sumAsm(x)
	}
	return sumGeneric(x)
}

func dot[T Float](k impl, x, y []T) float64 {
	if k != implGeneric {
		return dotAsm(x, y)
	}
	return dotGeneric(x, y)
}

func maxOf[T Float](k impl, x []T) T {
	if k == implGeneric {
		return maxGeneric(x)
	}
	m := maxAsm(k, x)
	if m == 0 {
		// The assembly does not order ±0 (VMAXPS returns its second
		// operand for equal ones): the max is +0 if any element is.
		return maxGeneric(x)
	}
	return m
}

func is32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

// p32 and p64 are &s[0] as the assembly's element type, which T is or is
// defined on.
func p32[T Float](s []T) *float32 { return (*float32)(unsafe.Pointer(&s[0])) }
func p64[T Float](s []T) *float64 { return (*float64)(unsafe.Pointer(&s[0])) }

func checkThreads(threads int) {
	if threads < 1 {
		panic("reduce: threads < 1")
	}
}
