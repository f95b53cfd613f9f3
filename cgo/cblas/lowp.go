package cblas

import "fmt"

// LowPrecision is the element type of a mixed-precision gemm, which only
// some libraries have (MKL, OpenBLAS built with bfloat16): HasGemm says
// whether the loaded file exports its routine.
type LowPrecision int

// The low-precision gemm types (the C layer's pb_lowp).
const (
	BF16 LowPrecision = 1 // bf16 A, B → f32 C: MKL cblas_gemm_bf16bf16f32, OpenBLAS cblas_sbgemm
	F16  LowPrecision = 2 // f16 A, B → f32 C: MKL cblas_gemm_f16f16f32 (oneMKL 2024 and later)
	I8   LowPrecision = 3 // s8 A, s8 B → s32 C: MKL cblas_gemm_s8u8s32 with A stored +128, oa = −128
	U8S8 LowPrecision = 4 // u8 A, s8 B → s32 C: MKL cblas_gemm_s8u8s32
)

// LowPrecisions lists the types, in order.
var LowPrecisions = []LowPrecision{BF16, F16, I8, U8S8}

func (d LowPrecision) String() string {
	switch d {
	case BF16:
		return "bf16"
	case F16:
		return "f16"
	case I8:
		return "i8"
	case U8S8:
		return "u8s8"
	}
	return fmt.Sprintf("LowPrecision(%d)", int(d))
}

// HasGemm reports whether the library has a gemm routine for dt, and can
// compute it exactly: where MKL's cblas_gemm_s8u8s32 saturates (a code
// path without VNNI), i8 and u8s8 run cblas_gemm_s16s16s32 instead.
func (l *Library) HasGemm(dt LowPrecision) bool {
	l.check()
	return l.lowpHas(dt)
}

// GemmRoutine names the routine a gemm in dt calls, e.g.
// "cblas_gemm_bf16bf16f32" ("" when the library has none).
func (l *Library) GemmRoutine(dt LowPrecision) string {
	l.check()
	return l.lowpRoutine(dt)
}

// PrepareGemmLowPrecision prepares C = op(A)·op(B) in dt, as PrepareGemm
// does: the same arguments, whose values SetInput converts to the
// operands' types (bf16 and f16 rounded to nearest even; the integer
// types must be exact and in range: i8 −128…127, u8s8's A 0…255), and the
// output C (f32 or s32) widened to float64. The job's String names the
// routine and the offsets it passes. A type the library lacks wraps
// ErrUnsupported.
func (l *Library) PrepareGemmLowPrecision(dt LowPrecision, transA, transB bool, m, n, k int, opt JobOptions) (*Job, error) {
	l.check()
	if dt < BF16 || dt > U8S8 {
		return nil, fmt.Errorf("cblas: %s: gemm: bad low-precision type %d", l.name, int(dt))
	}
	if err := l.checkJob("gemm "+dt.String(), F32, opt, m, n, k); err != nil {
		return nil, err
	}
	return l.job(func() (jobPtr, error) { return l.jobGemmLowp(dt, transA, transB, m, n, k, opt) })
}
