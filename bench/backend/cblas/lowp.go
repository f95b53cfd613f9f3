package cblas

import (
	"strings"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cblas"
)

// prepareLowPrecision prepares a gemm in a low-precision dtype the library
// declares: the library's routine on operands converted when the job is
// prepared, the timed iteration the call alone.
func (b *Backend) prepareLowPrecision(w workload.Workload, in workload.Data, opt cblas.JobOptions) (backend.Kernel, error) {
	lp := lowPrecision[w.DType]
	s := w.Shape
	job, err := b.lib.PrepareGemmLowPrecision(lp, s.TransA, s.TransB, s.M, s.N, s.K, opt)
	if err != nil {
		return nil, b.wrap(w, err)
	}
	for i := range 2 {
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, b.wrap(w, err)
		}
	}
	routine := b.lib.GemmRoutine(lp)
	impl := routine
	if i := strings.Index(job.String(), " ("); i >= 0 {
		impl += job.String()[i:] // the offsets it passes, or why it runs the s16 routine
	}
	return lowpKernel{kernel{job}, impl, computeUnit(b.name, b.lib.Details(), routine, w.DType)}, nil
}

// lowpKernel is a low-precision gemm: it says which routine ran and with
// which offsets (backend.KernelImplementation; the code path is in the
// backend's details), and the unit that path computes on
// (backend.KernelComputeUnit; "" when the code path does not tell).
type lowpKernel struct {
	kernel
	impl, unit string
}

func (k lowpKernel) Implementation() string { return k.impl }
func (k lowpKernel) ComputeUnit() string    { return k.unit }
