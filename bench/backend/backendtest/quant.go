package backendtest

import "github.com/peakbench/peakbench/bench/workload"

// quantShapes are the shapes Run checks the quantization ops on: lengths
// around the vector kernels' blocks and tails, per-channel rows of odd
// lengths, and qlinear's gemm shapes without transposes.
var quantShapes = map[workload.Op][]string{
	workload.Quantize:   {"1", "7", "64", "1000", "4099", "3x65:channel", "5x1:channel"},
	workload.Dequantize: {"1", "7", "64", "1000", "4099", "3x65:channel", "5x1:channel"},
	workload.Convert:    {"1", "7", "64", "1000", "4099"},
	workload.Widen:      {"1", "7", "64", "1000", "4099"},
	workload.QLinear:    {"1", "3x5x7", "17x33x65", "64"},
}
