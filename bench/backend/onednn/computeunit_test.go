package onednn

import (
	"testing"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// TestComputeUnit: the implementation names oneDNN 2.6.3 printed for
// matmuls on an Intel Xeon with AMX (ONEDNN_VERBOSE=1 and impl_info_str,
// uncapped and under ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16,
// AVX512_CORE_VNNI, AVX512_CORE, AVX2_VNNI, AVX2), with the effective ISA
// each ran under; then names of other versions and machines.
func TestComputeUnit(t *testing.T) {
	for _, c := range []struct {
		impl string
		dt   workload.DType
		isa  string
		want string
	}{
		// printed by oneDNN 2.6.3
		{"brg:avx512_core_amx_bf16", workload.BF16, "avx512_core_amx", peak.UnitAMXBF16},
		{"brg:avx512_core_amx_int8", workload.I8, "avx512_core_amx", peak.UnitAMXInt8},
		{"brg:avx512_core_amx_int8", workload.U8S8, "avx512_core_amx", peak.UnitAMXInt8},
		{"brg:avx512_core", workload.F32, "avx512_core_amx", peak.UnitFMA},
		{"brg:avx512_core_bf16", workload.BF16, "avx512_core_bf16", peak.UnitAVX512BF16},
		{"brg:avx512_core_vnni", workload.I8, "avx512_core_bf16", peak.UnitAVX512VNNI},
		{"brg:avx512_core_vnni", workload.U8S8, "avx512_core_vnni", peak.UnitAVX512VNNI},
		{"gemm:jit", workload.BF16, "avx512_core_vnni", peak.UnitFMA},
		{"gemm:jit", workload.BF16, "avx512_core", peak.UnitFMA},
		{"gemm:jit", workload.I8, "avx512_core", peak.UnitInt8FMA},
		{"gemm:jit", workload.U8S8, "avx512_core", peak.UnitInt8FMA},
		{"gemm:jit", workload.F32, "avx2_vnni", peak.UnitFMA},
		{"gemm:jit", workload.I8, "avx2_vnni", peak.UnitAVXVNNI},
		{"gemm:jit", workload.I8, "avx2", peak.UnitInt8FMA},
		{"gemm:jit", workload.F32, "avx2", peak.UnitFMA},
		{"gemm:jit", workload.F32, "sse41", peak.UnitFMA},
		// oneDNN's own GEMM has no AMX kernels
		{"gemm:jit", workload.BF16, "avx512_core_amx", peak.UnitAVX512BF16},
		{"gemm:jit", workload.I8, "avx512_core_amx", peak.UnitAVX512VNNI},
		// other versions' and machines' names
		{"brg:avx512_core_amx", workload.BF16, "avx512_core_amx", peak.UnitAMXBF16},
		{"brg:avx512_core_amx", workload.I8, "avx512_core_amx", peak.UnitAMXInt8},
		{"brg:avx512_core_amx", workload.F16, "avx512_core_amx", ""},
		{"brg:avx512_core_amx_fp16", workload.F16, "avx512_core_amx_fp16", peak.UnitAMXFP16},
		{"brg:avx512_core_fp16", workload.F16, "avx512_core_fp16", peak.UnitAVX512FP16},
		{"brg:avx2_vnni", workload.U8S8, "avx2_vnni", peak.UnitAVXVNNI},
		{"brg:avx2_vnni_2", workload.I8, "avx2_vnni_2", peak.UnitAVXVNNI},
		{"brg:avx2", workload.F32, "avx2", peak.UnitFMA},
		{"ref:any", workload.F32, "avx2", peak.UnitFMA},
		{"ref:any", workload.BF16, "avx512_core", peak.UnitFMA},
		{"ref:any", workload.I8, "avx2", peak.UnitInt8FMA},
		{"gemm:jit", workload.F16, "avx512_core_fp16", ""},
		// what cannot be told
		{"unknown", workload.BF16, "avx512_core_amx", ""},
		{"brg:avx10_9", workload.BF16, "avx512_core_amx", ""},
		{"", workload.I8, "", ""},
	} {
		if got := computeUnit(c.impl, c.dt, c.isa); got != c.want {
			t.Errorf("computeUnit(%q, %s, %q) = %q; want %q", c.impl, c.dt, c.isa, got, c.want)
		}
	}
}
