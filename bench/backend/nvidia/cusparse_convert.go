package nvidia

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform/gpudev"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cusparse"
	"github.com/peakbench/peakbench/cgo/gpurt"
)

// conversions maps the workload's format conversions to cuSPARSE's.
var conversions = map[workload.Op]cusparse.Conversion{
	workload.CSR2COO: cusparse.CSR2COO, workload.COO2CSR: cusparse.COO2CSR, workload.CSR2CSC: cusparse.CSR2CSC,
}

// prepareConversion prepares csr2coo, coo2csr or csr2csc on the
// workload's matrix: its pattern from workload.SparseMatrix (the input's
// index arrays made from it and copied to the device by the library
// package, off the clock), csr2csc's values from in.
func (b *CUSPARSE) prepareConversion(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	m := w.SparseMatrix()
	opt := gpurt.JobOptions{Copies: gpudev.Copies(cfg, w.Bytes(), b.dev)}
	job, err := b.lib.PrepareConversion(conversions[w.Op], gpuDTypes[w.DType], m.Rows, m.Cols, m.RowPtr, m.ColIdx, opt)
	if err != nil {
		return nil, wrap("cusparse", w, err)
	}
	if w.Op == workload.CSR2CSC {
		if err := job.SetInput(cusparse.ConvertInVal, in.Args[0]); err != nil {
			job.Close()
			return nil, wrap("cusparse", w, err)
		}
	}
	return conversionKernel{kernel{job, b.mon}, w.Op}, nil
}

// conversionKernel's Output is the workload's layout: csr2csc's values,
// rows and column pointers, three arguments of the job.
type conversionKernel struct {
	kernel
	op workload.Op
}

func (k conversionKernel) Output() ([]float64, error) {
	return backend.ConversionOutput(k.job, k.op, cusparse.ConvertOutVal, cusparse.ConvertOutIdx, cusparse.ConvertOutPtr)
}
