//go:build !purego

#include "textflag.h"

// The AMX unit kernels (lowp_amx.go). One function holds the whole tile
// session, LDTILECFG … TILERELEASE: the tile state belongs to the thread,
// and Go never preempts a goroutine inside assembly, so nothing else runs
// on this thread while the tiles are configured (the caller is locked to
// its thread as well). The Go assembler has no AMX mnemonics: each
// instruction is spelled as bytes (encodings from GNU as 2.40), its macro
// named after it, the instruction in Go's operand order above it. The
// registers are fixed by the encodings: DI the configuration, SI A, R8 B,
// R9 C, DX the row stride (64 bytes).


// LDTILECFG (DI): the tile configuration, a 64-byte block
#define LDTILECFG_DI BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0x07

// TILELOADD (SI)(DX*1), TMM6: A, rows DX bytes apart
#define TILELOADD_SI_T6 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x34; BYTE $0x16

// TILELOADD (R8)(DX*1), TMM7: B
#define TILELOADD_R8_T7 BYTE $0xc4; BYTE $0xc2; BYTE $0x7b; BYTE $0x4b; BYTE $0x3c; BYTE $0x10

// TILEZERO TMM0
#define TILEZERO_T0 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc0

// TILEZERO TMM1
#define TILEZERO_T1 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc8

// TILEZERO TMM2
#define TILEZERO_T2 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd0

// TILEZERO TMM3
#define TILEZERO_T3 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd8

// TILEZERO TMM4
#define TILEZERO_T4 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xe0

// TILEZERO TMM5
#define TILEZERO_T5 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xe8

// TDPBF16PS TMM7, TMM6, TMM0: TMM0 += TMM6 · TMM7 (bf16 pairs into f32)
#define TDPBF16PS_T0 BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xc6

// TDPBF16PS TMM7, TMM6, TMM1: TMM1 += TMM6 · TMM7 (bf16 pairs into f32)
#define TDPBF16PS_T1 BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xce

// TDPBF16PS TMM7, TMM6, TMM2: TMM2 += TMM6 · TMM7 (bf16 pairs into f32)
#define TDPBF16PS_T2 BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xd6

// TDPBF16PS TMM7, TMM6, TMM3: TMM3 += TMM6 · TMM7 (bf16 pairs into f32)
#define TDPBF16PS_T3 BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xde

// TDPBF16PS TMM7, TMM6, TMM4: TMM4 += TMM6 · TMM7 (bf16 pairs into f32)
#define TDPBF16PS_T4 BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xe6

// TDPBF16PS TMM7, TMM6, TMM5: TMM5 += TMM6 · TMM7 (bf16 pairs into f32)
#define TDPBF16PS_T5 BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xee

// TDPFP16PS TMM7, TMM6, TMM0: TMM0 += TMM6 · TMM7 (f16 pairs into f32)
#define TDPFP16PS_T0 BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5c; BYTE $0xc6

// TDPFP16PS TMM7, TMM6, TMM1: TMM1 += TMM6 · TMM7 (f16 pairs into f32)
#define TDPFP16PS_T1 BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5c; BYTE $0xce

// TDPFP16PS TMM7, TMM6, TMM2: TMM2 += TMM6 · TMM7 (f16 pairs into f32)
#define TDPFP16PS_T2 BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5c; BYTE $0xd6

// TDPFP16PS TMM7, TMM6, TMM3: TMM3 += TMM6 · TMM7 (f16 pairs into f32)
#define TDPFP16PS_T3 BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5c; BYTE $0xde

// TDPFP16PS TMM7, TMM6, TMM4: TMM4 += TMM6 · TMM7 (f16 pairs into f32)
#define TDPFP16PS_T4 BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5c; BYTE $0xe6

// TDPFP16PS TMM7, TMM6, TMM5: TMM5 += TMM6 · TMM7 (f16 pairs into f32)
#define TDPFP16PS_T5 BYTE $0xc4; BYTE $0xe2; BYTE $0x43; BYTE $0x5c; BYTE $0xee

// TDPBUSD TMM7, TMM6, TMM0: TMM0 += TMM6 (u8 quads) · TMM7 (s8 quads) into s32
#define TDPBUSD_T0 BYTE $0xc4; BYTE $0xe2; BYTE $0x41; BYTE $0x5e; BYTE $0xc6

// TDPBUSD TMM7, TMM6, TMM1: TMM1 += TMM6 (u8 quads) · TMM7 (s8 quads) into s32
#define TDPBUSD_T1 BYTE $0xc4; BYTE $0xe2; BYTE $0x41; BYTE $0x5e; BYTE $0xce

// TDPBUSD TMM7, TMM6, TMM2: TMM2 += TMM6 (u8 quads) · TMM7 (s8 quads) into s32
#define TDPBUSD_T2 BYTE $0xc4; BYTE $0xe2; BYTE $0x41; BYTE $0x5e; BYTE $0xd6

// TDPBUSD TMM7, TMM6, TMM3: TMM3 += TMM6 (u8 quads) · TMM7 (s8 quads) into s32
#define TDPBUSD_T3 BYTE $0xc4; BYTE $0xe2; BYTE $0x41; BYTE $0x5e; BYTE $0xde

// TDPBUSD TMM7, TMM6, TMM4: TMM4 += TMM6 (u8 quads) · TMM7 (s8 quads) into s32
#define TDPBUSD_T4 BYTE $0xc4; BYTE $0xe2; BYTE $0x41; BYTE $0x5e; BYTE $0xe6

// TDPBUSD TMM7, TMM6, TMM5: TMM5 += TMM6 (u8 quads) · TMM7 (s8 quads) into s32
#define TDPBUSD_T5 BYTE $0xc4; BYTE $0xe2; BYTE $0x41; BYTE $0x5e; BYTE $0xee

// TILESTORED TMM0, (R9)(DX*1)
#define TILESTORED_T0_R9 BYTE $0xc4; BYTE $0xc2; BYTE $0x7a; BYTE $0x4b; BYTE $0x04; BYTE $0x11

// TILERELEASE: the tiles back to their initial state
#define TILERELEASE BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0xc0

// func amxBF16(cfg *[64]byte, a, b, c *[1024]byte, rounds int)
// Tiles 0–5 accumulate, 6 holds A (from a) and 7 B (from b): each round is
// 6 independent TDPBF16PS (bf16 pairs into f32, 16×16×32 products); tile 0 is stored to c.
TEXT ·amxBF16(SB), NOSPLIT, $0-40
	MOVQ cfg+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ c+24(FP), R9
	MOVQ rounds+32(FP), CX
	MOVQ $64, DX
	LDTILECFG_DI
	TILELOADD_SI_T6
	TILELOADD_R8_T7
	TILEZERO_T0
	TILEZERO_T1
	TILEZERO_T2
	TILEZERO_T3
	TILEZERO_T4
	TILEZERO_T5
	TESTQ CX, CX
	JLE amxBF16store

amxBF16loop:
	TDPBF16PS_T0
	TDPBF16PS_T1
	TDPBF16PS_T2
	TDPBF16PS_T3
	TDPBF16PS_T4
	TDPBF16PS_T5
	DECQ CX
	JNZ amxBF16loop

amxBF16store:
	TILESTORED_T0_R9
	TILERELEASE
	RET


// func amxFP16(cfg *[64]byte, a, b, c *[1024]byte, rounds int)
// Tiles 0–5 accumulate, 6 holds A (from a) and 7 B (from b): each round is
// 6 independent TDPFP16PS (f16 pairs into f32, 16×16×32 products); tile 0 is stored to c.
TEXT ·amxFP16(SB), NOSPLIT, $0-40
	MOVQ cfg+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ c+24(FP), R9
	MOVQ rounds+32(FP), CX
	MOVQ $64, DX
	LDTILECFG_DI
	TILELOADD_SI_T6
	TILELOADD_R8_T7
	TILEZERO_T0
	TILEZERO_T1
	TILEZERO_T2
	TILEZERO_T3
	TILEZERO_T4
	TILEZERO_T5
	TESTQ CX, CX
	JLE amxFP16store

amxFP16loop:
	TDPFP16PS_T0
	TDPFP16PS_T1
	TDPFP16PS_T2
	TDPFP16PS_T3
	TDPFP16PS_T4
	TDPFP16PS_T5
	DECQ CX
	JNZ amxFP16loop

amxFP16store:
	TILESTORED_T0_R9
	TILERELEASE
	RET


// func amxInt8(cfg *[64]byte, a, b, c *[1024]byte, rounds int)
// Tiles 0–5 accumulate, 6 holds A (from a) and 7 B (from b): each round is
// 6 independent TDPBUSD (u8×s8 quads into s32, 16×16×64 products); tile 0 is stored to c.
TEXT ·amxInt8(SB), NOSPLIT, $0-40
	MOVQ cfg+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ c+24(FP), R9
	MOVQ rounds+32(FP), CX
	MOVQ $64, DX
	LDTILECFG_DI
	TILELOADD_SI_T6
	TILELOADD_R8_T7
	TILEZERO_T0
	TILEZERO_T1
	TILEZERO_T2
	TILEZERO_T3
	TILEZERO_T4
	TILEZERO_T5
	TESTQ CX, CX
	JLE amxInt8store

amxInt8loop:
	TDPBUSD_T0
	TDPBUSD_T1
	TDPBUSD_T2
	TDPBUSD_T3
	TDPBUSD_T4
	TDPBUSD_T5
	DECQ CX
	JNZ amxInt8loop

amxInt8store:
	TILESTORED_T0_R9
	TILERELEASE
	RET

