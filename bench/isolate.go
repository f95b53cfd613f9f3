package main

import (
	"context"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/worker"
	"github.com/peakbench/peakbench/bench/workload"
)

// -isolate: vendor libraries (backend.Factory.Isolate) run in a child
// process each, "on" by default, so that one that crashes or hangs costs
// its own results only; "off" runs them in peakbench's process; "both"
// runs each both ways in one interleaved run, the in-process twin named
// NAME-inproc, which measures what isolation costs.
var isolateModes = []string{"on", "off", "both"}

// inprocSuffix names the in-process twin of -isolate=both.
const inprocSuffix = "-inproc"

// defaultTimeout is -timeout's default: 30 s, or a thousand samples of
// -min-time when that is longer. A sample lasts about -min-time, so a
// request that takes a thousand times longer is taken to hang; a long
// run gets more (worker's watchdog: 20× its expected time).
func defaultTimeout(minTime time.Duration) time.Duration {
	return max(30*time.Second, 1000*minTime)
}

// factories returns the factories to open in the -isolate mode: vendor
// libraries wrapped to open in a child process, and with "both" followed
// by their in-process twins.
func factories(fs []backend.Factory, mode string) []backend.Factory {
	if mode == "off" {
		return fs
	}
	var out []backend.Factory
	for _, f := range fs {
		if !f.Isolate {
			out = append(out, f)
			continue
		}
		out = append(out, worker.Isolated(f))
		if mode == "both" {
			out = append(out, inproc(f))
		}
	}
	return out
}

// inproc is f opened in process under the name NAME-inproc.
func inproc(f backend.Factory) backend.Factory {
	open, name := f.Open, f.Name+inprocSuffix
	f.Name, f.Description = name, f.Description+"; in process"
	f.Open = func(o backend.OpenOptions) (backend.Backend, error) {
		b, err := open(o)
		if err != nil {
			return nil, err
		}
		return renamed{b, name}, nil
	}
	return f
}

// renamed is a backend under another name, with the optional interfaces
// the harness asks a vendor backend for.
type renamed struct {
	backend.Backend
	name string
}

func (r renamed) Name() string { return r.name }

func (r renamed) Algorithms(w workload.Workload) []string {
	return backend.AlgorithmsFor(r.Backend, w)
}

// serveChild runs a vendor backend's child process when args are a
// child's (worker.ServeArgs), on the GPU device the parent selected.
func serveChild(args []string) (code int, child bool) {
	name, opt, ok := worker.ServeArgs(args)
	if !ok {
		return 0, false
	}
	return worker.ServeMain(name, opt), true
}

// stopWorkersOn stops every backend in a child process when ctx ends
// (Ctrl-C, SIGTERM, SIGHUP): a library call that never returns cannot
// hold the run, whose finished results are then written. The returned
// function cancels it.
func stopWorkersOn(ctx context.Context, backends []backend.Backend) func() bool {
	return context.AfterFunc(ctx, func() {
		for _, b := range backends {
			if w, ok := b.(interface{ Interrupt() }); ok {
				w.Interrupt()
			}
		}
	})
}
