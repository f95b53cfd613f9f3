// Package asm registers the "asm" backend: peakbench's own kernels
// (github.com/peakbench/peakbench/gobackend/...) with their assembly for
// this CPU (isa.Best): BLIS-style GEMM with AVX2/AVX-512 micro-kernels
// (bf16, f16, i8 and u8s8 too: on AMX tiles, VDPBF16PS, VPDPBUSD or f32
// FMAs, whichever of those the CPU has measures fastest);
// vector loops, exp, tanh, sigmoid, softmax and GEMV in AVX2 or AVX-512
// (isa.ForBytes). It runs the same Go code as the "go" backend, which uses
// the pure-Go kernels, so the two side by side measure what the assembly
// brings.
package asm

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/internal/gokernels"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/conv"
	"github.com/peakbench/peakbench/gobackend/elem"
	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/nn"
	"github.com/peakbench/peakbench/gobackend/reduce"
	"github.com/peakbench/peakbench/gobackend/sparse"
	"github.com/peakbench/peakbench/gobackend/tune"
)

const module = "github.com/peakbench/peakbench"

func init() {
	backend.Register(backend.Factory{
		Name:        "asm",
		Description: "peakbench's assembly kernels (avo-generated AVX2/AVX-512, VNNI, AMX): BLIS-style GEMM (f32, f64, bf16, f16, i8, u8s8), vector loops, vectorized exp/tanh/sigmoid",
		Open:        func(backend.OpenOptions) (backend.Backend, error) { return Open() },
	})
}

// Open returns the backend, or an error when this CPU (or build) has no
// assembly kernels.
func Open() (backend.Backend, error) {
	if isa.Best < isa.AVX2 {
		return nil, errors.New("asm: no assembly kernels here: they need amd64 with AVX2 and FMA, " +
			"and a build without the purego tag (the go backend runs the pure-Go kernels anywhere)")
	}
	return Backend{Level: isa.Best, Features: isa.Features}, nil
}

// Backend is the asm backend at a level, with the extensions its
// low-precision gemm may use (tests pass fewer to reach the fallbacks).
type Backend struct {
	Level    isa.Level
	Features isa.Feature
}

func (Backend) Name() string            { return "asm" }
func (Backend) Device() platform.Device { return platform.HostCPU() }
func (Backend) Close() error            { return nil }

// GoCode says the kernels are Go (and Go assembly) in this process: each
// result counts their Go heap allocations (bench/harness: GoCode).
func (Backend) GoCode() bool { return true }

// gemmKernels names the GEMM's micro-kernels at l, those it runs on
// narrow products, and those the tune file chose for packed ones (shape
// and depth).
func gemmKernels(l isa.Level) string {
	s := gemm.Kernel[float32](l) + " (f32), " + gemm.Kernel[float64](l) + " (f64)"
	var others []string
	for _, k := range []string{gemm.NarrowKernel[float32](l), gemm.NarrowKernel[float64](l), gemm.WideKernel[float32](l), gemm.WideKernel[float64](l), gemm.TunedDepth[float32](l), gemm.TunedDepth[float64](l)} {
		if k != "" {
			others = append(others, k)
		}
	}
	if len(others) > 0 {
		s += "; " + strings.Join(others, ", ")
	}
	return s
}

// Info names the kernel each op runs and the measured maximum errors of the
// transcendentals.
func (b Backend) Info() backend.Info {
	l := b.Level
	ulps := func(fn string) string {
		return fmt.Sprintf("%s, max error %g ulp (f32), %g ulp (f64)",
			elem.MathKernel(l), elem.MaxULP(l, fn, false), elem.MaxULP(l, fn, true))
	}
	return backend.Info{
		Version: "peakbench " + backend.ModuleVersion(module) + ", " + runtime.Version(),
		Details: map[string]string{
			"isa":       l.String(),
			"gemm":      gemmKernels(l),
			"gemv":      gemm.GemvKernel(l),
			"axpy":      elem.WalkKernel(l),
			"add":       elem.WalkKernel(l),
			"mul":       elem.WalkKernel(l),
			"relu":      elem.WalkKernel(l),
			"dot":       reduce.Kernel(l),
			"sum":       reduce.Kernel(l),
			"max":       reduce.Kernel(l),
			"exp":       ulps("exp"),
			"tanh":      ulps("tanh"),
			"sigmoid":   ulps("sigmoid"),
			"softmax":   nn.Kernel(l) + " (vectorized exp)",
			"maxpool":   conv.PoolKernel(l),
			"avgpool":   conv.PoolKernel(l),
			"tuning":    tune.Source(), // the vector kernels' thread crossovers: a tune file or the defaults
			"features":  b.Features.For(l).String(),
			"gemm_lowp": b.lowpKernels(),
			"spmv":      sparse.Kernel(l) + " (x gathered by column index; sell: AVX-512 only, pure Go below)",
			"spmm":      sparse.Kernel(l) + " (Y's row in registers, X's rows loaded by column index)",
		},
	}
}

// lowpKernels lists the micro-kernel and unit of each low-precision gemm.
func (b Backend) lowpKernels() string {
	var parts []string
	for _, dt := range gokernels.LowpDTypes {
		name, unit := gokernels.LowpKernel(dt, b.Level, b.Features)
		parts = append(parts, fmt.Sprintf("%s: %s on %s", dt, name, unit))
	}
	return strings.Join(parts, ", ")
}

// Declared implements backend.Declarer: every op, in f32 and f64, and gemm
// in bf16, f16, i8 and u8s8.
func (Backend) Declared() backend.Support { return gokernels.Declared() }

// Prepare implements backend.Backend. Every op is supported.
func (b Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if w.Op.Layer() {
		return gokernels.PrepareLayer(b.Level, w, in, cfg) // conv, pools, norms (layers.go)
	}
	if w.Op.Fourier() {
		return gokernels.PrepareFFT(b.Level, w, in, cfg), nil // fft, ifft, rfft (fft.go)
	}
	if w.Op == workload.GEMM && w.DType.GEMMOnly() {
		return gokernels.PrepareLowp(b.Level, b.Features, w, in, cfg) // bf16, f16, i8, u8s8 gemm
	}
	if w.Op.Sparse() {
		return gokernels.PrepareSparse(b.Level, w, in, cfg) // spmv, spmm: csr or sell
	}
	return gokernels.Prepare(b.Level, b.Features, w, in, cfg), nil
}
