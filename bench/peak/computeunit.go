package peak

// Compute units: the part of the core that ran a result's arithmetic. A
// low-precision gemm is a share of the peak of the unit that ran it (AMX,
// VNNI, AVX512-BF16, or f32 FMAs after conversion), so each unit has its
// own ComputePeak per dtype (ComputePeak.Unit); a kernel names its unit
// (backend.KernelComputeUnit), and a result whose kernel does not is a
// share of the fastest unit the machine has for its dtype.
const (
	UnitFMA        = "fma"         // VFMADD on f32/f64 lanes (bf16/f16 inputs converted to f32)
	UnitAVX512BF16 = "avx512-bf16" // VDPBF16PS: bf16 pairs into f32
	UnitAVX512FP16 = "avx512-fp16" // VFMADD…PH: f16 FMAs (f16 accumulation)
	UnitAVX512VNNI = "avx512-vnni" // VPDPBUSD zmm: u8×s8 quads into s32
	UnitAVXVNNI    = "avx-vnni"    // VPDPBUSD ymm, VEX-encoded
	UnitInt8FMA    = "avx2-int8"   // VPMADDUBSW + VPMADDWD + VPADDD, where there is no VNNI
	UnitAMXBF16    = "amx-bf16"    // TDPBF16PS tiles
	UnitAMXInt8    = "amx-int8"    // TDPBUSD/TDPBSSD tiles
	UnitAMXFP16    = "amx-fp16"    // TDPFP16PS tiles
)

// ComputeForUnit returns the peak of unit for dtype on exactly `threads`
// threads; unit "" is ComputeFor's (the f32/f64 FMA peak, or the fastest
// unit of a low-precision dtype).
func (p Peaks) ComputeForUnit(dtype, unit string, threads int) (ComputePeak, bool) {
	if unit == "" {
		return p.ComputeFor(dtype, threads)
	}
	for _, c := range p.Compute {
		if c.DType == dtype && c.Threads == threads && c.UnitName() == unit {
			return c, true
		}
	}
	return ComputePeak{}, false
}

// UnitName is c's unit; entries from files older than units are FMA peaks.
func (c ComputePeak) UnitName() string {
	if c.Unit == "" {
		return UnitFMA
	}
	return c.Unit
}
