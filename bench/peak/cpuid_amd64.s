//go:build !purego

#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() uint64
// XCR0: the register states the OS saves and restores (and so enables).
// Only valid where CPUID.1:ECX[27] (OSXSAVE) is set.
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	BYTE $0x0f; BYTE $0x01; BYTE $0xd0 // XGETBV
	SHLQ $32, DX
	MOVL AX, AX // the low half alone
	ORQ DX, AX
	MOVQ AX, ret+0(FP)
	RET
