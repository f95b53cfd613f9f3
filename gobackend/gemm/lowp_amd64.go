//go:build !purego

package gemm

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// asmLowpCandidates lists the assembly kernels for t at lvl with feats
// (both already clamped to this CPU), those of the dedicated instructions
// first; lowpKernelFor measures them and takes the fastest:
//
//   - AMX (TDPBF16PS, TDPBUSD, TDPBSSD: 32×32 tiles) where the CPU has it
//     and Linux grants the tile state (isa.AMXBF16, isa.AMXInt8);
//   - bf16: VDPBF16PS (14×32 zmm) with AVX512-BF16, and the f32 FMA kernel
//     of lvl on bf16 widened while packing (a shift: exact);
//   - f16: the f32 FMA kernel on f16 widened while packing (exact; each
//     value is converted once per packing, so F16C in the kernel would
//     gain nothing);
//   - i8, u8s8: VPDPBUSD, 14×32 zmm with AVX512-VNNI, 6×16 ymm with
//     AVX-VNNI, and VPMADDWD on 8-bit values widened to int16 (6×16 ymm,
//     at AVX512 too: the CPUs with AVX-512 and no VNNI, Skylake-SP and its
//     kin, do not get a zmm kernel of their own).
func asmLowpCandidates(t LowType, lvl isa.Level, feats isa.Feature) []lowpChoice {
	if lvl < isa.AVX2 {
		return nil
	}
	var cs []lowpChoice
	switch {
	case t == BF16 && feats.Has(isa.AMXBF16):
		k := lowpAMX[float32]("bf16gemm32x32AMX", unitAMXBF16, wordPair16, bf16gemm32x32AMX)
		cs = append(cs, lowpChoice{name: k.name, unit: k.unit, f32: k})
	case t == I8 && feats.Has(isa.AMXInt8):
		k := lowpAMX[int32]("s8s8gemm32x32AMX", unitAMXInt8, wordQuad8, s8s8gemm32x32AMX)
		cs = append(cs, lowpChoice{name: k.name, unit: k.unit, s32: k})
	case t == U8S8 && feats.Has(isa.AMXInt8):
		k := lowpAMX[int32]("u8s8gemm32x32AMX", unitAMXInt8, wordQuad8, u8s8gemm32x32AMX)
		cs = append(cs, lowpChoice{name: k.name, unit: k.unit, s32: k})
	}
	switch t {
	case BF16:
		if feats.Has(isa.AVX512BF16) {
			k := lowpAsm[float32]("bf16gemm14x32AVX512BF16", unitAVX512BF16, 14, 32, wordPair16, wordPair16, bf16gemm14x32AVX512BF16)
			cs = append(cs, lowpChoice{name: k.name, unit: k.unit, f32: k})
		}
		return append(cs, widenedF32Kernel(t, kernelFor[float32](lvl), unitFMA, lvl >= isa.AVX512))
	case F16:
		return []lowpChoice{widenedF32Kernel(t, kernelFor[float32](lvl), unitFMA, lvl >= isa.AVX512)}
	}
	var ks []*lowpKernel[int32]
	if feats.Has(isa.AVX512VNNI) {
		ks = append(ks, lowpAsm[int32]("u8s8gemm14x32AVX512VNNI", unitAVX512VNNI, 14, 32, wordQuad8, wordQuad8, u8s8gemm14x32AVX512VNNI))
	}
	if feats.Has(isa.AVXVNNI) {
		ks = append(ks, lowpAsm[int32]("u8s8gemm6x16AVXVNNI", unitAVXVNNI, 6, 16, wordQuad8, wordQuad8, u8s8gemm6x16AVXVNNI))
	}
	for _, k := range ks {
		if t == I8 {
			k.fmtA, k.biasedA = wordQuad8Biased, true
		}
		cs = append(cs, lowpChoice{name: k.name, unit: k.unit, s32: k})
	}
	k := lowpAsm[int32]("s16gemm6x16AVX2", unitAVX2Int8, 6, 16, wordPair16, wordPair16, s16gemm6x16AVX2)
	return append(cs, lowpChoice{name: k.name, unit: k.unit, s32: k})
}

type lowpAsmFunc func(k int, a, b, c *uint32, ldc int, init *uint32, add int)

// zeros is the init of the kernels that start from zero: nr ≤ 32 words.
var zeros [32]uint32

// lowpAsm wraps an assembly kernel; the closure checks the bounds the
// assembly relies on. Block sizes as blocking's for 4-byte words: kc is
// in words (pairs or quads of k values).
func lowpAsm[C lowpOut](name, unit string, mr, nr int, fa, fb wordFormat, fn lowpAsmFunc) *lowpKernel[C] {
	kcMin := kcMin256
	if mr == 14 {
		kcMin = kcMin512
	}
	// The 14-row kernels are the zmm ones, which run only at isa.AVX512.
	k := &lowpKernel[C]{name: name, unit: unit, mr: mr, nr: nr, fmtA: fa, fmtB: fb, vecPack: mr == 14}
	k.kc, k.mc, k.nc = blocking(mr, nr, 4, kcMin)
	k.mc = max(1, k.mc/mr) * mr
	k.nc = max(1, k.nc/nr) * nr
	k.fn = func(kg int, a, b []uint32, c []C, ldc int, init []C, add bool) {
		_, _, _ = a[mr*kg-1], b[nr*kg-1], c[(mr-1)*ldc+nr-1]
		ip := &zeros[0]
		if init != nil {
			_ = init[nr-1]
			ip = (*uint32)(unsafe.Pointer(&init[0]))
		}
		addi := 0
		if add {
			addi = 1
		}
		fn(kg, &a[0], &b[0], (*uint32)(unsafe.Pointer(&c[0])), ldc, ip, addi)
	}
	return k
}

type amxFunc func(cfg *byte, k int, a *byte, astride, astep, apanel int, b, c *uint32, ldc int, add int, tiles int, pf, pfend *uint32)

// amxConfig is the AMX kernels' tile configuration (LDTILECFG's 64
// bytes): palette 1, tiles 0–7 each 16 rows of 64 bytes.
var amxConfig = func() *[64]byte {
	var c [64]byte
	c[0] = 1 // palette
	for t := 0; t < 8; t++ {
		c[16+2*t] = 64 // bytes per row (colsb, little-endian uint16)
		c[48+t] = 16   // rows
	}
	return &c
}()

// lowpAMX wraps an AMX kernel: 32×32, A packed in chunks (chunkRows),
// slices padded to whole chunks of 16 words, or A read as it is stored
// (stripRaw).
func lowpAMX[C lowpOut](name, unit string, f wordFormat, fn amxFunc) *lowpKernel[C] {
	const mr, nr = 32, 32
	k := &lowpKernel[C]{name: name, unit: unit, mr: mr, nr: nr, fmtA: f, fmtB: f, kAlign: amxChunk, aChunked: true, vecPack: true}
	k.kc, k.mc, k.nc = blocking(mr, nr, 4, kcMin512)
	k.kc = roundUp(k.kc, amxChunk)
	// A's block in a quarter of L2, not blocking's half: B's panels and
	// C stream through L2 beside it. With 2 MiB of L2 (kc = 512 words, so
	// mc = 256 rather than 512) the whole GEMM ran 3–11% faster at
	// n = 1024 and 2048, bf16 and i8, one thread (alternated, best of 9).
	k.mc = max(mr, isa.Caches().L2/4/(k.kc*4)/mr*mr)
	check := func(kg, tiles int, b []uint32, c []C, ldc int) {
		if kg%amxChunk != 0 || tiles < 1 {
			panic("gemm: " + name + ": depth not in whole chunks, or no tile")
		}
		_, _ = b[nr*kg-1], c[(tiles*mr-1)*ldc+nr-1]
	}
	k.strip = func(kg, tiles int, a, b []uint32, c []C, ldc int, add bool, next []uint32) {
		check(kg, tiles, b, c, ldc)
		_ = a[tiles*mr*kg-1]
		pf, pfend := prefetchRange(b, next)
		// Panel t's row i of chunk s at word (t·kg/16 + s)·mr·16 + i·16.
		fn(&amxConfig[0], kg/amxChunk, (*byte)(unsafe.Pointer(&a[0])), 4*amxChunk, 4*amxChunk*mr, 4*mr*kg,
			&b[0], (*uint32)(unsafe.Pointer(&c[0])), ldc, boolInt(add), tiles, pf, pfend)
	}
	k.stripRaw = func(kg, tiles int, a []byte, lda int, b []uint32, c []C, ldc int, add bool, next []uint32) {
		check(kg, tiles, b, c, ldc)
		_ = a[(tiles*mr-1)*lda+4*kg-1]
		pf, pfend := prefetchRange(b, next)
		fn(&amxConfig[0], kg/amxChunk, &a[0], lda, 4*amxChunk, mr*lda,
			&b[0], (*uint32)(unsafe.Pointer(&c[0])), ldc, boolInt(add), tiles, pf, pfend)
	}
	k.fn = func(kg int, a, b []uint32, c []C, ldc int, init []C, add bool) {
		if init != nil {
			panic("gemm: " + name + ": an init")
		}
		k.strip(kg, 1, a, b, c, ldc, add, nil)
	}
	return k
}

// prefetchRange is the first and last-but-one word of next, the range the
// AMX kernels prefetch (b's first word twice for none: an empty range).
// The end is a pointer into next, so that next stays alive.
func prefetchRange(b, next []uint32) (pf, pfend *uint32) {
	if len(next) == 0 {
		return &b[0], &b[0]
	}
	return &next[0], &next[len(next)-1]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// packStepsVec packs the steps p < steps of lines·16/16 whole groups of 16
// lines of src (k down its rows: packLines's layout) with the AVX-512
// packers, and returns how many lines it packed. f is a raw format
// (rawWords); the caller has checked src's and dst's bounds.
func packStepsVec[S lowpIn](src []S, ld, steps int, dst []uint32, w, lines int, f wordFormat) int {
	vecs := lines / 16
	if vecs == 0 || steps == 0 {
		return 0
	}
	p := (*byte)(unsafe.Pointer(&src[0]))
	x := uint32(0)
	if f == wordQuad8Biased {
		x = 0x80808080
	}
	if f.group() == 2 {
		lowpPackPairsAVX512(p, ld, steps, &dst[0], w, vecs, x)
	} else {
		lowpPackQuadsAVX512(p, ld, steps, &dst[0], w, vecs, x)
	}
	return 16 * vecs
}

// biasCorrectionAsm is biasCorrection by lowpBias16AVX2 or lowpBias32AVX2,
// where the CPU has AVX2 and nr is 16 or 32 (the VNNI kernels' panels);
// false where it did nothing.
func biasCorrectionAsm(panel []uint32, nr, kg int, init []int32) bool {
	if kg < 1 || isa.Best < isa.AVX2 || nr != 16 && nr != 32 {
		return false
	}
	_, _ = panel[nr*kg-1], init[nr-1]
	if nr == 16 {
		lowpBias16AVX2(&panel[0], kg, &init[0])
	} else {
		lowpBias32AVX2(&panel[0], kg, &init[0])
	}
	return true
}

// packRowsVec packs the first 16·⌊words/16⌋ words of lines (≤ w) lines of
// src whose k values are contiguous (line l at src[l*ld:]) with
// lowpPackRowsAVX512, 16 lines at a time, words of raw format f
// (rawWords), and returns how many words of each line it packed; the
// lines past lines, in a group of 16 that has some, get zeros. For kernels
// that run only where the CPU has AVX-512; the caller has checked src's
// and dst's bounds, and cleared the lines past lines.
func packRowsVec[S lowpIn](src []S, ld, lines, w, words int, dst []uint32, f wordFormat) int {
	blocks := words / 16
	if blocks == 0 || lines == 0 {
		return 0
	}
	x := uint32(0)
	if f == wordQuad8Biased {
		x = 0x80808080
	}
	var z S
	for l := 0; l < lines; l += 16 {
		p := (*byte)(unsafe.Pointer(&src[l*ld]))
		lowpPackRowsAVX512(p, ld*int(unsafe.Sizeof(z)), blocks, &dst[l], w, min(16, w-l), min(16, lines-l), x)
	}
	return 16 * blocks
}

// widenRowsVec widens and packs the first 16·⌊kb/16⌋ values of lines (≤ w)
// lines of src whose k values are contiguous, bf16 or f16 (f:
// wordBF16ToF32, wordF16ToF32), with lowpPackRows{BF16,F16}AVX512, 16
// lines at a time, and returns how many values of each line it packed (0
// for other formats). As packRowsVec: AVX-512 kernels only, the bounds
// checked by the caller.
func widenRowsVec[S lowpIn](src []S, ld, lines, w, kb int, dst []uint32, f wordFormat) int {
	var z S
	blocks := kb / 16
	if blocks == 0 || lines == 0 || unsafe.Sizeof(z) != 2 || f != wordF16ToF32 && f != wordBF16ToF32 {
		return 0
	}
	for l := 0; l < lines; l += 16 {
		p := (*byte)(unsafe.Pointer(&src[l*ld]))
		n, ls := min(16, w-l), min(16, lines-l)
		if f == wordF16ToF32 {
			lowpPackRowsF16AVX512(p, 2*ld, blocks, &dst[l], w, n, ls)
		} else {
			lowpPackRowsBF16AVX512(p, 2*ld, blocks, &dst[l], w, n, ls)
		}
	}
	return 16 * blocks
}

// widenStepsVec widens the first 16·⌊lines/16⌋ lines of the kb steps of
// src (k down its rows: dst[p*w+l] from src[p*ld+l]), bf16 or f16, with
// lowpWidenSteps{BF16,F16}AVX512, and returns how many lines it widened.
func widenStepsVec[S lowpIn](src []S, ld, kb int, dst []uint32, w, lines int, f wordFormat) int {
	var z S
	vecs := lines / 16
	if vecs == 0 || kb == 0 || unsafe.Sizeof(z) != 2 {
		return 0
	}
	p := (*byte)(unsafe.Pointer(&src[0]))
	switch f {
	case wordF16ToF32:
		lowpWidenStepsF16AVX512(p, ld, kb, &dst[0], w, vecs)
	case wordBF16ToF32:
		lowpWidenStepsBF16AVX512(p, ld, kb, &dst[0], w, vecs)
	default:
		return 0
	}
	return 16 * vecs
}
