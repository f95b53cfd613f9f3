package backendtest

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
)

// layerShapes per layer op: odd channel counts and extents, stride,
// padding (up to and beyond the window for convolutions), dilation, 1×1
// convolutions (which im2col may skip), every rank and both layouts.
var layerShapes = map[workload.Op][]string{
	workload.Conv1D: {"1x1x1:1x1", "2x3x17:5x3:s2:p1:d2", "1x4x9:3x4:p2:nhwc"},
	workload.Conv2D: {"2x3x9x11:5x3x2:s2x1:p1x0:d1x2", "2x3x9x11:5x3x2:s2x1:p1x0:d1x2:nhwc", "1x5x7x7:3x1x1:s2:p3",
		"3x7x6x6:9x1x1", "3x7x6x6:9x1x1:nhwc", "1x16x12x13:17x3x3:p1", "1x16x12x13:17x3x3:p1:nhwc", "1x2x7x7:3x5x5:s3:p4",
		"1x3x8x8:4x3x3:s2"}, // the last input row and column unused: negative right padding to oneDNN
	workload.Conv3D:          {"1x3x5x6x7:4x3x2x3:s1x2x1:p1", "1x3x5x6x7:4x3x2x3:p1:d2x1x1:nhwc"},
	workload.MaxPool:         {"2x3x9x10:3x3:s2:p1", "1x3x9x10:3x3:s2:p1:nhwc", "1x3x9:3:p1", "1x2x5x6x7:2x3x3:s1:p1", "1x3x8x8:3x3:s2"},
	workload.AvgPool:         {"2x3x9x10:3x2:s2x1:p1:nhwc", "1x3x9x10:3x3:s2:p1", "1x4x8x8:2x2"},
	workload.AdaptiveAvgPool: {"2x3x9x10:4x3", "1x3x8x8:2x2:nhwc", "1x5x7x7:1x1"},
	workload.BatchNorm:       {"2x5x7x3", "2x5x7x3:nhwc", "3x4", "1x3x2x3x4"},
	workload.LayerNorm:       {"3x40", "2x3x4x5", "1x1"},
	workload.GroupNorm:       {"2x6x5x4:g3:nhwc", "2x6x5x4:g3", "1x4x3:g4", "1x4x3"},
}

// specsFor lists the shapes Run checks op on.
func specsFor(op workload.Op) []string {
	if op.Layer() {
		return layerShapes[op]
	}
	if op.Quant() {
		return quantShapes[op] // quant.go
	}
	return shapes[op.Kind()]
}

// configs are the configurations Run checks w with: one and two threads,
// one and three buffer copies, each algorithm b lists for w.
func configs(b backend.Backend, w workload.Workload) []backend.Config {
	var out []backend.Config
	for _, alg := range backend.AlgorithmsFor(b, w) {
		for _, cfg := range []backend.Config{{Threads: 1, Copies: 1}, {Threads: 2, Copies: 3}} {
			cfg.Algorithm = alg
			out = append(out, cfg)
		}
	}
	return out
}
