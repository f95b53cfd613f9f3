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
	"github.com/peakbench/peakbench/gobackend/tune"
)

//go:generate go run -C ../_asm . -pkg reduce

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// piece is the least a piece of a parallel reduction gets, in elements of
// T (tune.Current().Parallel.Reduce, in bytes of x): a reduction streams
// its input once, several elements per cycle, so a smaller piece costs more
// to hand to a worker than it saves. The defaults and how `peakbench -tune`
// measures them: gobackend/tune.
func piece[T Float]() int { return tune.Elems[T](tune.Current().Parallel.Reduce) }

// impl is a set of kernels: the generic ones, or an assembly set. The
// exported functions dispatch with a switch, not through function values,
// so a call on a short vector allocates nothing.
type impl = isa.Impl

const (
	implGeneric = isa.ImplGeneric
	implAVX2    = isa.ImplAVX2
	implAVX512  = isa.ImplAVX512
)

// implFor returns the kernels lvl runs (clamped to what the CPU runs). At
// isa.AVX512, Max's mask registers take its NaN bookkeeping off the vector
// pipes, and Sum and Dot read whole cache lines per load; the callers pass
// lvl.ForBytes of what they read, so that DRAM-sized calls run AVX2.
//
// One case goes the other way: from L1, a zmm load that straddles two cache
// lines costs an extra access, so on a slice 32 bytes past a 64-byte
// boundary a 16 KiB zmm sum or dot ran 13–18% slower than the ymm one.
// Slices of 512 bytes or more from make start on a 64-byte boundary; Sum and
// Dot keep one kernel for every alignment, so that their rounding does not
// depend on it.
func implFor(lvl isa.Level) impl {
	return isa.ImplFor(lvl, haveAsm)
}

// Kernel names the Sum, Dot and Max kernels a level runs: "generic",
// "AVX2", or at AVX512 isa.ZMMKernel's name: the AVX-512 kernels run while a call
// reads at most tune's zmm.memory.
func Kernel(lvl isa.Level) string {
	switch implFor(lvl) {
	case implAVX2:
		return "AVX2"
	case implAVX512:
		return isa.ZMMKernel(tune.Current().ZMM.Memory)
	}
	return "generic"
}

// Sum returns Σ x[i] (0 for an empty x). NaN or opposite infinities give NaN.
func Sum[T Float](lvl isa.Level, x []T, threads int) T {
	checkThreads(threads)
	k := implFor(tune.Current().Level(lvl, len(x)*num.Size[T]()))
	pc := piece[T]()
	if num.Single(len(x), threads, pc) {
		if k != implGeneric && len(x) > 0 {
			// The assembly straight from here, no wrapper between: on a
			// 4 KiB vector each call level costs ~1 ns of ~21 (Zen 4).
			switch {
			case k == implAVX512 && is32[T]():
				return T(ssumAVX512(len(x), p32(x)))
			case k == implAVX512:
				return T(dsumAVX512(len(x), p64(x)))
			case is32[T]():
				return T(ssumAVX2(len(x), p32(x)))
			}
			return T(dsumAVX2(len(x), p64(x)))
		}
		return T(sum(k, x)) // no closure to allocate
	}
	return T(reduce(len(x), threads, pc, func(lo, hi int) float64 { return sum(k, x[lo:hi]) }))
}

// Dot returns Σ x[i]·y[i] (0 for empty slices), with the same blocking as
// Sum. len(y) must equal len(x).
func Dot[T Float](lvl isa.Level, x, y []T, threads int) T {
	n := len(x)
	// One piece: the assembly straight from here, as Sum's. On one thread
	// with no call before it (the piece size's) that would make the
	// compiler save every argument first: a 1024-element dot took
	// 20.6–21.0 ns against 22.6 (f32), 38.8 against 40.1 (f64; Intel VM of
	// docs/tuning.md, alternated). On more threads a vector below the split
	// comes here too: through dotSplit, a 1024-element f32 dot on two
	// threads took 78–83 ns against 61–64 on one, here 64–77 (Ice Lake VM,
	// alternated).
	if k := implFor(tune.Current().Level(lvl, 2*n*num.Size[T]())); (threads == 1 || threads > 1 && num.Single(n, threads, piece[T]())) && k != implGeneric && n > 0 && len(y) == n {
		switch {
		case k == implAVX512 && dotPrefetches(2*n*num.Size[T]()):
			return T(dotPrefetchAsm(x, y))
		case k == implAVX512 && is32[T]():
			return T(sdotAVX512(n, p32(x), p32(y)))
		case k == implAVX512:
			return T(ddotAVX512(n, p64(x), p64(y)))
		case is32[T]():
			return T(sdotAVX2(n, p32(x), p32(y)))
		}
		return T(ddotAVX2(n, p64(x), p64(y)))
	}
	return dotSplit(lvl, x, y, threads)
}

// dotPrefetches reports whether the AVX-512 Dot over bytes of x and y runs
// the kernel that prefetches its input ahead of its loads (sdotpfAVX512,
// ddotpfAVX512; the same arithmetic, the same bits): past a core's L2 and
// up to a quarter of the last-level cache. On the Zen 5 VM (1 MiB L2, 32
// MiB L3; Go timings, 1 thread, 31 interleaved rounds) it took 0.885–0.89×
// the plain kernel's time over 2 MiB (f32 256 Ki, f64 128 Ki), 0.91–0.95×
// over 8 MiB, but 1.05× over 16 MiB (f64 1 Mi) and 1.02–1.06× from L2
// (512 KiB); on the 2-vCPU Intel VM prefetching took 2–7% longer from L1
// and L2 in GEMV's rows and gained nothing from L3 (docs/architecture.md,
// GEMV).
func dotPrefetches(bytes int) bool {
	c := isa.Caches()
	return bytes > c.L2 && bytes <= c.L3/4
}

// dotSplit is Dot on several threads, or at the generic level.
func dotSplit[T Float](lvl isa.Level, x, y []T, threads int) T {
	if len(y) != len(x) {
		panic("reduce: len(y) != len(x)")
	}
	checkThreads(threads)
	k := implFor(tune.Current().Level(lvl, 2*len(x)*num.Size[T]()))
	pc := piece[T]()
	if num.Single(len(x), threads, pc) {
		return T(dot(k, x, y))
	}
	return T(reduce(len(x), threads, pc, func(lo, hi int) float64 { return dot(k, x[lo:hi], y[lo:hi]) }))
}

// reduce adds f's float64 partials over the chunks of [0, n) (pieces of at
// least `least` elements), in chunk order.
func reduce(n, threads, least int, f func(lo, hi int) float64) float64 {
	parts, _ := num.Chunks(n, threads, 64, least)
	partial := make([]float64, parts)
	num.For(n, threads, 64, least, func(p, lo, hi int) { partial[p] = f(lo, hi) })
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
	k := implFor(tune.Current().Level(lvl, len(x)*num.Size[T]()))
	pc := piece[T]()
	if num.Single(len(x), threads, pc) {
		return maxOf(k, x)
	}
	parts, _ := num.Chunks(len(x), threads, 64, pc)
	partial := make([]T, parts)
	num.For(len(x), threads, 64, pc, func(p, lo, hi int) {
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
		return sumAsm(k, x)
	}
	return sumGeneric(x)
}

func dot[T Float](k impl, x, y []T) float64 {
	if k != implGeneric {
		return dotAsm(k, x, y)
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

func is32[T Float]() bool { return num.Size[T]() == 4 }

// p32 and p64 are &s[0] as the assembly's element type, which T is or is
// defined on.
func p32[T Float](s []T) *float32 { return (*float32)(unsafe.Pointer(&s[0])) }
func p64[T Float](s []T) *float64 { return (*float64)(unsafe.Pointer(&s[0])) }

func checkThreads(threads int) {
	if threads < 1 {
		panic("reduce: threads < 1")
	}
}
