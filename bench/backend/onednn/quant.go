package onednn

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/onednn"
)

// quantOps maps the workload's quantize and dequantize to oneDNN's
// reorders with scales and zero points.
var quantOps = map[workload.Op]onednn.QuantOp{
	workload.Quantize:   onednn.Quantize,
	workload.Dequantize: onednn.Dequantize,
}

// quantDTypes are the dtypes of the reorders: s8 (i8) and u8.
var quantDTypes = []workload.DType{workload.I8, workload.U8}

// declareQuant adds quantize and dequantize in i8 and u8 where the library
// makes a quantization reorder (oneDNN 2.x's output scales).
func (b *Backend) declareQuant(s backend.Support) {
	if b.lib.QuantImplementation() == "" {
		return
	}
	for op := range quantOps {
		s.Add(quantDTypes, op)
	}
}

// prepareQuant prepares a quantize or dequantize reorder: the scales and
// zero points (Data.Args 1 and 2) set on the primitive when it is made, the
// input converted to its type before the clock starts, the reorder alone
// timed. Per-channel zero points that differ between rows (u8's) are an
// unsupported configuration of oneDNN 2.x (one zero point per tensor).
func (b *Backend) prepareQuant(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if len(in.Args) < 3 {
		return nil, fmt.Errorf("onednn: %s %s: %d inputs, want the data, scales and zero points", w.Op, w.DType, len(in.Args))
	}
	spec := onednn.QuantSpec{Op: quantOps[w.Op], Unsigned: w.DType == workload.U8,
		Rows: 1, Cols: w.Shape.N, PerChannel: w.PerChannel()}
	if spec.PerChannel {
		spec.Rows = w.Shape.M
	}
	for i, s := range in.Args[1] {
		spec.Scales = append(spec.Scales, float32(s))
		spec.ZeroPoints = append(spec.ZeroPoints, int32(in.Args[2][i]))
	}
	job, err := b.lib.PrepareQuant(spec, jobOptions(cfg))
	if err != nil {
		return nil, wrap(w, err)
	}
	if err := job.SetInput(0, in.Args[0]); err != nil {
		job.Close()
		return nil, wrap(w, err)
	}
	return quantKernel{kernel{job}, onednn.Implementation(job)}, nil
}

// quantKernel names oneDNN's reorder implementation.
type quantKernel struct {
	kernel
	impl string
}

func (k quantKernel) Implementation() string { return k.impl }

// quantUnsupported says why quantize or dequantize is not declared: the
// library's own refusal of a small reorder (a oneDNN 2.x without output
// scales, say), or a dtype other than i8 and u8.
func (b *Backend) quantUnsupported(w workload.Workload) error {
	if w.DType != workload.I8 && w.DType != workload.U8 {
		return fmt.Errorf("onednn: %s %s: the reorders quantize to i8 and u8 only: %w", w.Op, w.DType, backend.ErrUnsupported)
	}
	job, err := b.lib.PrepareQuant(onednn.QuantSpec{Op: quantOps[w.Op], Unsigned: w.DType == workload.U8,
		Rows: 1, Cols: 64, Scales: []float32{1}, ZeroPoints: []int32{0}}, onednn.JobOptions{})
	if err == nil {
		job.Close()
		return backend.Unsupported("onednn", w)
	}
	return fmt.Errorf("onednn: %s %s: oneDNN %s makes no quantization reorder here: %v: %w", w.Op, w.DType, b.lib.Version(), err, backend.ErrUnsupported)
}
