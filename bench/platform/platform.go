// Package platform keeps the registry of the platforms peakbench measures
// on — the host CPU ("cpu"), CUDA GPUs ("cuda"), HIP GPUs ("hip") — and the
// typed Device a backend runs on.
//
// A platform owns what belongs to its devices rather than to one library:
// finding and opening a device, and measuring its peaks. Backends name
// their Device; main asks the platform of each opened backend's device for
// its peaks (ForDevice), the host's always. Platforms register in init, as
// backends do; bench/platform/all imports every one.
package platform

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/peakbench/peakbench/bench/peak"
)

// Platform is one kind of device and what peakbench knows of it.
type Platform struct {
	Name        string // "cpu", "cuda", "hip"
	Kind        Kind   // how its devices are written
	Description string
	// MeasurePeaks measures the peaks of the device opt selects and adds
	// them to m: the host's machine model and peaks per thread count, a
	// GPU's entry of m.Peaks.GPUs. The error says why there are none (no
	// runtime, no such device; for the host, an interruption).
	MeasurePeaks func(ctx context.Context, opt Options, m *Measured) error
}

// Options says what to measure.
type Options struct {
	Device  int   // the GPU platforms' device index (-device)
	Threads []int // the thread counts the host's peaks are measured for (-threads)
	Quick   bool  // shorter measurements (-suite=quick)
	// PeakGFLOPS and PeakGBPS replace the host's computed compute peak and
	// measured bandwidths when positive (-peak-gflops, -peak-bw).
	PeakGFLOPS, PeakGBPS float64
	// Log prints a progress line; nil prints nothing.
	Log func(format string, args ...any)
}

// Logf prints a progress line through Log, when set.
func (o Options) Logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// Measured is what the platforms of a run measured: the host's machine
// model, its peaks, and each GPU's (Peaks.GPUs).
type Measured struct {
	Machine peak.Machine
	Peaks   peak.Peaks
}

var (
	mu        sync.Mutex
	platforms = map[string]Platform{}
)

// Register adds a platform; it panics on a duplicate name or kind (a
// programming error).
func Register(p Platform) {
	mu.Lock()
	defer mu.Unlock()
	for _, q := range platforms {
		if q.Name == p.Name || q.Kind == p.Kind {
			panic("platform: Register called twice for " + p.Name)
		}
	}
	platforms[p.Name] = p
}

// All returns every registered platform, the host's first, then by name.
func All() []Platform {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Platform, 0, len(platforms))
	for _, p := range platforms {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if hi, hj := out[i].Kind == Host, out[j].Kind == Host; hi != hj {
			return hi
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Lookup returns the platform named name.
func Lookup(name string) (Platform, error) {
	mu.Lock()
	p, ok := platforms[name]
	mu.Unlock()
	if !ok {
		var names []string
		for _, p := range All() {
			names = append(names, p.Name)
		}
		return Platform{}, fmt.Errorf("unknown platform %q (accepted: %s)", name, strings.Join(names, ", "))
	}
	return p, nil
}

// ForDevice returns the platform of d's kind; ok is false for a kind no
// platform registered (a worker's own device).
func ForDevice(d Device) (Platform, bool) {
	kind := d.Kind
	if d.IsHost() {
		kind = Host
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range platforms {
		if p.Kind == kind {
			return p, true
		}
	}
	return Platform{}, false
}
