// Package all registers every platform peakbench knows. Import it for its
// side effect, as the command does:
//
//	import _ "github.com/peakbench/peakbench/bench/platform/all"
package all

import (
	_ "github.com/peakbench/peakbench/bench/platform/cpu"
	_ "github.com/peakbench/peakbench/bench/platform/cuda"
	_ "github.com/peakbench/peakbench/bench/platform/hip"
)
