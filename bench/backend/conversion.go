package backend

import "github.com/peakbench/peakbench/bench/workload"

// ArgJob is a job of the C layer's contract with several outputs
// (native.Job, gpurt.Job): its output argument, and any other argument.
type ArgJob interface {
	Output() ([]float64, error)
	ArgOutput(arg int) ([]float64, error)
}

// ConversionOutput reads a sparse conversion job's result in the
// workload's layout: csr2csc's values, row indices and column pointers
// (the job's arguments val, idx and ptr, one after another), the others'
// one output. MKL's and cuSPARSE's conversion jobs share the layout.
func ConversionOutput(j ArgJob, op workload.Op, val, idx, ptr int) ([]float64, error) {
	if op != workload.CSR2CSC {
		return j.Output()
	}
	var out []float64
	for _, arg := range []int{val, idx, ptr} {
		v, err := j.ArgOutput(arg)
		if err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	return out, nil
}
