package nvidia

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	cudaplat "github.com/peakbench/peakbench/bench/platform/cuda"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cudnn"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// CUDNN is cuDNN as a peakbench backend.
type CUDNN struct {
	base
	lib *cudnn.Library
}

// OpenCUDNN opens CUDA device index and cuDNN on it.
func OpenCUDNN(index int) (*CUDNN, error) {
	dev, err := cudaplat.OpenDevice(index)
	if err != nil {
		return nil, err
	}
	lib, err := cudnn.Open(dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return &CUDNN{base: newBase("cudnn", dev), lib: lib}, nil
}

// Library returns the library behind the backend.
func (b *CUDNN) Library() *cudnn.Library { return b.lib }

// Info implements backend.Backend.
func (b *CUDNN) Info() backend.Info {
	d := b.details()
	for k, v := range b.lib.Details() {
		d[k] = v
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Close implements backend.Backend.
func (b *CUDNN) Close() error {
	b.lib.Close()
	b.mon.Close()
	return b.dev.Close()
}

var dnnOps = map[workload.Op]cudnn.Op{
	workload.Add: cudnn.Add, workload.Mul: cudnn.Mul,
	workload.ReLU: cudnn.ReLU, workload.Sigmoid: cudnn.Sigmoid, workload.Tanh: cudnn.Tanh,
	workload.Softmax: cudnn.Softmax, workload.Sum: cudnn.Sum, workload.Max: cudnn.Max,
}

// Declared implements backend.Declarer: the ops of dnnOps and the
// convolutions, in f32.
func (b *CUDNN) Declared() backend.Support {
	s := backend.Support{}
	for op := range dnnOps {
		s.Add([]workload.DType{workload.F32}, op)
	}
	return s.Add([]workload.DType{workload.F32}, workload.Conv1D, workload.Conv2D, workload.Conv3D)
}

// Prepare implements backend.Backend.
func (b *CUDNN) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		return b.unsupported(w)
	}
	if w.Op.Layer() {
		return b.prepareConv(w, in, cfg) // cudnn_layers.go
	}
	op := dnnOps[w.Op]
	opt := gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)}
	var (
		job *gpurt.Job
		err error
	)
	if op == cudnn.Softmax {
		job, err = b.lib.PrepareSoftmax(gpurt.F32, w.Shape.M, w.Shape.N, opt)
	} else {
		job, err = b.lib.Prepare(op, gpurt.F32, w.Shape.N, opt)
	}
	if err != nil {
		return nil, wrap("cudnn", w, err)
	}
	nargs, output := job.Args()
	if err := setInputs(job, in.Args[:min(output, len(in.Args), nargs)]...); err != nil {
		job.Close()
		return nil, wrap("cudnn", w, err)
	}
	return kernel{job, b.mon}, nil
}

// unsupported says why b does not declare w's op and dtype.
func (b *CUDNN) unsupported(w workload.Workload) (backend.Kernel, error) {
	_, isOp := dnnOps[w.Op]
	switch {
	case w.Op == workload.Exp:
		return nil, fmt.Errorf("cudnn: exp: cuDNN's legacy API has no exp activation: %w", backend.ErrUnsupported)
	case w.Op.Layer() && w.Op.Kind() != workload.KindConv:
		return nil, fmt.Errorf("cudnn: %s: peakbench runs cuDNN's convolutions only among the layers: %w", w.Op, backend.ErrUnsupported)
	case isOp || w.Op.Layer():
		return nil, fmt.Errorf("cudnn: %s %s: peakbench runs cuDNN in f32 only: %w", w.Op, w.DType, backend.ErrUnsupported)
	}
	return nil, backend.Unsupported("cudnn", w)
}
