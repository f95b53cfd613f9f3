package nvidia

import (
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	cudaplat "github.com/peakbench/peakbench/bench/platform/cuda"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cufft"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

func init() {
	backend.Register(backend.Factory{
		Name:        "cufft",
		Description: "NVIDIA cuFFT on a CUDA GPU, loaded at run time (fft, ifft, rfft: batched 1-D and 2-D; f32, f64)",
		Open:        func(o backend.OpenOptions) (backend.Backend, error) { return OpenCUFFT(o.Device) },
		Isolate:     true,
	})
}

// CUFFT is cuFFT as a peakbench backend: a backend of its own rather than
// part of cublas, since it is a library of its own (libcufft, its own
// wheel), which a machine may lack while it has cuBLAS, and its results
// name it.
type CUFFT struct {
	base
	lib *cufft.Library
}

// OpenCUFFT opens CUDA device index and cuFFT on it.
func OpenCUFFT(index int) (*CUFFT, error) {
	dev, err := cudaplat.OpenDevice(index)
	if err != nil {
		return nil, err
	}
	lib, err := cufft.Open(dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return &CUFFT{base: newBase("cufft", dev), lib: lib}, nil
}

// Library returns the library behind the backend.
func (b *CUFFT) Library() *cufft.Library { return b.lib }

// Info implements backend.Backend.
func (b *CUFFT) Info() backend.Info {
	d := b.details()
	for k, v := range b.lib.Details() {
		d[k] = v
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Declared implements backend.Declarer: fft, ifft and rfft in f32
// (complex64) and f64 (complex128).
func (b *CUFFT) Declared() backend.Support {
	return backend.Support{}.Add(workload.DTypes, workload.FFTOps...)
}

// Close implements backend.Backend.
func (b *CUFFT) Close() error {
	b.lib.Close()
	b.mon.Close()
	return b.dev.Close()
}

// fftKinds is cuFFT's transform of each Fourier op.
var fftKinds = map[workload.Op]cufft.Kind{
	workload.FFT:  cufft.Forward,
	workload.IFFT: cufft.Backward,
	workload.RFFT: cufft.R2C,
}

// Prepare implements backend.Backend: one plan for the batch, made here
// (its time is the kernel's plan time), out of place.
func (b *CUFFT) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		return nil, backend.Unsupported("cufft", w)
	}
	s := w.Shape
	dims := []int{s.N}
	if s.K > 0 {
		dims = []int{s.K, s.N}
	}
	opt := gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)}
	job, plan, err := b.lib.PrepareFFT(gpuDTypes[w.DType], cufft.Spec{Kind: fftKinds[w.Op], Dims: dims, Batch: s.M}, opt)
	if err != nil {
		return nil, wrap("cufft", w, err)
	}
	if err := setInputs(job, in.Args[0]); err != nil {
		job.Close()
		return nil, wrap("cufft", w, err)
	}
	return fftKernel{kernel{job, b.mon}, plan}, nil
}

// fftKernel is a planned transform: cufftPlanMany's time is its plan time
// (backend.KernelPlanTime), kept apart from the timed runs.
type fftKernel struct {
	kernel
	plan time.Duration
}

// PlanTime implements backend.KernelPlanTime.
func (k fftKernel) PlanTime() time.Duration { return k.plan }
