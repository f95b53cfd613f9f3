package onednn

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/onednn"
)

// gemmTypes maps the workload's gemm dtypes to oneDNN's matmul types:
// i8 is s8×s8, u8s8 u8 A × s8 B, both into s32; bf16 and f16 into f32.
var gemmTypes = map[workload.DType]onednn.GEMMType{
	workload.F32:  onednn.GEMMF32,
	workload.BF16: onednn.GEMMBF16,
	workload.F16:  onednn.GEMMF16,
	workload.I8:   onednn.GEMMS8S8,
	workload.U8S8: onednn.GEMMU8S8,
}

// gemmDTypes are the gemm dtypes the library has a matmul for here,
// exact where they are integer (exactInteger).
func (b *Backend) gemmDTypes() []workload.DType {
	var dts []workload.DType
	for _, dt := range append(append([]workload.DType{}, workload.DTypes...), workload.GEMMDTypes...) {
		if t, ok := gemmTypes[dt]; ok && b.lib.HasGEMM(t) && (!dt.Integer() || b.exactInteger(dt)) {
			dts = append(dts, dt)
		}
	}
	return dts
}

// exactInteger reports whether oneDNN's matmul in the integer dtype dt is
// exact over the type's whole range here: on VNNI or AMX. Its int8 code
// without VNNI (gemm:jit under AVX2 or AVX-512 alone) adds pairs of
// u8×s8 products in saturating 16-bit lanes (VPMADDUBSW), which full-range
// operands overflow (s8×s8 3×5×7 under ONEDNN_MAX_CPU_ISA=AVX512_CORE gave
// 12030 for 13545): that gemm is not declared.
func (b *Backend) exactInteger(dt workload.DType) bool {
	switch computeUnit(b.lib.GEMMImplementation(gemmTypes[dt]), dt, b.lib.EffectiveISA()) {
	case peak.UnitAVX512VNNI, peak.UnitAVXVNNI, peak.UnitAMXInt8:
		return true
	}
	return false
}

// prepareGEMM prepares a matmul: the operands converted to the dtype's
// types before the clock starts, the matmul alone timed.
func (b *Backend) prepareGEMM(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	s := w.Shape
	opt := jobOptions(cfg)
	job, err := b.lib.PrepareGEMM(gemmTypes[w.DType], s.TransA, s.TransB, s.M, s.N, s.K, opt)
	if err != nil {
		return nil, wrap(w, err)
	}
	for i := range 2 {
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, wrap(w, err)
		}
	}
	impl := onednn.Implementation(job)
	return gemmKernel{kernel{job}, impl, computeUnit(impl, w.DType, b.lib.EffectiveISA())}, nil
}

// gemmKernel names oneDNN's implementation and the unit it runs on.
type gemmKernel struct {
	kernel
	impl, unit string
}

func (k gemmKernel) Implementation() string { return k.impl }
func (k gemmKernel) ComputeUnit() string    { return k.unit }
