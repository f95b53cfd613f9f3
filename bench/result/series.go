package result

import "github.com/peakbench/peakbench/bench/platform"

// Series names the backend and the algorithm of r, "asm (direct)", or the
// backend alone when it has one way: what charts, summaries and
// comparisons tell results apart by.
func (r *Result) Series() string {
	if r.Algorithm == "" {
		return r.Backend
	}
	return r.Backend + " (" + r.Algorithm + ")"
}

// Label is Series with the library's implementation, when it names one, as
// tables show it: "onednn (auto) [jit:avx512_core]".
func (r *Result) Label() string {
	if r.Implementation == "" {
		return r.Series()
	}
	return r.Series() + " [" + r.Implementation + "]"
}

// Correct reports whether r ran and passed verification: the results
// compared, ranked and diagnosed.
func (r *Result) Correct() bool { return r.Error == "" && r.Verified && r.MedianNS > 0 }

// OnCPU reports whether r ran on the host CPU rather than a GPU
// (platform.NamesHost: the one reading of saved device strings).
func (r *Result) OnCPU() bool { return platform.NamesHost(r.Device) }

// BoundName says which ceiling %peak is a share of: the compute peak, or a
// memory level's bandwidth.
func BoundName(r *Result) string {
	if r.Peak.Bound == "memory" {
		if r.Peak.BandwidthPattern != "" {
			return r.Peak.BandwidthLevel + " " + r.Peak.BandwidthPattern
		}
		return r.Peak.BandwidthLevel + " bw"
	}
	if u := r.Peak.ComputeUnit; u != "" && u != "fma" {
		return r.DType + " " + u // a low-precision unit: "bf16 amx-bf16"
	}
	return r.DType + " FMA"
}

// DTypeName is r's dtype as tables show it: with its output type where
// that differs ("bf16→f32", "i8→i32": the accumulation type is the
// output's).
func DTypeName(r *Result) string {
	if r.OutDType != "" && r.OutDType != r.DType {
		return r.DType + "→" + r.OutDType
	}
	return r.DType
}
