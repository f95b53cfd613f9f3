package cblas

import (
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cblas"
)

// dftKinds is the DFTI transform of each Fourier op.
var dftKinds = map[workload.Op]cblas.DFTKind{
	workload.FFT:  cblas.DFTForward,
	workload.IFFT: cblas.DFTBackward,
	workload.RFFT: cblas.DFTR2C,
}

// declareFFT adds the Fourier transforms in f32 and f64 where the library
// is MKL with DFTI (cblas.Library.HasDFT).
func (b *Backend) declareFFT(s backend.Support) {
	if b.lib.HasDFT() {
		s.Add(workload.DTypes, workload.FFTOps...)
	}
}

// prepareFFT prepares a Fourier transform through MKL's DFTI: one
// descriptor for the batch, out of place, committed for the job's thread
// count; the commit's time is the kernel's plan time.
func (b *Backend) prepareFFT(w workload.Workload, in workload.Data, dt cblas.DType, opt cblas.JobOptions) (backend.Kernel, error) {
	s := w.Shape
	dims := []int{s.N}
	if s.K > 0 {
		dims = []int{s.K, s.N}
	}
	job, commit, err := b.lib.PrepareDFT(dt, cblas.DFTSpec{Kind: dftKinds[w.Op], Dims: dims, Batch: s.M}, opt)
	if err != nil {
		return nil, b.wrap(w, err)
	}
	if err := job.SetInput(0, in.Args[0]); err != nil {
		job.Close()
		return nil, b.wrap(w, err)
	}
	return fftKernel{kernel{job}, commit}, nil
}

// fftKernel is a committed DFTI descriptor: its commit is its plan
// (backend.KernelPlanTime), kept apart from the timed runs.
type fftKernel struct {
	kernel
	commit time.Duration
}

func (k fftKernel) PlanTime() time.Duration { return k.commit }
