// Package purego registers the "go" backend: peakbench's own pure-Go
// kernels (github.com/peakbench/peakbench/gobackend/... at isa.Generic), a
// blocked, goroutine-parallel GEMM and parallel loops for everything else.
// The "asm" backend (bench/backend/asm) runs the same code with the
// assembly kernels.
package purego

import (
	"runtime"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/internal/gokernels"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

const module = "github.com/peakbench/peakbench"

func init() {
	backend.Register(backend.Factory{
		Name:        "go",
		Description: "peakbench's pure-Go kernels: blocked parallel GEMM, parallel loops",
		Open:        func(backend.OpenOptions) (backend.Backend, error) { return Backend{}, nil },
	})
}

// Backend is the go backend.
type Backend struct{}

func (Backend) Name() string            { return "go" }
func (Backend) Device() platform.Device { return platform.HostCPU() }
func (Backend) Close() error            { return nil }

// GoCode says the kernels are Go code in this process: each result counts
// their Go heap allocations (bench/harness: GoCode).
func (Backend) GoCode() bool { return true }

func (Backend) Info() backend.Info {
	return backend.Info{
		Version: "peakbench " + backend.ModuleVersion(module) + ", " + runtime.Version(),
		Details: map[string]string{
			"kernels":   "pure Go",
			"gemm_lowp": "bf16, f16 widened to f32 (sgemm3x3Generic); i8, u8s8 widened to int32 (i32gemm3x3Generic)",
			"tuning":    tune.Source(), // the vector kernels' thread crossovers, shared with asm
		},
	}
}

// Declared implements backend.Declarer: every op, in f32 and f64, and gemm
// in bf16, f16, i8 and u8s8.
func (Backend) Declared() backend.Support { return gokernels.Declared() }

// Prepare implements backend.Backend. Every op is supported, with the
// pure-Go kernels (isa.Generic) whatever the CPU.
func (Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if w.Op.Layer() {
		return gokernels.PrepareLayer(isa.Generic, w, in, cfg) // conv, pools, norms (layers.go)
	}
	if w.Op.Fourier() {
		return gokernels.PrepareFFT(isa.Generic, w, in, cfg), nil // fft, ifft, rfft (fft.go)
	}
	if w.Op == workload.GEMM && w.DType.GEMMOnly() {
		return gokernels.PrepareLowp(isa.Generic, 0, w, in, cfg) // bf16, f16, i8, u8s8 gemm
	}
	if w.Op.Sparse() {
		return gokernels.PrepareSparse(isa.Generic, w, in, cfg) // spmv, spmm: csr or sell
	}
	return gokernels.Prepare(isa.Generic, 0, w, in, cfg), nil
}
