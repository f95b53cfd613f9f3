package cblas

import (
	"testing"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// The code paths' texts as MKL 2020.4 reports them (MKL_ENABLE_INSTRUCTIONS
// AVX2, AVX512, AVX512_E1 and the default on an AVX512-BF16 Xeon), and one
// with AMX in the form oneMKL's read.
const (
	mklAVX2    = "Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled processors"
	mklAVX512  = "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) enabled processors"
	mklVNNI    = "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) with support of Intel(R) Deep Learning Boost (Intel(R) DL Boost)"
	mklBF16    = mklVNNI + " and bfloat16"
	mklAMX     = "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) with support for INT8, BF16, FP16 (limited) instructions, and Intel(R) Advanced Matrix Extensions (Intel(R) AMX) with INT8 and BF16"
	mklAVXVNNI = "Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) with support of Intel(R) Deep Learning Boost (Intel(R) DL Boost)"
)

func TestMKLUnit(t *testing.T) {
	const (
		bf16         = "cblas_gemm_bf16bf16f32"
		f16          = "cblas_gemm_f16f16f32"
		s8u8         = "cblas_gemm_s8u8s32"
		s16          = "cblas_gemm_s16s16s32"
		bf, i8, u8s8 = workload.BF16, workload.I8, workload.U8S8
	)
	for _, tc := range []struct {
		processor, routine string
		dt                 workload.DType
		want               string
	}{
		{mklBF16, bf16, bf, peak.UnitAVX512BF16},
		{mklBF16, s8u8, i8, peak.UnitAVX512VNNI},
		{mklBF16, s8u8, u8s8, peak.UnitAVX512VNNI},
		{mklVNNI, bf16, bf, peak.UnitFMA}, // no bf16 instructions: converted to f32
		{mklVNNI, s8u8, u8s8, peak.UnitAVX512VNNI},
		{mklAVX512, bf16, bf, peak.UnitFMA},
		{mklAVX512, s16, i8, ""}, // s8u8s32 saturates there: the s16 routine, no measured unit
		{mklAVX2, bf16, bf, peak.UnitFMA},
		{mklAVX2, s16, u8s8, ""},
		{mklAVXVNNI, s8u8, i8, peak.UnitAVXVNNI},
		{mklAMX, bf16, bf, peak.UnitAMXBF16},
		{mklAMX, s8u8, i8, peak.UnitAMXInt8},
		{mklAMX, f16, workload.F16, ""}, // undocumented per path
		{mklBF16, "", bf, ""},           // no routine
		{"unknown processor", bf16, bf, ""},
	} {
		if got := mklUnit(tc.processor, tc.routine, tc.dt); got != tc.want {
			t.Errorf("mklUnit(%.60q…, %s, %s) = %q, want %q", tc.processor, tc.routine, tc.dt, got, tc.want)
		}
	}
}

func TestComputeUnitByLibrary(t *testing.T) {
	if got := computeUnit("openblas", map[string]string{"code_path": "Cooperlake"}, "cblas_sbgemm", workload.BF16); got != peak.UnitAVX512BF16 {
		t.Errorf("openblas Cooperlake bf16: %q", got)
	}
	if got := computeUnit("openblas", map[string]string{"code_path": "Haswell"}, "cblas_sbgemm", workload.BF16); got != "" {
		t.Errorf("openblas Haswell bf16: %q, want \"\"", got)
	}
	if got := computeUnit("mkl", map[string]string{"processor": mklBF16}, "cblas_gemm_bf16bf16f32", workload.BF16); got != peak.UnitAVX512BF16 {
		t.Errorf("mkl bf16: %q", got)
	}
	if got := computeUnit("blis", map[string]string{"code_path": "skx"}, "", workload.BF16); got != "" {
		t.Errorf("blis: %q", got)
	}
}
