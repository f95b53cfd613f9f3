// Package backend defines what a library must provide to be measured by
// peakbench, and keeps the registry of every backend peakbench knows.
//
// A backend turns a workload and its inputs into a Kernel: buffers placed and
// filled in the library's own memory and types, ready to run back to back.
// The harness times Kernel.Run, reads Kernel.Output to verify it, and never
// sees the library's types.
package backend

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
)

// ErrUnsupported is returned (wrapped) by Prepare for a workload the backend
// does not implement; the harness skips such pairs.
var ErrUnsupported = errors.New("not supported by this backend")

// Backend is one library, opened and ready.
type Backend interface {
	Name() string
	// Device is what the numbers are a share of: platform.HostCPU() for
	// host code, the GPU it opened for a GPU library. Its String is what
	// results record ("cpu", "cuda:0 NVIDIA H100 80GB HBM3").
	Device() platform.Device
	// Info describes the library as loaded: version, threading, code path.
	Info() Info
	// Prepare allocates and fills the kernel's buffers. It returns an error
	// wrapping ErrUnsupported for ops the backend lacks.
	Prepare(w workload.Workload, in workload.Data, cfg Config) (Kernel, error)
	Close() error
}

// Info is what a report records about a library, so every number can be
// traced to the code that produced it.
type Info struct {
	Version string            `json:"version"`
	Details map[string]string `json:"details,omitempty"` // e.g. "threading": "intel", "code_path": "AVX2"
}

// Config says how a kernel runs.
type Config struct {
	// Threads is the number of threads the library may use.
	Threads int
	// Copies is the number of independent buffer sets to rotate through,
	// one per Run iteration: 1 for hot-cache runs; enough that the sets
	// together exceed the last-level cache for cold-cache runs. Every copy
	// holds the same input values.
	Copies int
	// Algorithm is the way to compute the workload, one of those the
	// backend lists (BackendAlgorithms in algorithm.go); "" is its default.
	Algorithm string
	// Estimate is a generous bound on one iteration's time, before any is
	// measured (the harness: the workload at a small share of the
	// machine's peak), for the watchdogs of backends in another process;
	// 0 when unknown.
	Estimate time.Duration
}

// Kernel is one workload prepared on one backend.
type Kernel interface {
	// Run executes the workload iters times back to back and returns the
	// time they took, measured as close to the work as the backend can
	// (in C for C libraries, with device events on a GPU).
	Run(iters int) (time.Duration, error)
	// Output returns the result of the latest run as float64.
	Output() ([]float64, error)
	Close() error
}

// Factory opens a backend. Open returns an error saying why the backend
// cannot run here (library not found, no device), and how to fix it.
type Factory struct {
	Name        string
	Description string
	Open        func(OpenOptions) (Backend, error)
	// Isolate marks a vendor library — C code that can crash or hang the
	// process that calls it. peakbench runs such a backend in a child
	// process unless -isolate=off (worker.Isolated, docs/architecture.md).
	Isolate bool
}

// OpenOptions says how to open a backend: what main's flags choose for
// every backend, passed to each rather than set in package variables. The
// thread count is not among them: it is a kernel's (Config.Threads), as
// one run measures several.
type OpenOptions struct {
	// Device is the index of the GPU a GPU backend opens (-device); host
	// backends ignore it.
	Device int
	// Timeout is the least time a request to a backend in another process
	// may take before it is taken to hang (-timeout; bench/backend/worker's
	// watchdog); 0: worker.DefaultTimeout.
	Timeout time.Duration
}

var (
	mu        sync.Mutex
	factories = map[string]Factory{}
)

// Register adds a backend; it panics on a duplicate name (a programming error).
func Register(f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[f.Name]; dup {
		panic("backend: Register called twice for " + f.Name)
	}
	factories[f.Name] = f
}

// All returns every registered backend, by name.
func All() []Factory {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Factory, 0, len(factories))
	for _, f := range factories {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the backend named name.
func Lookup(name string) (Factory, error) {
	mu.Lock()
	f, ok := factories[name]
	mu.Unlock()
	if !ok {
		return Factory{}, fmt.Errorf("unknown backend %q (accepted: %s)", name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// Names lists the registered backends' names.
func Names() []string {
	var names []string
	for _, f := range All() {
		names = append(names, f.Name)
	}
	return names
}

// Unsupported returns an error wrapping ErrUnsupported for w.
func Unsupported(name string, w workload.Workload) error {
	return fmt.Errorf("%s: %s %s: %w", name, w.Op, w.DType, ErrUnsupported)
}
