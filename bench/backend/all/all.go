// Package all registers every backend peakbench knows. Import it for its
// side effect, as the command does:
//
//	import _ "github.com/peakbench/peakbench/bench/backend/all"
package all

import (
	_ "github.com/peakbench/peakbench/bench/backend/asm"
	_ "github.com/peakbench/peakbench/bench/backend/cblas"
	_ "github.com/peakbench/peakbench/bench/backend/fftw"
	_ "github.com/peakbench/peakbench/bench/backend/gonum"
	_ "github.com/peakbench/peakbench/bench/backend/nvidia"
	_ "github.com/peakbench/peakbench/bench/backend/onednn"
	_ "github.com/peakbench/peakbench/bench/backend/purego"
	_ "github.com/peakbench/peakbench/bench/backend/rocblas"
	_ "github.com/peakbench/peakbench/bench/backend/worker"
)
