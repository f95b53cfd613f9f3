package purego

import (
	"github.com/peakbench/peakbench/bench/backend/internal/gokernels"
	"github.com/peakbench/peakbench/bench/workload"
)

// Algorithms implements backend.BackendAlgorithms: convolutions run both
// by im2col + gemm.Gemm and by a direct loop nest, each a result of its
// own; the other layer ops and the rest have one way.
func (Backend) Algorithms(w workload.Workload) []string { return gokernels.LayerAlgorithms(w) }
