package asm

import (
	"github.com/peakbench/peakbench/bench/backend/internal/gokernels"
	"github.com/peakbench/peakbench/bench/workload"
)

// Algorithms implements backend.BackendAlgorithms: convolutions run both
// by im2col + gemm.Gemm (its assembly micro-kernels) and by a direct loop
// nest (assembly axpy or gemv inside), each a result of its own.
func (Backend) Algorithms(w workload.Workload) []string { return gokernels.LayerAlgorithms(w) }
