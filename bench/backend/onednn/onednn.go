// Package onednn registers the "onednn" backend: oneDNN's CPU primitives
// loaded at run time through github.com/peakbench/peakbench/cgo/onednn —
// relu, sigmoid, tanh and exp (eltwise), add and mul (binary), sum and max
// (reduction), softmax over rows, the layers (layers.go), and gemm with the
// matmul primitive in f32 and, where the library has an implementation on
// the CPU at hand, bf16, f16, i8 and u8s8 (gemm.go); quantize and
// dequantize in i8 and u8 as reorders with scales and zero points
// (quant.go). oneDNN 2.x has no f64
// data type: f64 workloads are unsupported. Kernels are timed in C, on C
// buffers.
package onednn

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/onednn"
)

func init() {
	backend.Register(backend.Factory{
		Name:        "onednn",
		Description: "oneDNN (Intel's DNN primitives) through cgo, loaded at run time (relu, sigmoid, tanh, exp, add, mul, sum, max, softmax, the layers; gemm by matmul in f32, bf16, f16, i8, u8s8 where it has them; quantize, dequantize in i8, u8 by reorders)",
		Open:        func(backend.OpenOptions) (backend.Backend, error) { return Open() },
		Isolate:     true,
	})
}

// Backend is oneDNN as a peakbench backend.
type Backend struct{ lib *onednn.Library }

// Open opens oneDNN as a backend. The error says which files were tried and
// how to install it.
func Open() (*Backend, error) {
	lib, err := onednn.Open()
	if err != nil {
		return nil, err
	}
	return &Backend{lib: lib}, nil
}

// Name implements backend.Backend.
func (b *Backend) Name() string { return "onednn" }

// Device implements backend.Backend.
func (b *Backend) Device() platform.Device { return platform.HostCPU() }

// Library returns the library behind the backend.
func (b *Backend) Library() *onednn.Library { return b.lib }

// Info implements backend.Backend: the version dnnl_version() reports and
// details (path, CPU runtime and the OpenMP library it is bound to, ISA).
func (b *Backend) Info() backend.Info {
	d := b.lib.Details()
	if w := onednn.IdleWait(); w != "" {
		d["idle_wait"] = w
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Close implements backend.Backend.
func (b *Backend) Close() error { return b.lib.Close() }

var ops = map[workload.Op]onednn.Op{
	workload.ReLU:    onednn.ReLU,
	workload.Sigmoid: onednn.Sigmoid,
	workload.Tanh:    onednn.Tanh,
	workload.Exp:     onednn.Exp,
	workload.Add:     onednn.Add,
	workload.Mul:     onednn.Mul,
	workload.Sum:     onednn.Sum,
	workload.Max:     onednn.Max,
	workload.Softmax: onednn.Softmax,
}

// dtypes maps the workload types to oneDNN's.
var dtypes = map[workload.DType]onednn.DType{workload.F32: onednn.F32, workload.F64: onednn.F64}

// Declared implements backend.Declarer: the primitives of ops and
// layerOps that the library loaded has (onednn.Library.HasLayer), in the
// types it computes (HasDType: f32 for oneDNN 2.x), gemm in each type
// it has a matmul implementation for on this CPU (HasGEMM), and quantize
// and dequantize in i8 and u8 as reorders (quant.go). Prepare refuses the
// rest.
func (b *Backend) Declared() backend.Support {
	var dts []workload.DType
	for _, dt := range workload.DTypes {
		if b.lib.HasDType(dtypes[dt]) {
			dts = append(dts, dt)
		}
	}
	s := backend.Support{}
	for op := range ops {
		s.Add(dts, op)
	}
	for op, l := range layerOps {
		if b.lib.HasLayer(l) {
			s.Add(dts, op)
		}
	}
	s.Add(b.gemmDTypes(), workload.GEMM)
	b.declareQuant(s) // quant.go
	return s
}

// jobOptions are a job's copies and threads from cfg (checked by Prepare).
func jobOptions(cfg backend.Config) onednn.JobOptions {
	return onednn.JobOptions{Copies: max(cfg.Copies, 1), Threads: cfg.Threads}
}

// Prepare implements backend.Backend: the config checked once, then the
// op's own preparation.
func (b *Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		return nil, b.unsupported(w)
	}
	if cfg.Threads < 0 || cfg.Copies < 0 {
		return nil, fmt.Errorf("onednn: bad config: threads %d, copies %d", cfg.Threads, cfg.Copies)
	}
	if w.Op.Layer() {
		return b.prepareLayer(w, in, cfg) // conv, pools, batchnorm, layernorm (layers.go)
	}
	if w.Op == workload.GEMM {
		return b.prepareGEMM(w, in, cfg) // gemm.go
	}
	if _, ok := quantOps[w.Op]; ok {
		return b.prepareQuant(w, in, cfg) // quant.go
	}
	op := ops[w.Op]
	opt := jobOptions(cfg)
	var (
		job *onednn.Job
		err error
	)
	if op == onednn.Softmax {
		job, err = b.lib.PrepareSoftmax(onednn.F32, w.Shape.M, w.Shape.N, opt)
	} else {
		job, err = b.lib.Prepare(op, onednn.F32, w.Shape.N, opt)
	}
	if err != nil {
		return nil, wrap(w, err)
	}
	nargs, output := job.Args()
	for i := 0; i < nargs && i != output && i < len(in.Args); i++ {
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, wrap(w, err)
		}
	}
	return kernel{job}, nil
}

// unsupported says why b does not declare w's op and dtype.
func (b *Backend) unsupported(w workload.Workload) error {
	if _, ok := quantOps[w.Op]; ok {
		return b.quantUnsupported(w) // quant.go
	}
	_, isOp := ops[w.Op]
	l, isLayer := layerOps[w.Op]
	gt, isGEMMType := gemmTypes[w.DType]
	switch {
	case w.Op == workload.GEMM && isGEMMType && b.lib.HasGEMM(gt):
		return fmt.Errorf("onednn: gemm %s: oneDNN %s's %s matmul here (%s, effective ISA %s) has no VNNI: it sums pairs of u8×s8 products in saturating 16-bit lanes, not exact over the full range: %w", w.DType, b.lib.Version(), gt, b.lib.GEMMImplementation(gt), b.lib.EffectiveISA(), backend.ErrUnsupported)
	case w.Op == workload.GEMM && isGEMMType:
		return fmt.Errorf("onednn: gemm %s: oneDNN %s has no %s matmul implementation on this CPU (effective ISA %s): %w", w.DType, b.lib.Version(), gt, b.lib.EffectiveISA(), backend.ErrUnsupported)
	case w.Op == workload.GEMM:
		return fmt.Errorf("onednn: gemm %s: oneDNN %s has no %s data type: %w", w.DType, b.lib.Version(), w.DType, backend.ErrUnsupported)
	case !isOp && !isLayer:
		return backend.Unsupported("onednn", w)
	case isLayer && !b.lib.HasLayer(l) && w.Op == workload.GroupNorm:
		return fmt.Errorf("onednn: %s: oneDNN %s has no group normalization primitive (3.3 added one): %w", w.Op, b.lib.Version(), backend.ErrUnsupported)
	case isLayer && !b.lib.HasLayer(l):
		return fmt.Errorf("onednn: %s: oneDNN %s has no %s primitive: %w", w.Op, b.lib.Version(), l, backend.ErrUnsupported)
	case isLayer:
		return fmt.Errorf("onednn: %s %s: oneDNN %s computes layers in f32 (and lower precisions) only: %w", w.Op, w.DType, b.lib.Version(), backend.ErrUnsupported)
	}
	return fmt.Errorf("onednn: %s %s: oneDNN %s has no %s data type: %w", w.Op, w.DType, b.lib.Version(), w.DType, backend.ErrUnsupported)
}

// wrap adds context (the C layer's messages name the op already), and makes
// oneDNN's "cannot" (a pooling it has no primitive for, a thread count its
// runtime does not control) an unsupported shape or configuration of a
// declared op, which the harness skips with the reason.
func wrap(w workload.Workload, err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, "onednn: ") {
		msg = fmt.Sprintf("onednn: %s %s: %s", w.Op, w.DType, msg)
	}
	if errors.Is(err, onednn.ErrUnsupported) {
		return backend.UnsupportedShape(fmt.Errorf("%s: %w", msg, backend.ErrUnsupported))
	}
	return &wrapped{msg, err}
}

type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

type kernel struct{ job *onednn.Job }

func (k kernel) Run(iters int) (time.Duration, error) { return k.job.Run(iters) }
func (k kernel) Output() ([]float64, error)           { return k.job.Output() }
func (k kernel) Close() error                         { return k.job.Close() }
