//go:build !purego

#include "textflag.h"

// Written by hand: short, unrolled, regular loops (a generator would add more
// than it saves). go vet (asmdecl) checks the frames against kernels_amd64.go.

// func fmaF32AVX2(acc *[fmaAccs * 8]float32, m, c float32, rounds int)
// Y0–Y11 are the accumulators, Y12 holds m and Y13 holds c; each
// round is 12 independent VFMADD213PS acc = m·acc + c.
TEXT ·fmaF32AVX2(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS m+8(FP), Y12
	VBROADCASTSS c+12(FP), Y13
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
	JLE store

loop:
	VFMADD213PS Y13, Y12, Y0
	VFMADD213PS Y13, Y12, Y1
	VFMADD213PS Y13, Y12, Y2
	VFMADD213PS Y13, Y12, Y3
	VFMADD213PS Y13, Y12, Y4
	VFMADD213PS Y13, Y12, Y5
	VFMADD213PS Y13, Y12, Y6
	VFMADD213PS Y13, Y12, Y7
	VFMADD213PS Y13, Y12, Y8
	VFMADD213PS Y13, Y12, Y9
	VFMADD213PS Y13, Y12, Y10
	VFMADD213PS Y13, Y12, Y11
	DECQ CX
	JNZ loop

store:
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

// func fmaF64AVX2(acc *[fmaAccs * 4]float64, m, c float64, rounds int)
// Y0–Y11 are the accumulators, Y12 holds m and Y13 holds c; each
// round is 12 independent VFMADD213PD acc = m·acc + c.
TEXT ·fmaF64AVX2(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	VBROADCASTSD m+8(FP), Y12
	VBROADCASTSD c+16(FP), Y13
	MOVQ rounds+24(FP), CX
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5
	VMOVUPD 192(DI), Y6
	VMOVUPD 224(DI), Y7
	VMOVUPD 256(DI), Y8
	VMOVUPD 288(DI), Y9
	VMOVUPD 320(DI), Y10
	VMOVUPD 352(DI), Y11
	TESTQ CX, CX
	JLE store

loop:
	VFMADD213PD Y13, Y12, Y0
	VFMADD213PD Y13, Y12, Y1
	VFMADD213PD Y13, Y12, Y2
	VFMADD213PD Y13, Y12, Y3
	VFMADD213PD Y13, Y12, Y4
	VFMADD213PD Y13, Y12, Y5
	VFMADD213PD Y13, Y12, Y6
	VFMADD213PD Y13, Y12, Y7
	VFMADD213PD Y13, Y12, Y8
	VFMADD213PD Y13, Y12, Y9
	VFMADD213PD Y13, Y12, Y10
	VFMADD213PD Y13, Y12, Y11
	DECQ CX
	JNZ loop

store:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VMOVUPD Y8, 256(DI)
	VMOVUPD Y9, 288(DI)
	VMOVUPD Y10, 320(DI)
	VMOVUPD Y11, 352(DI)
	VZEROUPPER
	RET

// func fmaF32AVX512(acc *[fmaAccs * 16]float32, m, c float32, rounds int)
// Z0–Z11 are the accumulators, Z12 holds m and Z13 holds c; each
// round is 12 independent VFMADD213PS acc = m·acc + c.
TEXT ·fmaF32AVX512(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	VBROADCASTSS m+8(FP), Z12
	VBROADCASTSS c+12(FP), Z13
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
	JLE store

loop:
	VFMADD213PS Z13, Z12, Z0
	VFMADD213PS Z13, Z12, Z1
	VFMADD213PS Z13, Z12, Z2
	VFMADD213PS Z13, Z12, Z3
	VFMADD213PS Z13, Z12, Z4
	VFMADD213PS Z13, Z12, Z5
	VFMADD213PS Z13, Z12, Z6
	VFMADD213PS Z13, Z12, Z7
	VFMADD213PS Z13, Z12, Z8
	VFMADD213PS Z13, Z12, Z9
	VFMADD213PS Z13, Z12, Z10
	VFMADD213PS Z13, Z12, Z11
	DECQ CX
	JNZ loop

store:
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

// func fmaF64AVX512(acc *[fmaAccs * 8]float64, m, c float64, rounds int)
// Z0–Z11 are the accumulators, Z12 holds m and Z13 holds c; each
// round is 12 independent VFMADD213PD acc = m·acc + c.
TEXT ·fmaF64AVX512(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	VBROADCASTSD m+8(FP), Z12
	VBROADCASTSD c+16(FP), Z13
	MOVQ rounds+24(FP), CX
	VMOVUPD 0(DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2
	VMOVUPD 192(DI), Z3
	VMOVUPD 256(DI), Z4
	VMOVUPD 320(DI), Z5
	VMOVUPD 384(DI), Z6
	VMOVUPD 448(DI), Z7
	VMOVUPD 512(DI), Z8
	VMOVUPD 576(DI), Z9
	VMOVUPD 640(DI), Z10
	VMOVUPD 704(DI), Z11
	TESTQ CX, CX
	JLE store

loop:
	VFMADD213PD Z13, Z12, Z0
	VFMADD213PD Z13, Z12, Z1
	VFMADD213PD Z13, Z12, Z2
	VFMADD213PD Z13, Z12, Z3
	VFMADD213PD Z13, Z12, Z4
	VFMADD213PD Z13, Z12, Z5
	VFMADD213PD Z13, Z12, Z6
	VFMADD213PD Z13, Z12, Z7
	VFMADD213PD Z13, Z12, Z8
	VFMADD213PD Z13, Z12, Z9
	VFMADD213PD Z13, Z12, Z10
	VFMADD213PD Z13, Z12, Z11
	DECQ CX
	JNZ loop

store:
	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	VMOVUPD Z4, 256(DI)
	VMOVUPD Z5, 320(DI)
	VMOVUPD Z6, 384(DI)
	VMOVUPD Z7, 448(DI)
	VMOVUPD Z8, 512(DI)
	VMOVUPD Z9, 576(DI)
	VMOVUPD Z10, 640(DI)
	VMOVUPD Z11, 704(DI)
	VZEROUPPER
	RET

// func triadF64AVX(a, b, c *float64, n, passes int, s float64)
// `passes` times a[i] = b[i] + s·c[i] for i < n, 16 elements per iteration;
// n must be a multiple of 16. One fused VFMADD231PD per vector, like the
// Go twin (math.FMA): a multiply and an add would take both FP pipes of a
// core whose L1 can serve the loads and the store in one cycle.
TEXT ·triadF64AVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ passes+32(FP), R8
	VBROADCASTSD s+40(FP), Y15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	MOVQ DI, R9
	MOVQ SI, R10
	MOVQ DX, R11
	LEAQ (DI)(CX*8), R12 // the end of a

loop:
	VMOVUPD 0(R10), Y0
	VMOVUPD 32(R10), Y1
	VMOVUPD 64(R10), Y2
	VMOVUPD 96(R10), Y3
	VFMADD231PD 0(R11), Y15, Y0
	VFMADD231PD 32(R11), Y15, Y1
	VFMADD231PD 64(R11), Y15, Y2
	VFMADD231PD 96(R11), Y15, Y3
	VMOVUPD Y0, 0(R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y3, 96(R9)
	ADDQ $128, R9
	ADDQ $128, R10
	ADDQ $128, R11
	CMPQ R9, R12
	JB loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func triadF64AVX512(a, b, c *float64, n, passes int, s float64)
// `passes` times a[i] = b[i] + s·c[i] for i < n, 32 elements per iteration;
// n must be a multiple of 32. One fused VFMADD231PD per vector, like the
// Go twin. The arrays are addressed by moving pointers: with an index
// (base + 8·i) the L1 triad ran 8–20% slower on the Zen 5 VM.
TEXT ·triadF64AVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ passes+32(FP), R8
	VBROADCASTSD s+40(FP), Z15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	MOVQ DI, R9
	MOVQ SI, R10
	MOVQ DX, R11
	LEAQ (DI)(CX*8), R12 // the end of a

loop:
	VMOVUPD 0(R10), Z0
	VMOVUPD 64(R10), Z1
	VMOVUPD 128(R10), Z2
	VMOVUPD 192(R10), Z3
	VFMADD231PD 0(R11), Z15, Z0
	VFMADD231PD 64(R11), Z15, Z1
	VFMADD231PD 128(R11), Z15, Z2
	VFMADD231PD 192(R11), Z15, Z3
	VMOVUPD Z0, 0(R9)
	VMOVUPD Z1, 64(R9)
	VMOVUPD Z2, 128(R9)
	VMOVUPD Z3, 192(R9)
	ADDQ $256, R9
	ADDQ $256, R10
	ADDQ $256, R11
	CMPQ R9, R12
	JB loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func updateF64AVX(a, b *float64, n, passes int, s float64)
// `passes` times a[i] = a[i] + s·b[i] for i < n, 16 elements per iteration;
// n must be a multiple of 16. One fused VFMADD231PD per vector, like the
// Go twin.
TEXT ·updateF64AVX(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	VBROADCASTSD s+32(FP), Y15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX

loop:
	VMOVUPD 0(DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD 64(DI)(AX*8), Y2
	VMOVUPD 96(DI)(AX*8), Y3
	VFMADD231PD 0(SI)(AX*8), Y15, Y0
	VFMADD231PD 32(SI)(AX*8), Y15, Y1
	VFMADD231PD 64(SI)(AX*8), Y15, Y2
	VFMADD231PD 96(SI)(AX*8), Y15, Y3
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func updateF64AVX512(a, b *float64, n, passes int, s float64)
// updateF64AVX with zmm, 32 elements per iteration; n must be a multiple of 32.
TEXT ·updateF64AVX512(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	VBROADCASTSD s+32(FP), Z15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX

loop:
	VMOVUPD 0(DI)(AX*8), Z0
	VMOVUPD 64(DI)(AX*8), Z1
	VMOVUPD 128(DI)(AX*8), Z2
	VMOVUPD 192(DI)(AX*8), Z3
	VFMADD231PD 0(SI)(AX*8), Z15, Z0
	VFMADD231PD 64(SI)(AX*8), Z15, Z1
	VFMADD231PD 128(SI)(AX*8), Z15, Z2
	VFMADD231PD 192(SI)(AX*8), Z15, Z3
	VMOVUPD Z0, 0(DI)(AX*8)
	VMOVUPD Z1, 64(DI)(AX*8)
	VMOVUPD Z2, 128(DI)(AX*8)
	VMOVUPD Z3, 192(DI)(AX*8)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func copyF64AVX(a, b *float64, n, passes int)
// `passes` times a[i] = b[i] for i < n, 16 elements per iteration; n must be
// a multiple of 16.
TEXT ·copyF64AVX(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX

loop:
	VMOVUPD 0(SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMOVUPD 64(SI)(AX*8), Y2
	VMOVUPD 96(SI)(AX*8), Y3
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func copyF64AVX512(a, b *float64, n, passes int)
// `passes` times a[i] = b[i] for i < n, 32 elements per iteration; n must be
// a multiple of 32.
TEXT ·copyF64AVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX

loop:
	VMOVUPD 0(SI)(AX*8), Z0
	VMOVUPD 64(SI)(AX*8), Z1
	VMOVUPD 128(SI)(AX*8), Z2
	VMOVUPD 192(SI)(AX*8), Z3
	VMOVUPD Z0, 0(DI)(AX*8)
	VMOVUPD Z1, 64(DI)(AX*8)
	VMOVUPD Z2, 128(DI)(AX*8)
	VMOVUPD Z3, 192(DI)(AX*8)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func copyNTF64AVX(a, b *float64, n, passes int)
// copyF64AVX with non-temporal stores (VMOVNTPD; a must be 32-byte
// aligned), fenced after each pass.
TEXT ·copyNTF64AVX(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX

loop:
	VMOVUPD 0(SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMOVUPD 64(SI)(AX*8), Y2
	VMOVUPD 96(SI)(AX*8), Y3
	VMOVNTPD Y0, 0(DI)(AX*8)
	VMOVNTPD Y1, 32(DI)(AX*8)
	VMOVNTPD Y2, 64(DI)(AX*8)
	VMOVNTPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT loop
	SFENCE
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func copyNTF64AVX512(a, b *float64, n, passes int)
// copyF64AVX512 with non-temporal stores (VMOVNTPD: no read for ownership
// of the lines written; a must be 64-byte aligned), fenced after each pass.
TEXT ·copyNTF64AVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX

loop:
	VMOVUPD 0(SI)(AX*8), Z0
	VMOVUPD 64(SI)(AX*8), Z1
	VMOVUPD 128(SI)(AX*8), Z2
	VMOVUPD 192(SI)(AX*8), Z3
	VMOVNTPD Z0, 0(DI)(AX*8)
	VMOVNTPD Z1, 64(DI)(AX*8)
	VMOVNTPD Z2, 128(DI)(AX*8)
	VMOVNTPD Z3, 192(DI)(AX*8)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT loop
	SFENCE
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func widenNTF64AVX(a, b *float64, n, passes int)
// Writes each 64-byte line of b to four consecutive lines of a, a[i] =
// b[i/32·8 + i%8] for i < n (a multiple of 32; b holds n/4), with
// non-temporal stores (VMOVNTPD; a must be 32-byte aligned): two ymm loads
// for eight stores. Fenced after each pass.
TEXT ·widenNTF64AVX(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	XORQ BX, BX

loop:
	VMOVUPD 0(SI)(BX*8), Y0
	VMOVUPD 32(SI)(BX*8), Y1
	VMOVNTPD Y0, 0(DI)(AX*8)
	VMOVNTPD Y1, 32(DI)(AX*8)
	VMOVNTPD Y0, 64(DI)(AX*8)
	VMOVNTPD Y1, 96(DI)(AX*8)
	VMOVNTPD Y0, 128(DI)(AX*8)
	VMOVNTPD Y1, 160(DI)(AX*8)
	VMOVNTPD Y0, 192(DI)(AX*8)
	VMOVNTPD Y1, 224(DI)(AX*8)
	ADDQ $32, AX
	ADDQ $8, BX
	CMPQ AX, CX
	JLT loop
	SFENCE
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func widenNTF64AVX512(a, b *float64, n, passes int)
// widenNTF64AVX with zmm: one load for four stores (a 64-byte aligned).
TEXT ·widenNTF64AVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	XORQ BX, BX

loop:
	VMOVUPD 0(SI)(BX*8), Z0
	VMOVNTPD Z0, 0(DI)(AX*8)
	VMOVNTPD Z0, 64(DI)(AX*8)
	VMOVNTPD Z0, 128(DI)(AX*8)
	VMOVNTPD Z0, 192(DI)(AX*8)
	ADDQ $32, AX
	ADDQ $8, BX
	CMPQ AX, CX
	JLT loop
	SFENCE
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func widenF64AVX(a, b *float64, n, passes int)
// widenNTF64AVX with ordinary stores (no alignment needed): two ymm loads
// for eight stores, 32 elements of a per iteration.
TEXT ·widenF64AVX(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	XORQ BX, BX

loop:
	VMOVUPD 0(SI)(BX*8), Y0
	VMOVUPD 32(SI)(BX*8), Y1
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y0, 64(DI)(AX*8)
	VMOVUPD Y1, 96(DI)(AX*8)
	VMOVUPD Y0, 128(DI)(AX*8)
	VMOVUPD Y1, 160(DI)(AX*8)
	VMOVUPD Y0, 192(DI)(AX*8)
	VMOVUPD Y1, 224(DI)(AX*8)
	ADDQ $32, AX
	ADDQ $8, BX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func widenF64AVX512(a, b *float64, n, passes int)
// widenF64AVX with zmm: one load for four stores, 64 elements of a (two
// lines of b) per iteration; n must be a multiple of 64.
TEXT ·widenF64AVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	XORQ BX, BX

loop:
	VMOVUPD 0(SI)(BX*8), Z0
	VMOVUPD 64(SI)(BX*8), Z1
	VMOVUPD Z0, 0(DI)(AX*8)
	VMOVUPD Z0, 64(DI)(AX*8)
	VMOVUPD Z0, 128(DI)(AX*8)
	VMOVUPD Z0, 192(DI)(AX*8)
	VMOVUPD Z1, 256(DI)(AX*8)
	VMOVUPD Z1, 320(DI)(AX*8)
	VMOVUPD Z1, 384(DI)(AX*8)
	VMOVUPD Z1, 448(DI)(AX*8)
	ADDQ $64, AX
	ADDQ $16, BX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func readF64AVX(b *float64, n, passes int) float64
// Returns the sum of b[i] for i < n over `passes` passes, in eight ymm
// accumulators (two adds per cycle at 3–4 cycles of latency need at least
// six chains), 32 elements per iteration; n must be a multiple of 32.
TEXT ·readF64AVX(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ passes+16(FP), R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JLE fold
	TESTQ R8, R8
	JLE fold

pass:
	XORQ AX, AX

loop:
	VADDPD 0(SI)(AX*8), Y0, Y0
	VADDPD 32(SI)(AX*8), Y1, Y1
	VADDPD 64(SI)(AX*8), Y2, Y2
	VADDPD 96(SI)(AX*8), Y3, Y3
	VADDPD 128(SI)(AX*8), Y4, Y4
	VADDPD 160(SI)(AX*8), Y5, Y5
	VADDPD 192(SI)(AX*8), Y6, Y6
	VADDPD 224(SI)(AX*8), Y7, Y7
	ADDQ $32, AX
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y2, Y0, Y0
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func readF64AVX512(b *float64, n, passes int) float64
// passes·Σ b[i] over n elements (a multiple of 128) in sixteen zmm
// accumulators: two loads per cycle at VADDPD's 4-cycle latency need eight
// chains at least, and eight left the L1 read at 80% of two loads per cycle
// on the Intel VM of docs/architecture.md. The loads address from a moving
// pointer: an indexed address splits a load-and-add into two µops on Intel
// cores.
TEXT ·readF64AVX512(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ passes+16(FP), R8
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	TESTQ CX, CX
	JLE fold
	TESTQ R8, R8
	JLE fold

	LEAQ (SI)(CX*8), BX // the end

pass:
	MOVQ SI, DX

loop:
	VADDPD 0(DX), Z0, Z0
	VADDPD 64(DX), Z1, Z1
	VADDPD 128(DX), Z2, Z2
	VADDPD 192(DX), Z3, Z3
	VADDPD 256(DX), Z4, Z4
	VADDPD 320(DX), Z5, Z5
	VADDPD 384(DX), Z6, Z6
	VADDPD 448(DX), Z7, Z7
	VADDPD 512(DX), Z8, Z8
	VADDPD 576(DX), Z9, Z9
	VADDPD 640(DX), Z10, Z10
	VADDPD 704(DX), Z11, Z11
	VADDPD 768(DX), Z12, Z12
	VADDPD 832(DX), Z13, Z13
	VADDPD 896(DX), Z14, Z14
	VADDPD 960(DX), Z15, Z15
	ADDQ $1024, DX
	CMPQ DX, BX
	JB loop
	DECQ R8
	JNZ pass

fold:
	VADDPD Z8, Z0, Z0
	VADDPD Z9, Z1, Z1
	VADDPD Z10, Z2, Z2
	VADDPD Z11, Z3, Z3
	VADDPD Z12, Z4, Z4
	VADDPD Z13, Z5, Z5
	VADDPD Z14, Z6, Z6
	VADDPD Z15, Z7, Z7
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z5, Z4, Z4
	VADDPD Z7, Z6, Z6
	VADDPD Z2, Z0, Z0
	VADDPD Z6, Z4, Z4
	VADDPD Z4, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func triadPFF64AVX(a, b, c *float64, n, passes, ahead int, s float64)
// triadF64AVX with a PREFETCHT0 of the lines `ahead` bytes further on in b and c
// (ahead a multiple of 64).
TEXT ·triadPFF64AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ passes+32(FP), R8
	MOVQ ahead+40(FP), R9
	VBROADCASTSD s+48(FP), Y15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	MOVQ R9, R10

loop:
	PREFETCHT0 0(SI)(R10*1)
	PREFETCHT0 64(SI)(R10*1)
	PREFETCHT0 0(DX)(R10*1)
	PREFETCHT0 64(DX)(R10*1)
	VMOVUPD 0(SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMOVUPD 64(SI)(AX*8), Y2
	VMOVUPD 96(SI)(AX*8), Y3
	VFMADD231PD 0(DX)(AX*8), Y15, Y0
	VFMADD231PD 32(DX)(AX*8), Y15, Y1
	VFMADD231PD 64(DX)(AX*8), Y15, Y2
	VFMADD231PD 96(DX)(AX*8), Y15, Y3
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	ADDQ $128, R10
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func updatePFF64AVX(a, b *float64, n, passes, ahead int, s float64)
// updateF64AVX with a PREFETCHT0 of the lines `ahead` bytes further on in a and b
// (ahead a multiple of 64).
TEXT ·updatePFF64AVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	MOVQ ahead+32(FP), R9
	VBROADCASTSD s+40(FP), Y15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	MOVQ R9, R10

loop:
	PREFETCHT0 0(DI)(R10*1)
	PREFETCHT0 64(DI)(R10*1)
	PREFETCHT0 0(SI)(R10*1)
	PREFETCHT0 64(SI)(R10*1)
	VMOVUPD 0(DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD 64(DI)(AX*8), Y2
	VMOVUPD 96(DI)(AX*8), Y3
	VFMADD231PD 0(SI)(AX*8), Y15, Y0
	VFMADD231PD 32(SI)(AX*8), Y15, Y1
	VFMADD231PD 64(SI)(AX*8), Y15, Y2
	VFMADD231PD 96(SI)(AX*8), Y15, Y3
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	ADDQ $128, R10
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func copyPFF64AVX(a, b *float64, n, passes, ahead int)
// copyF64AVX with a PREFETCHT0 of the lines `ahead` bytes further on in b
// (ahead a multiple of 64).
TEXT ·copyPFF64AVX(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	MOVQ ahead+32(FP), R9
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	MOVQ R9, R10

loop:
	PREFETCHT0 0(SI)(R10*1)
	PREFETCHT0 64(SI)(R10*1)
	VMOVUPD 0(SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMOVUPD 64(SI)(AX*8), Y2
	VMOVUPD 96(SI)(AX*8), Y3
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	ADDQ $128, R10
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func triadPFF64AVX512(a, b, c *float64, n, passes, ahead int, s float64)
// triadF64AVX512 with a PREFETCHT0 of the lines `ahead` bytes further on in b and c
// (ahead a multiple of 64).
TEXT ·triadPFF64AVX512(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ passes+32(FP), R8
	MOVQ ahead+40(FP), R9
	VBROADCASTSD s+48(FP), Z15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	MOVQ R9, R10

loop:
	PREFETCHT0 0(SI)(R10*1)
	PREFETCHT0 64(SI)(R10*1)
	PREFETCHT0 128(SI)(R10*1)
	PREFETCHT0 192(SI)(R10*1)
	PREFETCHT0 0(DX)(R10*1)
	PREFETCHT0 64(DX)(R10*1)
	PREFETCHT0 128(DX)(R10*1)
	PREFETCHT0 192(DX)(R10*1)
	VMOVUPD 0(SI)(AX*8), Z0
	VMOVUPD 64(SI)(AX*8), Z1
	VMOVUPD 128(SI)(AX*8), Z2
	VMOVUPD 192(SI)(AX*8), Z3
	VFMADD231PD 0(DX)(AX*8), Z15, Z0
	VFMADD231PD 64(DX)(AX*8), Z15, Z1
	VFMADD231PD 128(DX)(AX*8), Z15, Z2
	VFMADD231PD 192(DX)(AX*8), Z15, Z3
	VMOVUPD Z0, 0(DI)(AX*8)
	VMOVUPD Z1, 64(DI)(AX*8)
	VMOVUPD Z2, 128(DI)(AX*8)
	VMOVUPD Z3, 192(DI)(AX*8)
	ADDQ $32, AX
	ADDQ $256, R10
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func updatePFF64AVX512(a, b *float64, n, passes, ahead int, s float64)
// updateF64AVX512 with a PREFETCHT0 of the lines `ahead` bytes further on in a and b
// (ahead a multiple of 64).
TEXT ·updatePFF64AVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	MOVQ ahead+32(FP), R9
	VBROADCASTSD s+40(FP), Z15
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	MOVQ R9, R10

loop:
	PREFETCHT0 0(DI)(R10*1)
	PREFETCHT0 64(DI)(R10*1)
	PREFETCHT0 128(DI)(R10*1)
	PREFETCHT0 192(DI)(R10*1)
	PREFETCHT0 0(SI)(R10*1)
	PREFETCHT0 64(SI)(R10*1)
	PREFETCHT0 128(SI)(R10*1)
	PREFETCHT0 192(SI)(R10*1)
	VMOVUPD 0(DI)(AX*8), Z0
	VMOVUPD 64(DI)(AX*8), Z1
	VMOVUPD 128(DI)(AX*8), Z2
	VMOVUPD 192(DI)(AX*8), Z3
	VFMADD231PD 0(SI)(AX*8), Z15, Z0
	VFMADD231PD 64(SI)(AX*8), Z15, Z1
	VFMADD231PD 128(SI)(AX*8), Z15, Z2
	VFMADD231PD 192(SI)(AX*8), Z15, Z3
	VMOVUPD Z0, 0(DI)(AX*8)
	VMOVUPD Z1, 64(DI)(AX*8)
	VMOVUPD Z2, 128(DI)(AX*8)
	VMOVUPD Z3, 192(DI)(AX*8)
	ADDQ $32, AX
	ADDQ $256, R10
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func copyPFF64AVX512(a, b *float64, n, passes, ahead int)
// copyF64AVX512 with a PREFETCHT0 of the lines `ahead` bytes further on in b
// (ahead a multiple of 64).
TEXT ·copyPFF64AVX512(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ passes+24(FP), R8
	MOVQ ahead+32(FP), R9
	TESTQ CX, CX
	JLE done
	TESTQ R8, R8
	JLE done

pass:
	XORQ AX, AX
	MOVQ R9, R10

loop:
	PREFETCHT0 0(SI)(R10*1)
	PREFETCHT0 64(SI)(R10*1)
	PREFETCHT0 128(SI)(R10*1)
	PREFETCHT0 192(SI)(R10*1)
	VMOVUPD 0(SI)(AX*8), Z0
	VMOVUPD 64(SI)(AX*8), Z1
	VMOVUPD 128(SI)(AX*8), Z2
	VMOVUPD 192(SI)(AX*8), Z3
	VMOVUPD Z0, 0(DI)(AX*8)
	VMOVUPD Z1, 64(DI)(AX*8)
	VMOVUPD Z2, 128(DI)(AX*8)
	VMOVUPD Z3, 192(DI)(AX*8)
	ADDQ $32, AX
	ADDQ $256, R10
	CMPQ AX, CX
	JLT loop
	DECQ R8
	JNZ pass

done:
	VZEROUPPER
	RET

// func readPFF64AVX(b *float64, n, passes, ahead int) float64
// readF64AVX with a PREFETCHT0 of the line `ahead` bytes further on
// beside each line loaded (ahead a multiple of 64).
TEXT ·readPFF64AVX(SB), NOSPLIT, $0-40
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ passes+16(FP), R8
	MOVQ ahead+24(FP), R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JLE fold
	TESTQ R8, R8
	JLE fold

	LEAQ (SI)(CX*8), BX // the end

pass:
	MOVQ SI, DX

loop:
	PREFETCHT0 0(DX)(R9*1)
	VADDPD 0(DX), Y0, Y0
	VADDPD 32(DX), Y1, Y1
	PREFETCHT0 64(DX)(R9*1)
	VADDPD 64(DX), Y2, Y2
	VADDPD 96(DX), Y3, Y3
	PREFETCHT0 128(DX)(R9*1)
	VADDPD 128(DX), Y4, Y4
	VADDPD 160(DX), Y5, Y5
	PREFETCHT0 192(DX)(R9*1)
	VADDPD 192(DX), Y6, Y6
	VADDPD 224(DX), Y7, Y7
	ADDQ $256, DX
	CMPQ DX, BX
	JB loop
	DECQ R8
	JNZ pass

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y2, Y0, Y0
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VZEROUPPER
	MOVSD X0, ret+32(FP)
	RET

// func readPFF64AVX512(b *float64, n, passes, ahead int) float64
// readF64AVX512 with a PREFETCHT0 of the line `ahead` bytes further on
// beside each line loaded (ahead a multiple of 64).
TEXT ·readPFF64AVX512(SB), NOSPLIT, $0-40
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ passes+16(FP), R8
	MOVQ ahead+24(FP), R9
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	TESTQ CX, CX
	JLE fold
	TESTQ R8, R8
	JLE fold

	LEAQ (SI)(CX*8), BX // the end

pass:
	MOVQ SI, DX

loop:
	PREFETCHT0 0(DX)(R9*1)
	VADDPD 0(DX), Z0, Z0
	PREFETCHT0 64(DX)(R9*1)
	VADDPD 64(DX), Z1, Z1
	PREFETCHT0 128(DX)(R9*1)
	VADDPD 128(DX), Z2, Z2
	PREFETCHT0 192(DX)(R9*1)
	VADDPD 192(DX), Z3, Z3
	PREFETCHT0 256(DX)(R9*1)
	VADDPD 256(DX), Z4, Z4
	PREFETCHT0 320(DX)(R9*1)
	VADDPD 320(DX), Z5, Z5
	PREFETCHT0 384(DX)(R9*1)
	VADDPD 384(DX), Z6, Z6
	PREFETCHT0 448(DX)(R9*1)
	VADDPD 448(DX), Z7, Z7
	PREFETCHT0 512(DX)(R9*1)
	VADDPD 512(DX), Z8, Z8
	PREFETCHT0 576(DX)(R9*1)
	VADDPD 576(DX), Z9, Z9
	PREFETCHT0 640(DX)(R9*1)
	VADDPD 640(DX), Z10, Z10
	PREFETCHT0 704(DX)(R9*1)
	VADDPD 704(DX), Z11, Z11
	PREFETCHT0 768(DX)(R9*1)
	VADDPD 768(DX), Z12, Z12
	PREFETCHT0 832(DX)(R9*1)
	VADDPD 832(DX), Z13, Z13
	PREFETCHT0 896(DX)(R9*1)
	VADDPD 896(DX), Z14, Z14
	PREFETCHT0 960(DX)(R9*1)
	VADDPD 960(DX), Z15, Z15
	ADDQ $1024, DX
	CMPQ DX, BX
	JB loop
	DECQ R8
	JNZ pass

fold:
	VADDPD Z8, Z0, Z0
	VADDPD Z9, Z1, Z1
	VADDPD Z10, Z2, Z2
	VADDPD Z11, Z3, Z3
	VADDPD Z12, Z4, Z4
	VADDPD Z13, Z5, Z5
	VADDPD Z14, Z6, Z6
	VADDPD Z15, Z7, Z7
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z5, Z4, Z4
	VADDPD Z7, Z6, Z6
	VADDPD Z2, Z0, Z0
	VADDPD Z6, Z4, Z4
	VADDPD Z4, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VZEROUPPER
	MOVSD X0, ret+32(FP)
	RET

// Ten dependent adds; ADDQ reg, reg (not an immediate, which some cores fold at rename).
#define ADD10 ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX; ADDQ BX, AX

// func addChainAMD64(n int, x, step uint64) uint64
// n iterations of 100 dependent adds: 100 cycles each at one add per cycle,
// while the loop counter runs beside the chain.
TEXT ·addChainAMD64(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), AX
	MOVQ step+16(FP), BX
	TESTQ CX, CX
	JLE done

loop:
	ADD10
	ADD10
	ADD10
	ADD10
	ADD10
	ADD10
	ADD10
	ADD10
	ADD10
	ADD10
	DECQ CX
	JNZ loop

done:
	MOVQ AX, ret+24(FP)
	RET

// func readStreamsF64AVX(b *float64, n, passes int) float64
// passes·Σ b[i] over n elements (a multiple of 64) read as eight streams, the
// eight segments of n/8 elements side by side: 2 ymm of each a trip, one
// accumulator each. SI is b, R9 a segment's bytes (n), R10 three of them; DX
// walks segments 0–3 and R11 segments 4–7.
TEXT ·readStreamsF64AVX(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), R9
	MOVQ passes+16(FP), R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	TESTQ R9, R9
	JLE fold
	TESTQ R8, R8
	JLE fold
	LEAQ (R9)(R9*2), R10

pass:
	MOVQ SI, DX
	LEAQ (SI)(R9*4), R11
	MOVQ R9, CX
	SHRQ $6, CX // trips: a segment's bytes / 64

loop:
	VADDPD 0(DX), Y0, Y0
	VADDPD 32(DX), Y1, Y1
	VADDPD 0(DX)(R9*1), Y2, Y2
	VADDPD 32(DX)(R9*1), Y3, Y3
	VADDPD 0(DX)(R9*2), Y4, Y4
	VADDPD 32(DX)(R9*2), Y5, Y5
	VADDPD 0(DX)(R10*1), Y6, Y6
	VADDPD 32(DX)(R10*1), Y7, Y7
	VADDPD 0(R11), Y8, Y8
	VADDPD 32(R11), Y9, Y9
	VADDPD 0(R11)(R9*1), Y10, Y10
	VADDPD 32(R11)(R9*1), Y11, Y11
	VADDPD 0(R11)(R9*2), Y12, Y12
	VADDPD 32(R11)(R9*2), Y13, Y13
	VADDPD 0(R11)(R10*1), Y14, Y14
	VADDPD 32(R11)(R10*1), Y15, Y15
	ADDQ $64, DX
	ADDQ $64, R11
	DECQ CX
	JNZ loop
	DECQ R8
	JNZ pass

fold:
	VADDPD Y8, Y0, Y0
	VADDPD Y9, Y1, Y1
	VADDPD Y10, Y2, Y2
	VADDPD Y11, Y3, Y3
	VADDPD Y12, Y4, Y4
	VADDPD Y13, Y5, Y5
	VADDPD Y14, Y6, Y6
	VADDPD Y15, Y7, Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func readStreamsF64AVX512(b *float64, n, passes int) float64
// passes·Σ b[i] over n elements (a multiple of 128) read as eight streams, the
// eight segments of n/8 elements side by side: 2 zmm of each a trip, one
// accumulator each. SI is b, R9 a segment's bytes (n), R10 three of them; DX
// walks segments 0–3 and R11 segments 4–7.
TEXT ·readStreamsF64AVX512(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), R9
	MOVQ passes+16(FP), R8
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	TESTQ R9, R9
	JLE fold
	TESTQ R8, R8
	JLE fold
	LEAQ (R9)(R9*2), R10

pass:
	MOVQ SI, DX
	LEAQ (SI)(R9*4), R11
	MOVQ R9, CX
	SHRQ $7, CX // trips: a segment's bytes / 128

loop:
	VADDPD 0(DX), Z0, Z0
	VADDPD 64(DX), Z1, Z1
	VADDPD 0(DX)(R9*1), Z2, Z2
	VADDPD 64(DX)(R9*1), Z3, Z3
	VADDPD 0(DX)(R9*2), Z4, Z4
	VADDPD 64(DX)(R9*2), Z5, Z5
	VADDPD 0(DX)(R10*1), Z6, Z6
	VADDPD 64(DX)(R10*1), Z7, Z7
	VADDPD 0(R11), Z8, Z8
	VADDPD 64(R11), Z9, Z9
	VADDPD 0(R11)(R9*1), Z10, Z10
	VADDPD 64(R11)(R9*1), Z11, Z11
	VADDPD 0(R11)(R9*2), Z12, Z12
	VADDPD 64(R11)(R9*2), Z13, Z13
	VADDPD 0(R11)(R10*1), Z14, Z14
	VADDPD 64(R11)(R10*1), Z15, Z15
	ADDQ $128, DX
	ADDQ $128, R11
	DECQ CX
	JNZ loop
	DECQ R8
	JNZ pass

fold:
	VADDPD Z8, Z0, Z0
	VADDPD Z9, Z1, Z1
	VADDPD Z10, Z2, Z2
	VADDPD Z11, Z3, Z3
	VADDPD Z12, Z4, Z4
	VADDPD Z13, Z5, Z5
	VADDPD Z14, Z6, Z6
	VADDPD Z15, Z7, Z7
	VADDPD Z4, Z0, Z0
	VADDPD Z5, Z1, Z1
	VADDPD Z6, Z2, Z2
	VADDPD Z7, Z3, Z3
	VADDPD Z2, Z0, Z0
	VADDPD Z3, Z1, Z1
	VADDPD Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET
