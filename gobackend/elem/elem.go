// Package elem is the element-wise kernels of peakbench's own backends over
// contiguous slices, generic over float32 and float64, split over an
// explicit number of goroutines in chunks whose boundaries are multiples of
// 64 elements.
//
// Every function takes an isa.Level: isa.Generic runs the pure-Go kernels of
// elem_generic.go (the go backend's, and the reference), a higher level the
// assembly of elem_amd64.s (the asm backend's), clamped to what the CPU
// runs. Add, Mul and ReLU give the same bits at every level; Axpy's
// assembly rounds once (FMA) where Go rounds twice; Exp, Tanh and Sigmoid
// are within MaxULP of the exact result at every level.
//
// Outputs may alias inputs exactly (z == x computes in place); partial
// overlaps are not supported. Length mismatches and threads < 1 panic with
// a message starting "elem: ".
package elem

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

//go:generate go run -C ../_asm . -pkg elem

// Float is the element type: float32, float64 or a type defined on them.
type Float = num.Float

// align keeps chunk boundaries on 64 elements: whole cache lines at either
// type, so two goroutines never write the same line.
const align = 64

// Below the piece sizes of tune.Current().Parallel a vector runs on the
// caller's goroutine alone: handing pieces to a pooled worker and waiting
// for them costs about half a microsecond (internal/num), the time of a few
// thousand adds in cache but only a few hundred transcendentals. The
// defaults and how `peakbench -tune` measures them: gobackend/tune.

// cheapPiece and mathPiece are the least piece, in elements of T, of Add,
// Mul, Axpy, ReLU and of Exp, Tanh, Sigmoid.
func cheapPiece[T Float](p *tune.Params) int { return tune.Elems[T](p.Parallel.Cheap) }
func mathPiece[T Float](p *tune.Params) int  { return tune.Elems[T](p.Parallel.Math) }

// impl is a set of kernels: the generic ones, or an assembly set. Each
// exported function turns its level into an impl once and dispatches with a
// switch, not through function values, so that a call on a short vector
// allocates nothing.
type impl = isa.Impl

const (
	implGeneric = isa.ImplGeneric
	implAVX2    = isa.ImplAVX2
	implAVX512  = isa.ImplAVX512
)

// implFor returns the kernels lvl runs (clamped to what the CPU runs).
func implFor(lvl isa.Level) impl {
	return isa.ImplFor(lvl, haveAsm)
}

// Kernel names the kernels a level runs: "generic", "AVX2", or at AVX512
// isa.ZMMKernel's name: the AVX-512 kernels run while a call moves (reads
// and writes) at most tune's zmm.memory.
func Kernel(lvl isa.Level) string { return kernel(lvl, tune.Current().ZMM.Memory) }

func kernel(lvl isa.Level, zmmMax int) string {
	switch implFor(lvl) {
	case implAVX2:
		return "AVX2"
	case implAVX512:
		return isa.ZMMKernel(zmmMax)
	}
	return "generic"
}

// WalkKernel names the Add, Mul, ReLU and Axpy kernels a level runs: as
// Kernel, and at AVX2 and AVX512 which way they walk (walkDown): down where
// walking up would alias, but up over tune's walk range of operand bytes.
func WalkKernel(lvl isa.Level) string {
	return walkKernel(Kernel(lvl), implFor(lvl) != implGeneric, tune.Current().Walk)
}

func walkKernel(k string, twins bool, w tune.Walk) string {
	if !twins {
		return k
	}
	k += ", walking down where walking up would alias (4K)"
	if w.UpAbove >= w.UpTo {
		return k
	}
	if w.UpTo >= tune.MaxPieceBytes {
		return k + " but up above " + kib(w.UpAbove) + " of operands"
	}
	return k + " but up over " + kib(w.UpAbove) + "–" + kib(w.UpTo) + " of operands"
}

// kib writes bytes in KiB where they are whole KiB.
func kib(b int) string {
	if b%1024 == 0 {
		return strconv.Itoa(b>>10) + " KiB"
	}
	return strconv.Itoa(b) + " B"
}

// MathKernel names the Exp, Tanh and Sigmoid kernels a level runs: as
// Kernel, with tune's zmm.math.
func MathKernel(lvl isa.Level) string { return kernel(lvl, tune.Current().ZMM.Math) }

// forChunks runs f on the pieces of [0, n) num.For makes. The callers check
// single first and then call their kernel directly: the closure passed here
// escapes to the workers, so making it allocates.
func forChunks(n, threads, minChunk int, f func(lo, hi int)) {
	num.For(n, threads, align, minChunk, func(_, lo, hi int) { f(lo, hi) })
}

func single(n, threads, minChunk int) bool { return num.Single(n, threads, minChunk) }

// walkDown reports whether a kernel that stores at out while it loads at
// ins, operands of bytes in all, walks from the end down (the AVX2 and
// AVX-512 kernels that have twins walking down): at a size where
// that may pay (tune.Walk) and where walking up its stores would trail a
// load (num.WalkDown).
func walkDown(bytes int, out uintptr, ins ...uintptr) bool {
	return tune.Current().Walk.DownPays(bytes) && num.WalkDown(out, ins...)
}

// Add sets z = x + y.
func Add[T Float](lvl isa.Level, x, y, z []T, threads int) {
	check3(x, y, z, threads)
	bytes := 3 * len(x) * num.Size[T]()
	p := tune.Current()
	k := implFor(p.Level(lvl, bytes))
	pc := cheapPiece[T](p)
	nt := nonTemporal(p, bytes)
	if k != implGeneric && single(len(x), threads, pc) && !nt {
		binaryAsm(k, opAdd, x, y, z) // see single-thread calls below
		return
	}
	binary(k, opAdd, x, y, z, threads, pc, nt)
}

// Mul sets z = x * y.
func Mul[T Float](lvl isa.Level, x, y, z []T, threads int) {
	check3(x, y, z, threads)
	bytes := 3 * len(x) * num.Size[T]()
	p := tune.Current()
	k := implFor(p.Level(lvl, bytes))
	pc := cheapPiece[T](p)
	nt := nonTemporal(p, bytes)
	if k != implGeneric && single(len(x), threads, pc) && !nt {
		binaryAsm(k, opMul, x, y, z)
		return
	}
	binary(k, opMul, x, y, z, threads, pc, nt)
}

// Axpy sets y += alpha·x.
func Axpy[T Float](lvl isa.Level, alpha T, x, y []T, threads int) {
	n := len(x)
	// One thread: the kernel (axpyKernel, which picks the direction)
	// straight from here, with no call before it that would make the
	// compiler save every argument first (see single-thread calls below).
	if k := implFor(tune.Current().Level(lvl, 3*n*num.Size[T]())); threads == 1 && k != implGeneric && n > 0 && len(y) == n {
		axpyKernel(k, alpha, x, y)
		return
	}
	axpySplit(lvl, alpha, x, y, threads)
}

// axpySplit is Axpy on several threads, or at the generic level.
func axpySplit[T Float](lvl isa.Level, alpha T, x, y []T, threads int) {
	check2(x, y, threads)
	p := tune.Current()
	k := implFor(p.Level(lvl, 3*len(x)*num.Size[T]()))
	pc := cheapPiece[T](p)
	if single(len(x), threads, pc) {
		axpy(k, alpha, x, y)
		return
	}
	forChunks(len(x), threads, pc, func(lo, hi int) { axpy(k, alpha, x[lo:hi], y[lo:hi]) })
}

// ReLU sets y = max(x, 0). NaN stays NaN (as in PyTorch; its sign bit
// cleared, every other bit kept), -0 becomes +0.
func ReLU[T Float](lvl isa.Level, x, y []T, threads int) {
	check2(x, y, threads)
	bytes := 2 * len(x) * num.Size[T]()
	p := tune.Current()
	k := implFor(p.Level(lvl, bytes))
	pc := cheapPiece[T](p)
	nt := nonTemporal(p, bytes)
	if k != implGeneric && single(len(x), threads, pc) && !nt {
		unaryAsm(k, opReLU, x, y)
		return
	}
	unary(k, opReLU, x, y, threads, pc, nt)
}

// Sigmoid sets y = 1/(1+exp(-x)): 0 or 1 (never NaN) for large |x|, with
// small results keeping their relative accuracy. NaN stays NaN.
func Sigmoid[T Float](lvl isa.Level, x, y []T, threads int) {
	check2(x, y, threads)
	mathOp(lvl, opSigmoid, x, y, threads)
}

// Tanh sets y = tanh(x).
func Tanh[T Float](lvl isa.Level, x, y []T, threads int) {
	check2(x, y, threads)
	mathOp(lvl, opTanh, x, y, threads)
}

// Exp sets y = exp(x) (overflow gives +Inf, underflow subnormals then 0).
func Exp[T Float](lvl isa.Level, x, y []T, threads int) {
	check2(x, y, threads)
	mathOp(lvl, opExp, x, y, threads)
}

// mathOp runs Exp, Tanh or Sigmoid.
func mathOp[T Float](lvl isa.Level, o op, x, y []T, threads int) {
	bytes := 2 * len(x) * num.Size[T]()
	p := tune.Current()
	unary(implFor(p.MathLevel(lvl, bytes)), o, x, y, threads, mathPiece[T](p), nonTemporal(p, bytes))
}

type op uint8

const (
	opAdd op = iota
	opMul
	opReLU
	opExp
	opTanh
	opSigmoid
)

// Single-thread calls: Add, Mul and ReLU call the assembly's wrapper
// themselves on one thread, and Axpy the assembly itself, rather than
// through binary, unary or axpy and their kernel functions: none of those
// is small enough to inline, and on a 16 KiB ReLU (~100 ns) each call
// level saved was 2–3 ns; a 1024-element f32 Axpy took 30.5 ns through
// axpyAsm and the piece size against 25.5 ns for the kernel alone (Intel
// VM of docs/tuning.md).

// binary and unary run a kernel on one thread or split over several.

// With nt, the assembly kernels store the output non-temporally
// (nontemporal.go); the generic ones ignore it.

func binary[T Float](k impl, o op, x, y, z []T, threads, minChunk int, nt bool) {
	if single(len(x), threads, minChunk) {
		binaryKernel(k, o, x, y, z, nt)
		return
	}
	forChunks(len(x), threads, minChunk, func(lo, hi int) { binaryKernel(k, o, x[lo:hi], y[lo:hi], z[lo:hi], nt) })
}

func unary[T Float](k impl, o op, x, y []T, threads, minChunk int, nt bool) {
	if single(len(x), threads, minChunk) {
		unaryKernel(k, o, x, y, nt)
		return
	}
	forChunks(len(x), threads, minChunk, func(lo, hi int) { unaryKernel(k, o, x[lo:hi], y[lo:hi], nt) })
}

// binaryKernel, axpy and unaryKernel run one kernel on one chunk, serially.

func binaryKernel[T Float](k impl, o op, x, y, z []T, nt bool) {
	switch {
	case k != implGeneric && nt:
		binaryAsmNT(k, o, x, y, z)
		return
	case k != implGeneric:
		binaryAsm(k, o, x, y, z)
		return
	}
	if o == opAdd {
		addGeneric(x, y, z)
	} else {
		mulGeneric(x, y, z)
	}
}

func axpy[T Float](k impl, alpha T, x, y []T) {
	if k != implGeneric {
		axpyAsm(k, alpha, x, y)
		return
	}
	axpyGeneric(alpha, x, y)
}

func unaryKernel[T Float](k impl, o op, x, y []T, nt bool) {
	switch {
	case k != implGeneric && nt:
		unaryAsmNT(k, o, x, y)
		return
	case k != implGeneric:
		unaryAsm(k, o, x, y)
		return
	}
	switch o {
	case opReLU:
		reluGeneric(x, y)
	case opExp:
		mapMath(x, y, exp)
	case opTanh:
		mapMath(x, y, math.Tanh)
	case opSigmoid:
		mapMath(x, y, sigmoid)
	}
}

// MaxULP is the largest error of Exp, Tanh and Sigmoid at a level, in units
// in the last place of the result (of a subnormal result: of the smallest
// subnormal), over the accuracy sweep of this package's tests, which fails
// if a kernel exceeds it. fn is "exp", "tanh" or "sigmoid"; f64 selects the
// float64 kernels.
func MaxULP(lvl isa.Level, fn string, f64 bool) float64 {
	b, ok := ulpBounds[boundKey{implFor(lvl), fn, f64}]
	if !ok {
		panic("elem: MaxULP: unknown function " + fn)
	}
	return b
}

type boundKey struct {
	impl impl
	fn   string
	f64  bool
}

func check2[T Float](x, y []T, threads int) {
	if len(y) != len(x) {
		panic("elem: len(y) != len(x)")
	}
	if threads < 1 {
		panic("elem: threads < 1")
	}
}

func check3[T Float](x, y, z []T, threads int) {
	if len(y) != len(x) {
		panic("elem: len(y) != len(x)")
	}
	if len(z) != len(x) {
		panic("elem: len(z) != len(x)")
	}
	if threads < 1 {
		panic("elem: threads < 1")
	}
}

func is32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

// p32 and p64 are &s[0] as the assembly's element type, which T is or is
// defined on.
func p32[T Float](s []T) *float32 { return (*float32)(unsafe.Pointer(&s[0])) }
func p64[T Float](s []T) *float64 { return (*float64)(unsafe.Pointer(&s[0])) }
