package nvidia

import (
	"github.com/peakbench/peakbench/bench/backend"
	cudaplat "github.com/peakbench/peakbench/bench/platform/cuda"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cusparse"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// CUSPARSE is cuSPARSE as a peakbench backend (a backend of its own, as
// cuFFT is: its own library file and wheel).
type CUSPARSE struct {
	base
	lib *cusparse.Library
}

// OpenCUSPARSE opens CUDA device index and cuSPARSE on it.
func OpenCUSPARSE(index int) (*CUSPARSE, error) {
	dev, err := cudaplat.OpenDevice(index)
	if err != nil {
		return nil, err
	}
	lib, err := cusparse.Open(dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return &CUSPARSE{base: newBase("cusparse", dev), lib: lib}, nil
}

// Library returns the library behind the backend.
func (b *CUSPARSE) Library() *cusparse.Library { return b.lib }

// Info implements backend.Backend.
func (b *CUSPARSE) Info() backend.Info {
	d := b.details()
	for k, v := range b.lib.Details() {
		d[k] = v
	}
	return backend.Info{Version: b.lib.Version(), Details: d}
}

// Declared implements backend.Declarer: spmv and spmm in f32 and f64, and
// each format conversion the loaded cuSPARSE has the calls of.
func (b *CUSPARSE) Declared() backend.Support {
	s := backend.Support{}.Add(workload.DTypes, workload.SpMV, workload.SpMM)
	for op, c := range conversions {
		if b.lib.HasConversion(c) {
			s.Add(workload.DTypes, op)
		}
	}
	return s
}

// Close implements backend.Backend.
func (b *CUSPARSE) Close() error {
	b.lib.Close()
	b.mon.Close()
	return b.dev.Close()
}

// Prepare implements backend.Backend: the workload's matrix (its pattern
// from workload.SparseMatrix, copied to the device here; its values and x
// from in), cusparseSpMV or cusparseSpMM with the default algorithm, or a
// format conversion (cusparse_convert.go).
func (b *CUSPARSE) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	if !b.Declared().Has(w.Op, w.DType) {
		return nil, backend.Unsupported("cusparse", w)
	}
	if w.Op.SparseConversion() {
		return b.prepareConversion(w, in, cfg)
	}
	m := w.SparseMatrix()
	k := 0
	if w.Op == workload.SpMM {
		k = w.Shape.Sparse.K
	}
	opt := gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)}
	job, err := b.lib.PrepareCSR(gpuDTypes[w.DType], m.Rows, m.Cols, k, m.RowPtr, m.ColIdx, opt)
	if err != nil {
		return nil, wrap("cusparse", w, err)
	}
	if err := setInputs(job, in.Args[:2]...); err != nil {
		job.Close()
		return nil, wrap("cusparse", w, err)
	}
	return kernel{job, b.mon}, nil
}
