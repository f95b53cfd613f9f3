package cblas

import (
	"strings"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// The unit a CBLAS library's low-precision gemm runs on follows from the
// code path the library chose for this CPU (what it reports, capped by
// MKL_ENABLE_INSTRUCTIONS and the like), never from the CPU's model. ""
// where that cannot be told: the result is then a share of the fastest
// unit of its dtype, with a note.

// mklUnit maps the code path MKL runs (MKLVersion.Processor, the text
// MKL_VERBOSE prints, e.g. "Intel(R) Advanced Vector Extensions 512
// (Intel(R) AVX-512) with support of Intel(R) Deep Learning Boost (Intel(R)
// DL Boost) and bfloat16") and the routine a gemm calls to its unit:
//
//   - AMX (oneMKL on a CPU with AMX): bf16 on amx-bf16, i8 and u8s8 on
//     amx-int8; MKL may still take AVX-512 for small shapes, which then
//     read as a low share of the AMX peak.
//   - AVX-512 "with DL Boost and bfloat16": bf16 by VDPBF16PS, the integers
//     by VPDPBUSD (libmkl_avx512.so of MKL 2020 holds both).
//   - AVX-512 with DL Boost alone (VNNI, no bf16 instructions): bf16
//     converted to f32 for FMAs, the integers by VPDPBUSD.
//   - AVX2 with DL Boost (AVX-VNNI): the integers by the ymm VPDPBUSD.
//   - AVX-512 or AVX2 alone: bf16 on FMAs; the integers run
//     cblas_gemm_s16s16s32 there (s8u8s32 saturates), whose VPMADDWD is a
//     unit of no measured peak: "".
//   - f16: "" everywhere; which instructions MKL's f16 gemm uses per path
//     is not documented.
func mklUnit(processor, routine string, dt workload.DType) string {
	if routine == "" || dt == workload.F16 || strings.Contains(routine, "s16s16s32") {
		return ""
	}
	integer := dt == workload.I8 || dt == workload.U8S8
	dlBoost := strings.Contains(processor, "Deep Learning Boost") || strings.Contains(processor, "DL Boost")
	switch {
	case strings.Contains(processor, "Advanced Matrix Extensions") || strings.Contains(processor, "(Intel(R) AMX)"):
		if integer {
			return peak.UnitAMXInt8
		}
		return peak.UnitAMXBF16
	case strings.Contains(processor, "AVX-512"):
		switch {
		case integer && dlBoost:
			return peak.UnitAVX512VNNI
		case integer:
			return ""
		case dlBoost && strings.Contains(processor, "bfloat16"):
			return peak.UnitAVX512BF16
		}
		return peak.UnitFMA
	case strings.Contains(processor, "AVX2"):
		switch {
		case integer && dlBoost:
			return peak.UnitAVXVNNI
		case integer:
			return ""
		}
		return peak.UnitFMA
	}
	return ""
}

// openblasUnit maps OpenBLAS's kernel set (openblas_get_corename) for its
// cblas_sbgemm: the Cooper Lake kernels are VDPBF16PS; elsewhere OpenBLAS
// builds its bf16 gemm from whatever the core set has, which it does not
// report.
func openblasUnit(corename string, dt workload.DType) string {
	if dt == workload.BF16 && strings.EqualFold(corename, "cooperlake") {
		return peak.UnitAVX512BF16
	}
	return ""
}

// computeUnit is the unit of a low-precision gemm of dt on the library
// named name, whose details (cblas.Library.Details) say its code path, by
// routine.
func computeUnit(name string, details map[string]string, routine string, dt workload.DType) string {
	switch name {
	case "mkl":
		return mklUnit(details["processor"], routine, dt)
	case "openblas":
		return openblasUnit(details["code_path"], dt)
	}
	return ""
}
