//go:build !purego

#include "textflag.h"

// The unit probes (units.go): for each vector width, an FMA-throughput loop
// on xmm (the ymm and zmm ones are in kernels_amd64.s), and a clock loop that
// keeps that width's FMA pipes busy while a dependent add chain counts the
// cycles. Written by hand, like kernels_amd64.s; go vet (asmdecl) checks the
// frames against kernels_amd64.go.

// Sixteen dependent adds: sixteen cycles on every x86 core since the P6.
#define ADD16 ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX

// func fmaF32XMM(acc *[fmaAccs * 4]float32, m, c float32, rounds int)
// X0–X11 are the accumulators, X12 holds m and X13 holds c; each round is
// 12 independent VFMADD213PS acc = m·acc + c (VEX-encoded, 128 bits).
TEXT ·fmaF32XMM(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS m+8(FP), X12
	VBROADCASTSS c+12(FP), X13
	MOVQ rounds+16(FP), CX
	VMOVUPS 0(DI), X0
	VMOVUPS 16(DI), X1
	VMOVUPS 32(DI), X2
	VMOVUPS 48(DI), X3
	VMOVUPS 64(DI), X4
	VMOVUPS 80(DI), X5
	VMOVUPS 96(DI), X6
	VMOVUPS 112(DI), X7
	VMOVUPS 128(DI), X8
	VMOVUPS 144(DI), X9
	VMOVUPS 160(DI), X10
	VMOVUPS 176(DI), X11
	TESTQ CX, CX
	JLE f32xstore

f32xloop:
	VFMADD213PS X13, X12, X0
	VFMADD213PS X13, X12, X1
	VFMADD213PS X13, X12, X2
	VFMADD213PS X13, X12, X3
	VFMADD213PS X13, X12, X4
	VFMADD213PS X13, X12, X5
	VFMADD213PS X13, X12, X6
	VFMADD213PS X13, X12, X7
	VFMADD213PS X13, X12, X8
	VFMADD213PS X13, X12, X9
	VFMADD213PS X13, X12, X10
	VFMADD213PS X13, X12, X11
	DECQ CX
	JNZ f32xloop

f32xstore:
	VMOVUPS X0, 0(DI)
	VMOVUPS X1, 16(DI)
	VMOVUPS X2, 32(DI)
	VMOVUPS X3, 48(DI)
	VMOVUPS X4, 64(DI)
	VMOVUPS X5, 80(DI)
	VMOVUPS X6, 96(DI)
	VMOVUPS X7, 112(DI)
	VMOVUPS X8, 128(DI)
	VMOVUPS X9, 144(DI)
	VMOVUPS X10, 160(DI)
	VMOVUPS X11, 176(DI)
	RET

// func fmaF64XMM(acc *[fmaAccs * 2]float64, m, c float64, rounds int)
// X0–X11 are the accumulators, X12 holds m and X13 holds c; each round is
// 12 independent VFMADD213PD acc = m·acc + c (VEX-encoded, 128 bits).
TEXT ·fmaF64XMM(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	VMOVDDUP m+8(FP), X12
	VMOVDDUP c+16(FP), X13
	MOVQ rounds+24(FP), CX
	VMOVUPD 0(DI), X0
	VMOVUPD 16(DI), X1
	VMOVUPD 32(DI), X2
	VMOVUPD 48(DI), X3
	VMOVUPD 64(DI), X4
	VMOVUPD 80(DI), X5
	VMOVUPD 96(DI), X6
	VMOVUPD 112(DI), X7
	VMOVUPD 128(DI), X8
	VMOVUPD 144(DI), X9
	VMOVUPD 160(DI), X10
	VMOVUPD 176(DI), X11
	TESTQ CX, CX
	JLE f64xstore

f64xloop:
	VFMADD213PD X13, X12, X0
	VFMADD213PD X13, X12, X1
	VFMADD213PD X13, X12, X2
	VFMADD213PD X13, X12, X3
	VFMADD213PD X13, X12, X4
	VFMADD213PD X13, X12, X5
	VFMADD213PD X13, X12, X6
	VFMADD213PD X13, X12, X7
	VFMADD213PD X13, X12, X8
	VFMADD213PD X13, X12, X9
	VFMADD213PD X13, X12, X10
	VFMADD213PD X13, X12, X11
	DECQ CX
	JNZ f64xloop

f64xstore:
	VMOVUPD X0, 0(DI)
	VMOVUPD X1, 16(DI)
	VMOVUPD X2, 32(DI)
	VMOVUPD X3, 48(DI)
	VMOVUPD X4, 64(DI)
	VMOVUPD X5, 80(DI)
	VMOVUPD X6, 96(DI)
	VMOVUPD X7, 112(DI)
	VMOVUPD X8, 128(DI)
	VMOVUPD X9, 144(DI)
	VMOVUPD X10, 160(DI)
	VMOVUPD X11, 176(DI)
	RET

// func clockUnderXMM(n int, x, step uint64) uint64
// n iterations of 16 dependent ADDQ (x += step) beside 12 independent
// VFMADD213PS on X0–X11; the FMAs need at most 12 cycles (one pipe),
// so the chain sets the pace and counts the cycles at the clock the core
// keeps while this width runs.
TEXT ·clockUnderXMM(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), AX
	MOVQ step+16(FP), BX
	VPXOR X0, X0, X0
	VPXOR X1, X1, X1
	VPXOR X2, X2, X2
	VPXOR X3, X3, X3
	VPXOR X4, X4, X4
	VPXOR X5, X5, X5
	VPXOR X6, X6, X6
	VPXOR X7, X7, X7
	VPXOR X8, X8, X8
	VPXOR X9, X9, X9
	VPXOR X10, X10, X10
	VPXOR X11, X11, X11
	MOVL $0x3f7f8000, DX // m = 1 − 2⁻⁹: the accumulators converge to c/(1−m) = 1
	MOVL DX, X12
	VBROADCASTSS X12, X12
	MOVL $0x3b000000, DX // c = 2⁻⁹
	MOVL DX, X13
	VBROADCASTSS X13, X13
	TESTQ CX, CX
	JLE xmmdone
xmmloop:
	VFMADD213PS X13, X12, X0
	VFMADD213PS X13, X12, X1
	VFMADD213PS X13, X12, X2
	VFMADD213PS X13, X12, X3
	ADD16
	VFMADD213PS X13, X12, X4
	VFMADD213PS X13, X12, X5
	VFMADD213PS X13, X12, X6
	VFMADD213PS X13, X12, X7
	VFMADD213PS X13, X12, X8
	VFMADD213PS X13, X12, X9
	VFMADD213PS X13, X12, X10
	VFMADD213PS X13, X12, X11
	DECQ CX
	JNZ xmmloop
xmmdone:
	MOVQ AX, ret+24(FP)
	RET

// func clockUnderYMM(n int, x, step uint64) uint64
// n iterations of 16 dependent ADDQ (x += step) beside 12 independent
// VFMADD213PS on Y0–Y11; the FMAs need at most 12 cycles (one pipe),
// so the chain sets the pace and counts the cycles at the clock the core
// keeps while this width runs.
TEXT ·clockUnderYMM(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), AX
	MOVQ step+16(FP), BX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11
	MOVL $0x3f7f8000, DX // m = 1 − 2⁻⁹: the accumulators converge to c/(1−m) = 1
	MOVL DX, X12
	VBROADCASTSS X12, Y12
	MOVL $0x3b000000, DX // c = 2⁻⁹
	MOVL DX, X13
	VBROADCASTSS X13, Y13
	TESTQ CX, CX
	JLE ymmdone
ymmloop:
	VFMADD213PS Y13, Y12, Y0
	VFMADD213PS Y13, Y12, Y1
	VFMADD213PS Y13, Y12, Y2
	VFMADD213PS Y13, Y12, Y3
	ADD16
	VFMADD213PS Y13, Y12, Y4
	VFMADD213PS Y13, Y12, Y5
	VFMADD213PS Y13, Y12, Y6
	VFMADD213PS Y13, Y12, Y7
	VFMADD213PS Y13, Y12, Y8
	VFMADD213PS Y13, Y12, Y9
	VFMADD213PS Y13, Y12, Y10
	VFMADD213PS Y13, Y12, Y11
	DECQ CX
	JNZ ymmloop
ymmdone:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// func clockUnderZMM(n int, x, step uint64) uint64
// n iterations of 16 dependent ADDQ (x += step) beside 12 independent
// VFMADD213PS on Z0–Z11; the FMAs need at most 12 cycles (one pipe),
// so the chain sets the pace and counts the cycles at the clock the core
// keeps while this width runs.
TEXT ·clockUnderZMM(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), AX
	MOVQ step+16(FP), BX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	MOVL $0x3f7f8000, DX // m = 1 − 2⁻⁹: the accumulators converge to c/(1−m) = 1
	MOVL DX, X12
	VBROADCASTSS X12, Z12
	MOVL $0x3b000000, DX // c = 2⁻⁹
	MOVL DX, X13
	VBROADCASTSS X13, Z13
	TESTQ CX, CX
	JLE zmmdone
zmmloop:
	VFMADD213PS Z13, Z12, Z0
	VFMADD213PS Z13, Z12, Z1
	VFMADD213PS Z13, Z12, Z2
	VFMADD213PS Z13, Z12, Z3
	ADD16
	VFMADD213PS Z13, Z12, Z4
	VFMADD213PS Z13, Z12, Z5
	VFMADD213PS Z13, Z12, Z6
	VFMADD213PS Z13, Z12, Z7
	VFMADD213PS Z13, Z12, Z8
	VFMADD213PS Z13, Z12, Z9
	VFMADD213PS Z13, Z12, Z10
	VFMADD213PS Z13, Z12, Z11
	DECQ CX
	JNZ zmmloop
zmmdone:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
