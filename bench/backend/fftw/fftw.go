// Package fftw registers the "fftw" backend: FFTW 3 loaded at run time
// (cgo/fftw over native/fftw.c), libfftw3f for f32 and libfftw3 for f64,
// fft, ifft and rfft. Its algorithms are the planner's flags: measure
// (FFTW_MEASURE, the default), estimate and patient, each a result of its
// own with the planner's time in plan_ns. Plans found are kept as wisdom
// per machine, under the user cache dir, so a later run plans faster.
package fftw

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/cgo/fftw"
)

// The planner flags as algorithms, the default first.
var algorithms = []struct {
	name  string
	flags uint
}{{"measure", fftw.Measure}, {"estimate", fftw.Estimate}, {"patient", fftw.Patient}}

// DefaultPlanTimeLimit is the planner's limit (fftw_set_timelimit) when
// -timeout is not given: two thirds of the watchdog's least default limit
// (30 s), so a planner that would search for minutes (PATIENT at a large
// or prime size) cannot make the run take this backend for hung.
const DefaultPlanTimeLimit = 20 * time.Second

// PlanTimeLimit is the planner's limit under -timeout: half of it (0:
// DefaultPlanTimeLimit). FFTW does not fail at its limit: it returns the
// best plan found by then, ESTIMATE's at worst (its manual: the planner
// tries a progressively wider range of algorithms until the limit), and
// the kernel says the plan was time-limited (Implementation).
func PlanTimeLimit(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return DefaultPlanTimeLimit
	}
	return timeout / 2
}

func init() {
	backend.Register(backend.Factory{
		Name:        "fftw",
		Description: "FFTW 3 (libfftw3f, libfftw3), loaded at run time: fft, ifft, rfft in f32 and f64; planner flags measure, estimate, patient as algorithms",
		Open: func(o backend.OpenOptions) (backend.Backend, error) {
			b, err := Open()
			if err == nil {
				b.planLimit = PlanTimeLimit(o.Timeout)
			}
			return b, err
		},
		Isolate: true,
	})
}

// Backend is FFTW in the precisions that loaded.
type Backend struct {
	libs      map[workload.DType]*fftw.Library
	planLimit time.Duration // the planner's limit for MEASURE and PATIENT
}

// Open loads both precisions; it fails only when neither loads.
func Open() (*Backend, error) {
	b := &Backend{libs: map[workload.DType]*fftw.Library{}, planLimit: DefaultPlanTimeLimit}
	var errs []error
	for _, dt := range workload.DTypes {
		lib, err := fftw.Open(dt == workload.F64)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lib.ImportWisdom(wisdomPath(dt))
		b.libs[dt] = lib
	}
	if len(b.libs) == 0 {
		return nil, oneLine(errs)
	}
	return b, nil
}

// oneLine joins the two precisions' errors into one line, once each: both
// missing say so side by side; built without cgo, the same reason twice is
// said once. It wraps the first, so errors.Is sees native.ErrNoCgo.
func oneLine(errs []error) error {
	var msgs []string
	for _, e := range errs {
		if m := e.Error(); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	return fmt.Errorf("%w%s", errs[0], strings.Join(append([]string{""}, msgs[1:]...), "; "))
}

// wisdomPath is where the plans of one precision are kept on this machine.
func wisdomPath(dt workload.DType) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "peakbench", "fftw", "wisdom-"+string(dt))
}

func (b *Backend) Name() string            { return "fftw" }
func (b *Backend) Device() platform.Device { return platform.HostCPU() }

func (b *Backend) Close() error {
	for _, l := range b.libs {
		l.Close()
	}
	return nil
}

func (b *Backend) Info() backend.Info {
	info := backend.Info{Details: map[string]string{}}
	var versions []string
	for _, dt := range workload.DTypes {
		if l := b.libs[dt]; l != nil {
			versions = append(versions, fmt.Sprintf("%s: %s", dt, l.Version()))
			info.Details["path_"+string(dt)] = l.Path()
			info.Details["threads_"+string(dt)] = fmt.Sprint(l.Threads())
		}
	}
	info.Version = strings.Join(versions, "; ")
	return info
}

// Declared implements backend.Declarer: the transforms in each precision
// that loaded.
func (b *Backend) Declared() backend.Support {
	s := backend.Support{}
	for dt := range b.libs {
		s.Add([]workload.DType{dt}, workload.FFTOps...)
	}
	return s
}

// Algorithms implements backend.BackendAlgorithms: the planner flags.
func (b *Backend) Algorithms(w workload.Workload) []string {
	if !w.Op.Fourier() {
		return nil
	}
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return names
}

// Prepare implements backend.Backend.
func (b *Backend) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	lib := b.libs[w.DType]
	if lib == nil || !w.Op.Fourier() {
		return nil, backend.Unsupported("fftw", w)
	}
	alg := cfg.Algorithm
	if alg == "" {
		alg = algorithms[0].name
	}
	var flags uint
	found := false
	for _, a := range algorithms {
		if a.name == alg {
			flags, found = a.flags, true
		}
	}
	if !found {
		return nil, fmt.Errorf("fftw: unknown algorithm %q (accepted: measure, estimate, patient)", alg)
	}
	s := w.Shape
	dims := []int{s.N}
	if s.K > 0 {
		dims = []int{s.K, s.N}
	}
	kind := fftw.Forward
	switch w.Op {
	case workload.IFFT:
		kind = fftw.Backward
	case workload.RFFT:
		kind = fftw.R2C
	}
	plan, err := lib.NewPlan(fftw.Spec{Kind: kind, Dims: dims, Batch: s.M, Flags: flags, Threads: max(cfg.Threads, 1),
		TimeLimit: b.planLimit, Copies: cfg.Copies}, in.Args[0], w.OutputLen())
	if err != nil {
		if errors.Is(err, fftw.ErrCannotPlan) {
			return nil, backend.UnsupportedShape(err)
		}
		return nil, err
	}
	k := &kernel{plan: plan, alg: alg}
	// The planner stops at its first check past the limit: a plan that took
	// that long was cut short (ESTIMATE plans no time and has no limit).
	if flags != fftw.Estimate && plan.Took >= b.planLimit {
		k.limited = b.planLimit
	}
	if p := wisdomPath(w.DType); p != "" && os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		lib.ExportWisdom(p)
	}
	return k, nil
}

// kernel is one FFTW plan.
type kernel struct {
	plan    *fftw.Plan
	alg     string
	limited time.Duration // the planner's limit, when it reached it; else 0
}

// Implementation implements backend.KernelImplementation: a plan cut short
// by the planner's limit says so, as it may be slower than the flag's own.
func (k *kernel) Implementation() string {
	if k.limited == 0 {
		return ""
	}
	return fmt.Sprintf("time-limited plan: the planner stopped at its %v limit with the best plan found by then (ESTIMATE's at worst)", k.limited)
}

func (k *kernel) Run(iters int) (time.Duration, error) { return k.plan.Run(iters) }
func (k *kernel) Output() ([]float64, error)           { return k.plan.Output(), nil }
func (k *kernel) Close() error                         { k.plan.Close(); return nil }
func (k *kernel) Algorithm() string                    { return k.alg }

// PlanTime implements backend.KernelPlanTime: the planner's time.
func (k *kernel) PlanTime() time.Duration { return k.plan.Took }
