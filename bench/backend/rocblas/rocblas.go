// Package rocblas registers the "rocblas" backend: AMD's rocBLAS gemm (f32,
// f64) on a HIP device, through github.com/peakbench/peakbench/cgo/gpurt
// (the HIP runtime) and cgo/rocblas, loaded at run time. Kernels are timed
// with HIP events, like the CUDA backends of bench/backend/nvidia. The device
// (-device, backend.OpenOptions.Device) is opened and its peaks measured by
// the HIP platform, bench/platform/hip; cold-cache copies are
// bench/platform/gpudev's, as for every GPU. Results name the device
// "rocm:N NAME".
package rocblas

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/platform/hip"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/cgo/rocblas"
)

func init() {
	backend.Register(backend.Factory{
		Name:        "rocblas",
		Description: "AMD rocBLAS on a ROCm GPU through HIP, loaded at run time (gemm f32/f64)",
		Open:        func(o backend.OpenOptions) (backend.Backend, error) { return Open(o.Device) },
		Isolate:     true,
	})
}

// Backend is rocBLAS as a peakbench backend.
type Backend struct {
	dev *gpurt.Device
	lib *rocblas.Library
}

// Open opens HIP device index and rocBLAS on it.
func Open(index int) (*Backend, error) {
	dev, err := hip.OpenDevice(index)
	if err != nil {
		return nil, err
	}
	lib, err := rocblas.Open(dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return &Backend{dev: dev, lib: lib}, nil
}

// Name implements backend.Backend.
func (b *Backend) Name() string { return "rocblas" }

// Device implements backend.Backend: "rocm:0 AMD Instinct MI300X".
func (b *Backend) Device() platform.Device { return gpudev.Of(b.dev) }

// Info implements backend.Backend.
func (b *Backend) Info() backend.Info {
	info := b.dev.Info()
	rt := b.dev.Runtime()
	d := map[string]string{
		"device":          b.Device().String(),
		"compute_units":   strconv.Itoa(info.SMs),
		"clock_mhz":       strconv.Itoa(info.ClockKHz / 1000),
		"memory":          fmt.Sprintf("%.1f GiB", float64(info.TotalMemory)/(1<<30)),
		"pci_bus_id":      info.PCIBusID,
		"hip":             rt.Path(),
		"hip_version":     rt.Version(),
		"hip_driver":      rt.DriverVersion(),
		"gfx_approximate": info.ComputeCapability(),
	}
	for k, v := range b.lib.Details() {
		d[k] = v
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Close implements backend.Backend.
func (b *Backend) Close() error {
	b.lib.Close()
	return b.dev.Close()
}

// Declared implements backend.Declarer: gemm in f32 and f64.
func (b *Backend) Declared() backend.Support {
	return backend.Support{}.Add(workload.DTypes, workload.GEMM)
}

// Prepare implements backend.Backend: gemm in f32 and f64.
func (b *Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		return nil, backend.Unsupported("rocblas", w)
	}
	dt := gpurt.F32
	if w.DType == workload.F64 {
		dt = gpurt.F64
	}
	s := w.Shape
	job, err := b.lib.PrepareGEMM(dt, s.TransA, s.TransB, s.M, s.N, s.K, gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)})
	if err != nil {
		if errors.Is(err, gpurt.ErrUnsupported) { // this shape (rocBLAS's int dimensions)
			return nil, backend.UnsupportedShape(fmt.Errorf("rocblas: %v: %v: %w", w, err, backend.ErrUnsupported))
		}
		return nil, fmt.Errorf("rocblas: %v: %w", w, err)
	}
	for i := 0; i < 2; i++ {
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, fmt.Errorf("rocblas: %v: %w", w, err)
		}
	}
	return kernel{job}, nil
}

type kernel struct{ job *gpurt.Job }

func (k kernel) Run(iters int) (time.Duration, error) { return k.job.Run(iters) }
func (k kernel) Output() ([]float64, error)           { return k.job.Output() }
func (k kernel) Close() error                         { return k.job.Close() }
func (k kernel) String() string                       { return k.job.String() }
