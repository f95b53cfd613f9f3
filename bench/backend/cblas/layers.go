package cblas

import (
	"fmt"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/cblas"
)

// Im2colGEMM is the one algorithm of the CBLAS backends' convolutions.
const Im2colGEMM = "im2col+gemm"

// Algorithms implements backend.BackendAlgorithms: convolutions run by
// im2col and the library's GEMM, labelled as such.
func (b *Backend) Algorithms(w workload.Workload) []string {
	if w.Op.Kind() == workload.KindConv {
		return []string{Im2colGEMM}
	}
	if w.Op.Sparse() && !w.Op.SparseConversion() && b.lib.HasSparse() {
		return sparseAlgorithms // sparse.go
	}
	return nil
}

// prepareLayer prepares a layer op: convolutions by im2col (in C) and the
// library's sgemm/dgemm, both timed. A BLAS has no pooling or
// normalization: those are not declared, and Prepare refuses them.
func (b *Backend) prepareLayer(w workload.Workload, in workload.Data, dt cblas.DType, opt cblas.JobOptions, alg string) (backend.Kernel, error) {
	if alg != "" && alg != Im2colGEMM {
		return nil, fmt.Errorf("%s: %s: unknown algorithm %q (accepted: %s)", b.name, w.Op, alg, Im2colGEMM)
	}
	job, err := b.lib.PrepareConv(dt, layerOf(w.Shape.Layer), opt)
	if err != nil {
		return nil, b.wrap(w, err)
	}
	for i := range 2 { // x, w
		if err := job.SetInput(i, in.Args[i]); err != nil {
			job.Close()
			return nil, b.wrap(w, err)
		}
	}
	return convKernel{kernel{job}}, nil
}

// layerOf converts a workload's layer geometry to the C layer's.
func layerOf(l workload.LayerShape) cblas.Layer {
	return cblas.Layer{N: l.N, C: l.C, K: l.K, In: l.In, Window: l.Window, Stride: l.Stride, Pad: l.Pad,
		Dil: l.Dil, Out: l.Out, Rank: l.Rank, NHWC: l.NHWC, Groups: l.Groups}
}

// convKernel names its algorithm.
type convKernel struct{ kernel }

func (convKernel) Algorithm() string { return Im2colGEMM }
