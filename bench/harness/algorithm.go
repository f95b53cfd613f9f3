package harness

import (
	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/workload"
)

// variant is one backend with one of the algorithms it lists for a
// workload ("" for its default).
type variant struct {
	backend   backend.Backend
	algorithm string
}

// variants lists every backend once per algorithm it offers for w
// (backend.BackendAlgorithms): each is prepared, verified and measured as
// a result of its own.
func variants(bs []backend.Backend, w workload.Workload) []variant {
	var out []variant
	for _, b := range bs {
		for _, a := range backend.AlgorithmsFor(b, w) {
			out = append(out, variant{b, a})
		}
	}
	return out
}
