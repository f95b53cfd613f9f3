package gemm

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

//go:generate go run gen_kernel.go -mr 3 -nr 3 -unroll 16
//go:generate go run -C ../_asm . -pkg gemm

// A microKernel computes one mr×nr tile of C from packed panels; see
// kernel3x3Generic for the contract. The loops in gemm.go and the packing in
// pack.go take mr, nr and the block sizes from here, so a kernel of another
// shape only has to be returned by kernelFor.
type microKernel[T Float] struct {
	name   string // BLIS-style: sgemm6x16AVX2
	mr, nr int
	// Block sizes of the loop nest in elements (see blocking): kc is the
	// depth of the packed panels, mc the rows of A packed at once, nc the
	// columns of B packed at once; mc is a multiple of mr, nc of nr.
	kc, mc, nc int
	// streamKC is the streaming path's depth (stream.go; 0: kc). Its few
	// row tiles reuse each packed B chunk and each C update less than the
	// nest does, so it keeps the deeper kc where floatBlocking cut kc to
	// fit L1: DGEMM 64×3136×576 at kc = 256 ran 3–7% slower on one thread
	// than at 512 (Intel Xeon VM, three alternated runs).
	streamKC int
	fn       func(k int, a, b []T, alpha, beta T, c []T, ldc int)
	// Packing routines for full panels (nil: pack.go's loops): A's of mr
	// rows, B's of nr columns.
	packCopyA, packGatherA, packCopyB, packGatherB panelPacker[T]
	// packRowsB packs panels full panels of B (not transposed), k steps,
	// reading B row by row across all of them (nil: packB's panel loop;
	// see packRowsB).
	packRowsB func(k int, src []T, lds, panels int, dst []T)
	// prefetching is fn's variant that also prefetches into L2 128 bytes
	// at pf and pf+pfs per trip of 4 steps, pf moving on by 2·pfs (nil:
	// none; the streaming path's, stream.go).
	prefetching prefetchKernel[T]
	// direct is the kernel's unpacked twin (nil: none, the pure-Go
	// kernel): A and B row-major in place, strides lda and ldb (direct.go).
	direct func(k int, a []T, lda int, b []T, ldb int, alpha, beta T, c []T, ldc int)
	// directRows[h−1] is direct's twin for tiles of h < mr rows (nil
	// where there is none): made with the kernel, not per call, as
	// wrapping the assembly allocates.
	directRows []directFunc[T]
	// narrow is the kernel Gemm runs instead on products narrower than
	// one of this kernel's panels (n < nr) that fill its own panels
	// better: n a multiple of its nr, or below it. At AVX512, the AVX-512
	// kernel one vector wide (asmNarrowKernel), which at n = 16 (f32) or
	// 8 (f64) clips no tile where this one clips half of each, and at
	// fewer columns clips half as much; it runs unpacked (useDirect).
	// f32 on the Zen 5 VM, one thread, against this kernel: 1024×16×1024
	// 314–407 µs against 622–681, 4096×16×256 195–198 against 766–888,
	// 128×16×128 3.0–3.3 against 5.2–5.7; 1024×8×1024 293–395 against
	// 508–524, 4096×1×256 216–243 against 473–485. Between the two
	// widths (f32 n = 17–31) both clip as much, and this kernel reads B
	// once.
	narrow *microKernel[T]
	// wide is the kernel the packed loop nest runs instead where the tune
	// parameters choose tune.ShapeWide (nestKernel; nil: none): at
	// AVX512, 8 rows of 3 vectors (asmWideKernel).
	wide *microKernel[T]
}

// A prefetchKernel is a micro-kernel that also prefetches another
// stretch of memory (microKernel.prefetching).
type prefetchKernel[T Float] func(k int, a, b []T, alpha, beta T, c []T, ldc int, pf *T, pfs int)

// kernelFor picks the micro-kernel for T at level lvl (clamped to what the
// CPU runs): the assembly ones of gemm_amd64.go where there is one, else the
// pure-Go 3×3.
//
// Why 3×3 in pure Go: the compiler keeps scalars in X registers (15 usable on
// amd64, X15 is reserved as zero) and emits a separate mul and add per update
// with a copy of the reused operand. 4×4 (16 accumulators) and 3×4 spill in
// the inner loop; 3×3 keeps 9 accumulators, 3 b values, an a value and a
// product in registers. Kernel alone on the 2-core development VM, k=256,
// GFLOP/s for float32 and float64 alike (scalar code gains nothing from the
// narrower type): 4×4 ≈ 5, 2×4 ≈ 8, 3×2 ≈ 9.5, 3×3 unrolled 16 ≈ 11.
func kernelFor[T Float](lvl isa.Level) microKernel[T] { return *kernelRef[T](lvl) }

// kernelRef is kernelFor's kernel itself, made once per type and level:
// making one builds the assembly's wrappers (closures, allocated) and
// reads the caches, 5% of a 64³ SGEMM's time when done per call. Gemm
// takes it by pointer, so that a call neither copies nor allocates it.
func kernelRef[T Float](lvl isa.Level) *microKernel[T] {
	if blockKC > 0 { // a test's block sizes: not cached
		k := makeKernel[T](lvl)
		return &k
	}
	key := kernelKey{zero: *new(T), lvl: lvl}
	if k, ok := kernels.Load(key); ok {
		return k.(*microKernel[T])
	}
	k := makeKernel[T](lvl)
	got, _ := kernels.LoadOrStore(key, &k)
	return got.(*microKernel[T])
}

// kernels caches kernelFor's kernels by kernelKey.
var kernels sync.Map

// kernelKey is a kernel's element type (as the dynamic type of a zero
// value: float32 and a type defined on it differ) and level.
type kernelKey struct {
	zero any
	lvl  isa.Level
}

func makeKernel[T Float](lvl isa.Level) microKernel[T] {
	k, ok := asmKernel[T](lvl.Clamp())
	if !ok {
		var z T
		k = microKernel[T]{name: dtypeChar(z) + "gemm3x3Generic", mr: 3, nr: 3, fn: kernel3x3Generic[T]}
		// Chosen for the scalar 3×3 kernel on a core with 32 KiB L1d and
		// 512 KiB L2 (the first development machine). Within noise there,
		// kc 128–512 and mc 48–384 all ran alike.
		k.kc, k.mc, k.nc = 256, 96, 2048
	}
	finishKernel(&k, lvl)
	if nk, ok := asmNarrowKernel[T](lvl.Clamp()); ok && nk.nr < k.nr {
		finishKernel(&nk, lvl)
		k.narrow = &nk
	}
	if wk, ok := asmWideKernel[T](lvl.Clamp()); ok {
		finishKernel(&wk, lvl)
		k.wide = &wk
	}
	return k
}

// nestKernel is the kernel the packed loop nest runs for a product Gemm
// gave kern: its wide twin where tune.GEMM.Shape chooses that shape for
// T, else kern. The unpacked and streaming paths and the narrow kernel
// keep their own.
func nestKernel[T Float](kern *microKernel[T]) *microKernel[T] {
	var z T
	if kern.wide != nil && tune.PerDTypeOf(tune.Current().GEMM.Shape, int(unsafe.Sizeof(z))) == tune.ShapeWide {
		return kern.wide
	}
	return kern
}

// finishKernel applies the tests' block sizes, rounds mc and nc to whole
// tiles, and wraps the unpacked kernels of fewer rows.
func finishKernel[T Float](k *microKernel[T], lvl isa.Level) {
	if blockKC > 0 {
		k.kc, k.mc, k.nc, k.streamKC = blockKC, blockMC, blockNC, 0
	}
	k.mc = max(1, k.mc/k.mr) * k.mr
	k.nc = max(1, k.nc/k.nr) * k.nr
	if k.direct != nil {
		k.directRows = make([]directFunc[T], k.mr-1)
		for h := 1; h < k.mr; h++ {
			k.directRows[h-1] = rowsDirectKernel[T](lvl, h, k.nr)
		}
	}
}

// Kernel returns the name of the micro-kernel Gemm runs for T at level lvl,
// in BLIS order (type, shape, ISA): "sgemm6x16AVX2", "dgemm3x3Generic".
func Kernel[T Float](lvl isa.Level) string { return kernelFor[T](lvl).name }

// WideKernel names the kernel the packed loop nest runs for T at lvl
// under the tune parameters in force, where that is not Kernel's
// (nestKernel), and which products take it; "" where it is Kernel's.
func WideKernel[T Float](lvl isa.Level) string {
	kern := kernelRef[T](lvl)
	if nk := nestKernel(kern); nk != kern {
		return nk.name + " on packed products (tune: gemm.shape)"
	}
	return ""
}

// PackedDepth is the depth (kc) of the packed loop nest's blocks for T at
// lvl under the parameters in force: the tune parameter gemm.kc where set,
// else the micro-kernel's own.
func PackedDepth[T Float](lvl isa.Level) int {
	kc, _ := nestDepth(nestKernel(kernelRef[T](lvl)))
	return kc
}

// TunedDepth says the packed loop nest's depth where the tune parameter
// gemm.kc set it ("sgemm14x32AVX512 at kc = 384 on packed products (tune:
// gemm.kc)"), "" where the kernel keeps its own.
func TunedDepth[T Float](lvl isa.Level) string {
	kern := nestKernel(kernelRef[T](lvl))
	if kc, _ := nestDepth(kern); kc != kern.kc {
		return fmt.Sprintf("%s at kc = %d on packed products (tune: gemm.kc)", kern.name, kc)
	}
	return ""
}

// NarrowKernel names the kernel Gemm runs for T at lvl on narrow products
// (microKernel.narrow) and the widths it takes ("" where there is none),
// for the results' details.
func NarrowKernel[T Float](lvl isa.Level) string {
	kern := kernelRef[T](lvl)
	if kern.narrow == nil {
		return ""
	}
	return fmt.Sprintf("%s where n is below %d, or a multiple of %d below %d", kern.narrow.name, kern.narrow.nr, kern.narrow.nr, kern.nr)
}

// Test overrides of the block sizes (0: the kernel's own).
var blockKC, blockMC, blockNC int

// blocking derives the block sizes of an assembly kernel from the cache
// sizes, after the analytical model of BLIS (Low et al., "Analytical
// modeling is enough for high-performance BLIS", TOMS 2016):
//   - kc: the kc×nr micro-panel of B stays in L1 while the kernel sweeps the
//     micro-panels of A past it, so it gets about half of L1 (the other half
//     holds the A micro-panel streaming in and the C tile), but kc is at
//     least kcMin: the update of C after each kc-deep pass costs more than
//     L1 misses below that. kcMin is 256 for the 12-accumulator AVX2 kernels
//     and 512 for the 28-accumulator AVX-512 ones, whose C update is dearer
//     and whose B micro-panel (16 or 32 columns) fills half of L1 at kc =
//     128 already: at kc = 512 both micro-panels stream from L2, and on Zen 4
//     that ran 2–14% faster than 256 (n = 1024 and 2048, one and two
//     threads); 384 and 768 ran within noise of 512, 128 5–13% slower;
//   - mc: the packed mc×kc block of A stays in L2, half of it (the f32 and
//     f64 kernels: a quarter, floatBlocking);
//   - nc: the packed kc×nc block of B lives in L3; a quarter of it, as the L3
//     is shared with the other cores (and, on a VM, other tenants).
func blocking(mr, nr, size, kcMin int) (kc, mc, nc int) {
	c := isa.Caches()
	kc = max(kcMin, c.L1/2/(nr*size)/8*8)
	mc = max(mr, c.L2/2/(kc*size)/mr*mr)
	nc = max(nr, min(8192, c.L3/4/(kc*size))/nr*nr)
	return kc, mc, nc
}

// floatBlocking is blocking for the f32 and f64 kernels, with two changes
// measured on the 2-vCPU Intel VM (48 KiB L1d, 2 MiB L2, AVX-512) with
// TestBlockingSweep (30–40 rounds interleaved, n = 512 and 1024, one and
// two threads, three runs):
//   - the packed block of A gets a quarter of L2, not half, leaving room
//     for B's micro-panels streaming through L2 and for C: SGEMM at
//     kc/mc 512/252 against 512/504 ran 4–6% faster at n = 1024 and
//     within ±2% at 512;
//   - with fitL1 (the f64 AVX-512 kernel), kc is the depth at which the
//     kc×nr micro-panel of B fills two thirds of L1, where that is at
//     least 256: the panel then stays in L1 over the sweep of A's
//     micro-panels, as the model intends (kc = 256 with 48 KiB). DGEMM at
//     256/252 against 512/252 ran 0–6% faster (1024, one thread: 4.6%
//     twice). SGEMM at 256 ran level with 512 or up to 2% behind, so
//     its kernel keeps kcMin; so do smaller L1s (Zen 4's 32 KiB), where
//     kc = 512 had measured ahead of 256.
func floatBlocking(mr, nr, size, kcMin int, fitL1 bool) (kc, mc, nc int) {
	kc, _, nc = blocking(mr, nr, size, kcMin)
	c := isa.Caches()
	if fit := c.L1 * 2 / 3 / (nr * size) / 8 * 8; fitL1 && fit >= 256 {
		kc = min(kc, fit)
	}
	mc = max(mr, c.L2/4/(kc*size)/mr*mr)
	return kc, mc, nc
}

// The least kc of blocking, by kernel family.
const (
	kcMin256 = 256 // the AVX2 kernels
	kcMin512 = 512 // the AVX-512 kernels
)

func dtypeChar[T Float](z T) string {
	if unsafe.Sizeof(z) == 4 {
		return "s"
	}
	return "d"
}
