package onednn

import (
	"fmt"
	"unsafe"
)

// GEMMType is the element types of a matmul, A × B → C.
type GEMMType int

// The matmul types (include/peakbench.h, pb_dnnl_gemm_type).
const (
	GEMMF32  GEMMType = iota // f32 × f32 → f32
	GEMMBF16                 // bf16 × bf16 → f32
	GEMMF16                  // f16 × f16 → f32
	GEMMS8S8                 // s8 × s8 → s32, exact
	GEMMU8S8                 // u8 × s8 → s32, exact (VNNI's VPDPBUSD form)
)

var gemmNames = [...]string{"f32", "bf16", "f16", "s8s8", "u8s8"}

func (t GEMMType) String() string {
	if t >= 0 && int(t) < len(gemmNames) {
		return gemmNames[t]
	}
	return fmt.Sprintf("GEMMType(%d)", int(t))
}

// Integer reports whether t's operands are integers (s32 output).
func (t GEMMType) Integer() bool { return t == GEMMS8S8 || t == GEMMU8S8 }

// HasGEMM reports whether the loaded oneDNN has a matmul implementation
// for t on this CPU, under the ISA cap ONEDNN_MAX_CPU_ISA if set (oneDNN
// 2.x has none for f16 on CPUs; bf16 needs AVX-512).
func (l *Library) HasGEMM(t GEMMType) bool { return l.GEMMImplementation(t) != "" }

// GEMMImplementation returns the implementation oneDNN picks for a 64³
// matmul of t (its impl_info_str, e.g. "brg:avx512_core_amx_int8"), or ""
// when it has none. Asked of oneDNN once per type and kept. A job of
// another shape may get another implementation: Implementation(job) says
// which it runs.
func (l *Library) GEMMImplementation(t GEMMType) string {
	l.check()
	if t < GEMMF32 || t > GEMMU8S8 {
		return ""
	}
	l.gemmOnce.Do(func() {
		for i := range l.gemmImpl {
			l.gemmImpl[i] = l.gemmImplC(GEMMType(i))
		}
	})
	return l.gemmImpl[t]
}

// EffectiveISA returns the widest instruction set oneDNN may dispatch to
// (dnnl_get_effective_cpu_isa, e.g. "avx512_core_amx"), or "" when the
// library cannot say. It is what tells the unit of a "gemm:jit" matmul.
func (l *Library) EffectiveISA() string { return l.isa }

// PrepareGEMM creates C = A·B with oneDNN's matmul primitive, row-major:
// arguments 0 A (m×k, or k×m when transA), 1 B (k×n, or n×k when transB),
// 2 C (m×n, the output). SetInput converts to the operands' types (round
// to nearest even; an integer out of its type's range, or not an integer,
// is an error wrapping ErrInvalid); Output widens C. The job's
// Implementation is oneDNN's choice. A type the library has no
// implementation for gives an error wrapping ErrUnsupported.
func (l *Library) PrepareGEMM(t GEMMType, transA, transB bool, m, n, k int, opt JobOptions) (*Job, error) {
	l.check()
	if t < GEMMF32 || t > GEMMU8S8 {
		return nil, fmt.Errorf("onednn: gemm: bad type %d", int(t))
	}
	if m < 1 || n < 1 || k < 1 {
		return nil, fmt.Errorf("onednn: gemm %s: shape m=%d n=%d k=%d: each must be at least 1", t, m, n, k)
	}
	return l.newJob("gemm "+t.String(), opt, func() (unsafe.Pointer, error) {
		return l.gemmJob(t, transA, transB, m, n, k, opt)
	})
}
