package gemm

import "github.com/peakbench/peakbench/gobackend/isa"

// Low-precision GEMM: C = op(A)·op(B) with 16- or 8-bit inputs, f32
// accumulation and output (bf16, f16) or exact int32 accumulation and
// output (i8: s8×s8; u8s8: u8 A × s8 B). The loop nest is gemmNest's in
// outline (lowp_nest.go); packing (lowp_pack.go) converts the inputs into
// 32-bit words, each a group of k values the micro-kernel multiplies with
// one instruction per lane, or per tile (the kernels: lowp_amd64.go, and
// ../_asm/gemm_lowp.go, gemm_amx.go):
//
//   - two bf16 for VDPBF16PS (AVX512-BF16) and TDPBF16PS (AMX);
//   - four bytes for TDPBUSD and TDPBSSD (AMX), and VPDPBUSD (AVX512-VNNI
//     zmm, AVX-VNNI ymm), which
//     multiplies unsigned bytes of A by signed bytes of B: i8's A is
//     biased by +128 into u8 and the kernels start from −128·Σₚ op(B)[p][j],
//     so the sums stay exact;
//   - two int16 for VPMADDWD (AVX2 without VNNI): 8-bit values widened,
//     exact where VPMADDUBSW's saturating pair sums are not;
//   - one value widened to float32 (bf16 and f16 on the f32 FMA kernels,
//     and the pure-Go kernel) or to int32 (the pure-Go integer kernel).
//
// Every function takes an isa.Level and a feature set (isa.Feature): the
// kernel is the fastest, by measurement (lowp_choose.go), of those both
// allow on this CPU; the tests run every one.

// LowType is a low-precision input type.
type LowType uint8

const (
	BF16 LowType = iota // bfloat16 bits (uint16), f32 accumulation and output
	F16                 // IEEE binary16 bits (uint16), f32 accumulation and output
	I8                  // int8 A and B, int32 accumulation and output
	U8S8                // uint8 A, int8 B, int32 accumulation and output
)

func (t LowType) String() string {
	return [...]string{"bf16", "f16", "i8", "u8s8"}[t]
}

// Compute units, as bench/peak names them: what a kernel's arithmetic
// runs on. The pure-Go integer kernel names none ("").
const (
	unitFMA        = "fma"
	unitAVX512BF16 = "avx512-bf16"
	unitAVX512VNNI = "avx512-vnni"
	unitAVXVNNI    = "avx-vnni"
	unitAVX2Int8   = "avx2-int8"
	unitAMXBF16    = "amx-bf16"
	unitAMXInt8    = "amx-int8"
)

// LowpKernel returns the name of the micro-kernel the low-precision gemm of
// t runs at lvl with feats, and the unit its arithmetic runs on: "fma" for
// the f32 kernels bf16 and f16 are widened for (the pure-Go one included,
// as for f32 gemm), "" for the pure-Go integer kernel, which is scalar
// integer code on no unit peakbench measures.
func LowpKernel(t LowType, lvl isa.Level, feats isa.Feature) (name, unit string) {
	k := lowpKernelFor(t, lvl, feats)
	return k.name, k.unit
}

// GemmBF16 computes C = op(A)·op(B) for bfloat16 A and B (their bits),
// accumulating in float32: each product of two bf16 is exact in float32,
// so the result is that of an f32 sum of exact products, in some order.
// Shapes and leading dimensions are as Gemm's; C is written without being
// read.
func GemmBF16(lvl isa.Level, feats isa.Feature, transA, transB bool, m, n, k int, a []uint16, lda int, b []uint16, ldb int, c []float32, ldc, threads int) {
	gemmLowp(lowpKernelFor(BF16, lvl, feats), transA, transB, m, n, k, a, lda, b, ldb, c, ldc, threads)
}

// GemmF16 is GemmBF16 for IEEE binary16 A and B.
func GemmF16(lvl isa.Level, feats isa.Feature, transA, transB bool, m, n, k int, a []uint16, lda int, b []uint16, ldb int, c []float32, ldc, threads int) {
	gemmLowp(lowpKernelFor(F16, lvl, feats), transA, transB, m, n, k, a, lda, b, ldb, c, ldc, threads)
}

// GemmI8 computes C = op(A)·op(B) for int8 A and B, exactly in int32 (as
// long as no sum leaves int32's range: k ≤ 2¹⁷ always suffices).
func GemmI8(lvl isa.Level, feats isa.Feature, transA, transB bool, m, n, k int, a []int8, lda int, b []int8, ldb int, c []int32, ldc, threads int) {
	gemmLowp(lowpKernelFor(I8, lvl, feats), transA, transB, m, n, k, a, lda, b, ldb, c, ldc, threads)
}

// GemmU8S8 is GemmI8 for uint8 A (MKL's gemm_s8u8s32, VNNI's form).
func GemmU8S8(lvl isa.Level, feats isa.Feature, transA, transB bool, m, n, k int, a []uint8, lda int, b []int8, ldb int, c []int32, ldc, threads int) {
	gemmLowp(lowpKernelFor(U8S8, lvl, feats), transA, transB, m, n, k, a, lda, b, ldb, c, ldc, threads)
}

// lowpOut is the output element type of a low-precision gemm.
type lowpOut interface{ ~float32 | ~int32 }

// lowpIn is an input element type: bf16/f16 bits, or 8-bit integers.
type lowpIn interface{ ~uint16 | ~uint8 | ~int8 }

// wordFormat is how packing makes 32-bit words of input values.
type wordFormat uint8

const (
	wordBF16ToF32   wordFormat = iota // one bf16, widened to float32 bits
	wordF16ToF32                      // one f16, widened to float32 bits
	wordInt32                         // one 8-bit integer, widened to int32
	wordPair16                        // two 16-bit values: bf16 bits, or 8-bit integers widened to int16
	wordQuad8                         // four bytes as they are
	wordQuad8Biased                   // four int8 + 128: u8 (i8's A on VPDPBUSD)
)

// group is how many k values one word holds.
func (f wordFormat) group() int {
	switch f {
	case wordPair16:
		return 2
	case wordQuad8, wordQuad8Biased:
		return 4
	}
	return 1
}

// lowpMicro computes one mr×nr tile from kg steps of packed words: c = init
// + a·b, or c += that when add; init has nr values (nil: zeros).
type lowpMicro[C lowpOut] func(kg int, a, b []uint32, c []C, ldc int, init []C, add bool)

// lowpStrip computes tiles full mr×nr tiles down a column of C, A's
// panels one after another in a (kg·mr words each), like lowpMicro's
// without init; meanwhile it fetches next (the panel of B to come, or
// nil) into the cache.
type lowpStrip[C lowpOut] func(kg, tiles int, a, b []uint32, c []C, ldc int, add bool, next []uint32)

// lowpStripRaw is lowpStrip reading A as it is stored, row-major with k
// contiguous: tiles panels of mr rows of lda bytes from a, each row kg
// words of raw groups (rawWords), in whole chunks of kAlign words. A
// needs no packing then.
type lowpStripRaw[C lowpOut] func(kg, tiles int, a []byte, lda int, b []uint32, c []C, ldc int, add bool, next []uint32)

// lowpKernel is a micro-kernel with its packing formats and block sizes.
type lowpKernel[C lowpOut] struct {
	name, unit string
	mr, nr     int
	fmtA, fmtB wordFormat
	kc, mc, nc int // kc in words (k values / group), mc, nc in rows and columns
	fn         lowpMicro[C]
	strip      lowpStrip[C]    // nil: fn, tile by tile
	stripRaw   lowpStripRaw[C] // nil: A is always packed
	biasedA    bool            // A packed +128: the kernel starts from −128·(column sums of B)
	kAlign     int             // slices of kg words are padded to a multiple of this (AMX: 16)
	aChunked   bool            // A's panels in AMX's layout (chunkRows)
	vecPack    bool            // packing may use AVX-512 (the kernel runs only where the CPU has it)
}

// lowpKernelFor picks the kernel for t at lvl with feats (both clamped to
// this CPU): the only candidate, or the fastest by measurement (lowp_choose.go).
func lowpKernelFor(t LowType, lvl isa.Level, feats isa.Feature) lowpChoice {
	lvl = lvl.Clamp()
	feats = feats.For(lvl)
	return chooseLowp(lowpKey{t, lvl, feats}, func() []lowpChoice { return lowpCandidates(t, lvl, feats) })
}

// lowpCandidates lists the kernels lowpKernelFor chooses from: the
// assembly ones for lvl and feats, or the pure-Go one. lvl and feats must
// be clamped to this CPU already (isa.Feature.For): a kernel of an
// extension the CPU lacks is listed all the same, and dies of SIGILL.
func lowpCandidates(t LowType, lvl isa.Level, feats isa.Feature) []lowpChoice {
	if cs := asmLowpCandidates(t, lvl, feats); len(cs) > 0 {
		return cs
	}
	return []lowpChoice{genericLowpKernel(t)}
}

// lowpChoice is the chosen kernel: f32 for bf16 and f16, s32 for the
// integer types.
type lowpChoice struct {
	name, unit string
	f32        *lowpKernel[float32]
	s32        *lowpKernel[int32]
}

// genericLowpKernel is the pure-Go kernel for t: the 3×3 f32 kernel on
// widened bf16 and f16, the 3×3 int32 one on widened integers.
func genericLowpKernel(t LowType) lowpChoice {
	switch t {
	case BF16, F16:
		f := wordBF16ToF32
		if t == F16 {
			f = wordF16ToF32
		}
		k := &lowpKernel[float32]{name: "sgemm3x3Generic", unit: unitFMA, mr: 3, nr: 3, fmtA: f, fmtB: f,
			kc: 256, mc: 96, nc: 2048, fn: genericF32Micro}
		return lowpChoice{name: k.name, unit: k.unit, f32: k}
	}
	k := &lowpKernel[int32]{name: "i32gemm3x3Generic", mr: 3, nr: 3, fmtA: wordInt32, fmtB: wordInt32,
		kc: 256, mc: 96, nc: 2048, fn: kernelI32x3x3Generic}
	return lowpChoice{name: k.name, s32: k}
}

// widenedF32Kernel wraps an f32 micro-kernel (alpha 1, beta 0 or 1) for
// bf16 or f16 widened while packing; with vecPack (a kernel of
// isa.AVX512) by the AVX-512 packers.
func widenedF32Kernel(t LowType, k microKernel[float32], unit string, vecPack bool) lowpChoice {
	f := wordBF16ToF32
	if t == F16 {
		f = wordF16ToF32
	}
	fn := k.fn
	mr, nr := k.mr, k.nr
	lk := &lowpKernel[float32]{
		name: k.name, unit: unit, mr: mr, nr: nr, fmtA: f, fmtB: f,
		kc: k.kc, mc: k.mc, nc: k.nc, vecPack: vecPack,
		fn: func(kg int, a, b []uint32, c []float32, ldc int, _ []float32, add bool) {
			beta := float32(0)
			if add {
				beta = 1
			}
			fn(kg, wordsAsF32(a), wordsAsF32(b), 1, beta, c, ldc)
		},
	}
	return lowpChoice{name: lk.name, unit: unit, f32: lk}
}

func genericF32Micro(kg int, a, b []uint32, c []float32, ldc int, _ []float32, add bool) {
	beta := float32(0)
	if add {
		beta = 1
	}
	kernel3x3Generic(kg, wordsAsF32(a), wordsAsF32(b), 1, beta, c, ldc)
}

// kernelI32x3x3Generic is the pure-Go integer micro-kernel: 3×3 int32
// accumulators over int32 words (8-bit values widened), exact.
func kernelI32x3x3Generic(kg int, a, b []uint32, c []int32, ldc int, init []int32, add bool) {
	var c00, c01, c02, c10, c11, c12, c20, c21, c22 int32
	if init != nil {
		c00, c01, c02 = init[0], init[1], init[2]
		c10, c11, c12 = c00, c01, c02
		c20, c21, c22 = c00, c01, c02
	}
	a, b = a[:3*kg], b[:3*kg]
	for p := 0; p < kg; p++ {
		ap, bp := a[3*p:3*p+3], b[3*p:3*p+3]
		a0, a1, a2 := int32(ap[0]), int32(ap[1]), int32(ap[2])
		b0, b1, b2 := int32(bp[0]), int32(bp[1]), int32(bp[2])
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
	}
	r0, r1, r2 := c[0:3], c[ldc:ldc+3], c[2*ldc:2*ldc+3]
	if add {
		c00, c01, c02 = c00+r0[0], c01+r0[1], c02+r0[2]
		c10, c11, c12 = c10+r1[0], c11+r1[1], c12+r1[2]
		c20, c21, c22 = c20+r2[0], c21+r2[1], c22+r2[2]
	}
	r0[0], r0[1], r0[2] = c00, c01, c02
	r1[0], r1[1], r1[2] = c10, c11, c12
	r2[0], r2[1], r2[2] = c20, c21, c22
}
