//go:build !purego

#include "textflag.h"

// The low-precision unit kernels (lowp.go): each runs `rounds` rounds of
// 12 independent instructions of its unit (6 instruction groups for
// avx2-int8) on register accumulators loaded from and stored back to acc,
// like the FMA kernels of kernels_amd64.s. The Go assembler lacks
// VDPBF16PS, VFMADD213PH and the VEX form of VPDPBUSD: they are spelled as
// bytes (encodings from GNU as 2.40), each macro named after its
// instruction, with the instruction in Go's operand order above it.


// VDPBF16PS Z13, Z12, Z0: Z0 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z0 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xc5

// VDPBF16PS Z13, Z12, Z1: Z1 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z1 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xcd

// VDPBF16PS Z13, Z12, Z2: Z2 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z2 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xd5

// VDPBF16PS Z13, Z12, Z3: Z3 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z3 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xdd

// VDPBF16PS Z13, Z12, Z4: Z4 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z4 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xe5

// VDPBF16PS Z13, Z12, Z5: Z5 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z5 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xed

// VDPBF16PS Z13, Z12, Z6: Z6 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z6 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xf5

// VDPBF16PS Z13, Z12, Z7: Z7 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z7 BYTE $0x62; BYTE $0xd2; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xfd

// VDPBF16PS Z13, Z12, Z8: Z8 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z8 BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xc5

// VDPBF16PS Z13, Z12, Z9: Z9 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z9 BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xcd

// VDPBF16PS Z13, Z12, Z10: Z10 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z10 BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xd5

// VDPBF16PS Z13, Z12, Z11: Z11 += pairwise bf16 dot products of Z12 and Z13
#define VDPBF16PS_Z11 BYTE $0x62; BYTE $0x52; BYTE $0x1e; BYTE $0x48; BYTE $0x52; BYTE $0xdd

// VFMADD213PH Z13, Z12, Z0: Z0 = Z12·Z0 + Z13 in f16
#define VFMADD213PH_Z0 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xc5

// VFMADD213PH Z13, Z12, Z1: Z1 = Z12·Z1 + Z13 in f16
#define VFMADD213PH_Z1 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xcd

// VFMADD213PH Z13, Z12, Z2: Z2 = Z12·Z2 + Z13 in f16
#define VFMADD213PH_Z2 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xd5

// VFMADD213PH Z13, Z12, Z3: Z3 = Z12·Z3 + Z13 in f16
#define VFMADD213PH_Z3 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xdd

// VFMADD213PH Z13, Z12, Z4: Z4 = Z12·Z4 + Z13 in f16
#define VFMADD213PH_Z4 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xe5

// VFMADD213PH Z13, Z12, Z5: Z5 = Z12·Z5 + Z13 in f16
#define VFMADD213PH_Z5 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xed

// VFMADD213PH Z13, Z12, Z6: Z6 = Z12·Z6 + Z13 in f16
#define VFMADD213PH_Z6 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xf5

// VFMADD213PH Z13, Z12, Z7: Z7 = Z12·Z7 + Z13 in f16
#define VFMADD213PH_Z7 BYTE $0x62; BYTE $0xd6; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xfd

// VFMADD213PH Z13, Z12, Z8: Z8 = Z12·Z8 + Z13 in f16
#define VFMADD213PH_Z8 BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xc5

// VFMADD213PH Z13, Z12, Z9: Z9 = Z12·Z9 + Z13 in f16
#define VFMADD213PH_Z9 BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xcd

// VFMADD213PH Z13, Z12, Z10: Z10 = Z12·Z10 + Z13 in f16
#define VFMADD213PH_Z10 BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xd5

// VFMADD213PH Z13, Z12, Z11: Z11 = Z12·Z11 + Z13 in f16
#define VFMADD213PH_Z11 BYTE $0x62; BYTE $0x56; BYTE $0x1d; BYTE $0x48; BYTE $0xa8; BYTE $0xdd

// VPDPBUSD Y13, Y12, Y0, VEX-encoded (AVX-VNNI): Y0 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y0 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xc5

// VPDPBUSD Y13, Y12, Y1, VEX-encoded (AVX-VNNI): Y1 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y1 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xcd

// VPDPBUSD Y13, Y12, Y2, VEX-encoded (AVX-VNNI): Y2 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y2 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xd5

// VPDPBUSD Y13, Y12, Y3, VEX-encoded (AVX-VNNI): Y3 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y3 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xdd

// VPDPBUSD Y13, Y12, Y4, VEX-encoded (AVX-VNNI): Y4 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y4 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xe5

// VPDPBUSD Y13, Y12, Y5, VEX-encoded (AVX-VNNI): Y5 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y5 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xed

// VPDPBUSD Y13, Y12, Y6, VEX-encoded (AVX-VNNI): Y6 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y6 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xf5

// VPDPBUSD Y13, Y12, Y7, VEX-encoded (AVX-VNNI): Y7 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y7 BYTE $0xc4; BYTE $0xc2; BYTE $0x1d; BYTE $0x50; BYTE $0xfd

// VPDPBUSD Y13, Y12, Y8, VEX-encoded (AVX-VNNI): Y8 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y8 BYTE $0xc4; BYTE $0x42; BYTE $0x1d; BYTE $0x50; BYTE $0xc5

// VPDPBUSD Y13, Y12, Y9, VEX-encoded (AVX-VNNI): Y9 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y9 BYTE $0xc4; BYTE $0x42; BYTE $0x1d; BYTE $0x50; BYTE $0xcd

// VPDPBUSD Y13, Y12, Y10, VEX-encoded (AVX-VNNI): Y10 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y10 BYTE $0xc4; BYTE $0x42; BYTE $0x1d; BYTE $0x50; BYTE $0xd5

// VPDPBUSD Y13, Y12, Y11, VEX-encoded (AVX-VNNI): Y11 += u8 quads of Y12 · s8 quads of Y13
#define VPDPBUSD_VEX_Y11 BYTE $0xc4; BYTE $0x42; BYTE $0x1d; BYTE $0x50; BYTE $0xdd

// func dpbf16Zmm(acc *[lowpAccs * 16]float32, a, b uint32, rounds int)
// Z0–Z11 accumulate, Z12 and Z13 hold a bf16 pair each in every lane:
// each round is 12 independent VDPBF16PS (32 bf16 products each).
TEXT ·dpbf16Zmm(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS a+8(FP), Z12 // the 32 bits in every lane
	VBROADCASTSS b+12(FP), Z13 // the 32 bits in every lane
	MOVQ rounds+16(FP), CX
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 512(DI), Z8
	VMOVUPS 576(DI), Z9
	VMOVUPS 640(DI), Z10
	VMOVUPS 704(DI), Z11
	TESTQ CX, CX
	JLE dpbf16Zmmstore

dpbf16Zmmloop:
	VDPBF16PS_Z0
	VDPBF16PS_Z1
	VDPBF16PS_Z2
	VDPBF16PS_Z3
	VDPBF16PS_Z4
	VDPBF16PS_Z5
	VDPBF16PS_Z6
	VDPBF16PS_Z7
	VDPBF16PS_Z8
	VDPBF16PS_Z9
	VDPBF16PS_Z10
	VDPBF16PS_Z11
	DECQ CX
	JNZ dpbf16Zmmloop

dpbf16Zmmstore:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 512(DI)
	VMOVUPS Z9, 576(DI)
	VMOVUPS Z10, 640(DI)
	VMOVUPS Z11, 704(DI)
	VZEROUPPER
	RET


// func fmaPHZmm(acc *[lowpAccs * 32]uint16, m, c uint32, rounds int)
// Z0–Z11 are f16 accumulators, Z12 holds m and Z13 c (an f16 pair each):
// each round is 12 independent VFMADD213PH acc = m·acc + c (32 f16 lanes each).
TEXT ·fmaPHZmm(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS m+8(FP), Z12 // the 32 bits in every lane
	VBROADCASTSS c+12(FP), Z13 // the 32 bits in every lane
	MOVQ rounds+16(FP), CX
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 512(DI), Z8
	VMOVUPS 576(DI), Z9
	VMOVUPS 640(DI), Z10
	VMOVUPS 704(DI), Z11
	TESTQ CX, CX
	JLE fmaPHZmmstore

fmaPHZmmloop:
	VFMADD213PH_Z0
	VFMADD213PH_Z1
	VFMADD213PH_Z2
	VFMADD213PH_Z3
	VFMADD213PH_Z4
	VFMADD213PH_Z5
	VFMADD213PH_Z6
	VFMADD213PH_Z7
	VFMADD213PH_Z8
	VFMADD213PH_Z9
	VFMADD213PH_Z10
	VFMADD213PH_Z11
	DECQ CX
	JNZ fmaPHZmmloop

fmaPHZmmstore:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 512(DI)
	VMOVUPS Z9, 576(DI)
	VMOVUPS Z10, 640(DI)
	VMOVUPS Z11, 704(DI)
	VZEROUPPER
	RET


// func dpbusdZmm(acc *[lowpAccs * 16]int32, a, b uint32, rounds int)
// Z0–Z11 accumulate s32, Z12 holds u8 quads and Z13 s8 quads: each round
// is 12 independent VPDPBUSD (EVEX, 64 u8×s8 products each).
TEXT ·dpbusdZmm(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS a+8(FP), Z12 // the 32 bits in every lane
	VBROADCASTSS b+12(FP), Z13 // the 32 bits in every lane
	MOVQ rounds+16(FP), CX
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 512(DI), Z8
	VMOVUPS 576(DI), Z9
	VMOVUPS 640(DI), Z10
	VMOVUPS 704(DI), Z11
	TESTQ CX, CX
	JLE dpbusdZmmstore

dpbusdZmmloop:
	VPDPBUSD Z13, Z12, Z0
	VPDPBUSD Z13, Z12, Z1
	VPDPBUSD Z13, Z12, Z2
	VPDPBUSD Z13, Z12, Z3
	VPDPBUSD Z13, Z12, Z4
	VPDPBUSD Z13, Z12, Z5
	VPDPBUSD Z13, Z12, Z6
	VPDPBUSD Z13, Z12, Z7
	VPDPBUSD Z13, Z12, Z8
	VPDPBUSD Z13, Z12, Z9
	VPDPBUSD Z13, Z12, Z10
	VPDPBUSD Z13, Z12, Z11
	DECQ CX
	JNZ dpbusdZmmloop

dpbusdZmmstore:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 512(DI)
	VMOVUPS Z9, 576(DI)
	VMOVUPS Z10, 640(DI)
	VMOVUPS Z11, 704(DI)
	VZEROUPPER
	RET


// func dpbusdYmmVEX(acc *[lowpAccs * 8]int32, a, b uint32, rounds int)
// Y0–Y11 accumulate s32, Y12 holds u8 quads and Y13 s8 quads: each round
// is 12 independent VEX-encoded VPDPBUSD (AVX-VNNI, 32 u8×s8 products each).
TEXT ·dpbusdYmmVEX(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS a+8(FP), Y12 // the 32 bits in every lane
	VBROADCASTSS b+12(FP), Y13 // the 32 bits in every lane
	MOVQ rounds+16(FP), CX
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	VMOVUPS 256(DI), Y8
	VMOVUPS 288(DI), Y9
	VMOVUPS 320(DI), Y10
	VMOVUPS 352(DI), Y11
	TESTQ CX, CX
	JLE dpbusdYmmVEXstore

dpbusdYmmVEXloop:
	VPDPBUSD_VEX_Y0
	VPDPBUSD_VEX_Y1
	VPDPBUSD_VEX_Y2
	VPDPBUSD_VEX_Y3
	VPDPBUSD_VEX_Y4
	VPDPBUSD_VEX_Y5
	VPDPBUSD_VEX_Y6
	VPDPBUSD_VEX_Y7
	VPDPBUSD_VEX_Y8
	VPDPBUSD_VEX_Y9
	VPDPBUSD_VEX_Y10
	VPDPBUSD_VEX_Y11
	DECQ CX
	JNZ dpbusdYmmVEXloop

dpbusdYmmVEXstore:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VMOVUPS Y8, 256(DI)
	VMOVUPS Y9, 288(DI)
	VMOVUPS Y10, 320(DI)
	VMOVUPS Y11, 352(DI)
	VZEROUPPER
	RET


// func int8GroupsYmm(acc *[int8Groups * 8]int32, a, b uint32, rounds int)
// Y0–Y5 accumulate s32, Y12 holds u8 and Y13 s8 bytes, Y14 sixteen-bit
// ones: each round is 6 independent groups VPMADDUBSW (32 u8×s8 products
// into 16 s16 pair sums), VPMADDWD by ones (into 8 s32), VPADDD into an
// accumulator: the int8 dot product of AVX2, where there is no VNNI.
TEXT ·int8GroupsYmm(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS a+8(FP), Y12 // the 32 bits in every lane
	VBROADCASTSS b+12(FP), Y13 // the 32 bits in every lane
	MOVQ rounds+16(FP), CX
	MOVQ $0x0001000100010001, AX
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	VMOVDQU 128(DI), Y4
	VMOVDQU 160(DI), Y5
	TESTQ CX, CX
	JLE int8store

int8loop:
	VPMADDUBSW Y13, Y12, Y6
	VPMADDUBSW Y13, Y12, Y7
	VPMADDUBSW Y13, Y12, Y8
	VPMADDUBSW Y13, Y12, Y9
	VPMADDUBSW Y13, Y12, Y10
	VPMADDUBSW Y13, Y12, Y11
	VPMADDWD Y14, Y6, Y6
	VPMADDWD Y14, Y7, Y7
	VPMADDWD Y14, Y8, Y8
	VPMADDWD Y14, Y9, Y9
	VPMADDWD Y14, Y10, Y10
	VPMADDWD Y14, Y11, Y11
	VPADDD Y6, Y0, Y0
	VPADDD Y7, Y1, Y1
	VPADDD Y8, Y2, Y2
	VPADDD Y9, Y3, Y3
	VPADDD Y10, Y4, Y4
	VPADDD Y11, Y5, Y5
	DECQ CX
	JNZ int8loop

int8store:
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VZEROUPPER
	RET

