package onednn

import (
	"strings"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// isaUnit is the unit that runs each kind of dtype in code written for one
// of oneDNN's instruction sets (its cpu_isa names, as in impl_info_str).
type isaUnit struct {
	isa    string // the ISA's name, or the start of its names when prefix
	prefix bool
	// the units of f32, bf16, f16 and the integer types (i8, u8s8);
	// "" where the name does not tell
	f32, bf16, f16, int8 string
}

// isaUnits lists the ISAs, the more specific first. bf16 and f16 code on
// an ISA without their instructions converts to f32 and uses FMAs; int8
// code without VNNI multiplies with VPMADDUBSW and VPMADDWD.
var isaUnits = []isaUnit{
	{isa: "avx512_core_amx_fp16", f32: peak.UnitFMA, bf16: peak.UnitAMXBF16, f16: peak.UnitAMXFP16, int8: peak.UnitAMXInt8},
	// "avx512_core_amx" (oneDNN 2.7 on), "avx512_core_amx_bf16" and
	// "avx512_core_amx_int8" (2.6): f16 code there may run on AMX-FP16 or
	// on AVX512-FP16, which the name does not say.
	{isa: "avx512_core_amx", prefix: true, f32: peak.UnitFMA, bf16: peak.UnitAMXBF16, int8: peak.UnitAMXInt8},
	{isa: "avx512_core_fp16", f32: peak.UnitFMA, bf16: peak.UnitAVX512BF16, f16: peak.UnitAVX512FP16, int8: peak.UnitAVX512VNNI},
	{isa: "avx512_core_bf16", f32: peak.UnitFMA, bf16: peak.UnitAVX512BF16, f16: peak.UnitFMA, int8: peak.UnitAVX512VNNI},
	{isa: "avx512_core_vnni", f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitAVX512VNNI},
	{isa: "avx512_core", f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitInt8FMA},
	{isa: "avx2_vnni", prefix: true, f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitAVXVNNI},
	{isa: "avx2", f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitInt8FMA},
	{isa: "avx", f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitInt8FMA},
	{isa: "sse41", f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitInt8FMA},
	// the reference implementations ("ref:any"): plain C loops, compiled
	// for the f32 and integer vector units at best
	{isa: "any", f32: peak.UnitFMA, bf16: peak.UnitFMA, f16: peak.UnitFMA, int8: peak.UnitInt8FMA},
}

// unitOfISA is the unit isa's code runs dt on, or "".
func unitOfISA(isa string, dt workload.DType) string {
	for _, u := range isaUnits {
		if isa != u.isa && !(u.prefix && strings.HasPrefix(isa, u.isa)) {
			continue
		}
		switch {
		case dt == workload.F32:
			return u.f32
		case dt == workload.BF16:
			return u.bf16
		case dt == workload.F16:
			return u.f16
		case dt.Integer():
			return u.int8
		}
		return ""
	}
	return ""
}

// computeUnit is the unit of the core that runs a matmul oneDNN
// implemented as impl (its impl_info_str) in dt, for the result's
// ceiling (backend.KernelComputeUnit): from the ISA the name ends in
// ("brg:avx512_core_amx_int8": AMX's int8 tiles), or for "gemm:jit",
// oneDNN's own GEMM, whose name has no ISA, from the widest ISA the
// library dispatches to (isa, dnnl_get_effective_cpu_isa). "" when it
// cannot be told.
func computeUnit(impl string, dt workload.DType, isa string) string {
	kind, name, ok := strings.Cut(impl, ":")
	if !ok {
		return ""
	}
	if kind == "gemm" && name == "jit" {
		return gemmJITUnit(dt, isa)
	}
	return unitOfISA(name, dt)
}

// gemmJITUnit is the unit of oneDNN 2.x's own GEMM ("gemm:jit") under the
// effective ISA isa. Its kernels are AVX2 and AVX-512 code (f32; bf16
// with VDPBF16PS where there is AVX512-BF16; s8/u8 with VPDPBUSD where
// there is AVX512-VNNI or AVX-VNNI), none on AMX: an AMX or AVX512-FP16
// machine runs the AVX512-BF16 ones. (Under ONEDNN_MAX_CPU_ISA=AVX2_VNNI
// its int8 gemm is exact over the full s8 and u8 ranges, which the
// VPMADDUBSW kernels are not: see exactInteger.)
func gemmJITUnit(dt workload.DType, isa string) string {
	if strings.HasPrefix(isa, "avx512_core_amx") || isa == "avx512_core_fp16" {
		isa = "avx512_core_bf16"
	}
	if dt == workload.F16 {
		return "" // no f16 GEMM in oneDNN 2.x: an unknown newer one
	}
	return unitOfISA(isa, dt)
}
