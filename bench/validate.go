package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/worker"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// Checks of the command line and the environment that run before any
// work: each failure is one line and exit status 2.

// availableCPUs is the number of CPUs this process may run on (its
// affinity mask); a variable for tests.
var availableCPUs = runtime.NumCPU

// checkThreads refuses thread counts above the CPUs this process may use:
// threads beyond them time-share cores, so the peaks and the results both
// measure the scheduler, and every thread's buffers still take memory.
func checkThreads(threads []int, cpus int) error {
	for _, t := range threads {
		if t > cpus {
			if cpus == 1 {
				return fmt.Errorf("%d is more than the 1 CPU this process may use (more threads would time-share the core; use 1)", t)
			}
			return fmt.Errorf("%d is more than the %d CPUs this process may use (more threads would time-share the cores; use at most %d)", t, cpus, cpus)
		}
	}
	return nil
}

// checkRate accepts a finite rate ≥ 0 (0: measure it instead).
func checkRate(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%v is not a positive finite number (or 0 to measure it)", v)
	}
	return nil
}

// checkEnvironment refuses values the PEAKBENCH_* variables that take a
// fixed set of values do not accept (the library overrides take paths,
// whose errors the backends report when they open).
func checkEnvironment() error {
	v, set := os.LookupEnv(hostmem.EnvVar)
	return hostmem.CheckEnv(v, set)
}

// availableMemory is hostmem.Available; a variable for tests.
var availableMemory = hostmem.Available

// checkMemory refuses a workload whose host memory (HostBytes: the inputs,
// every kernel's operands, the reference) exceeds what the machine has
// available, naming the largest size of it that would fit, rather than
// letting the run die of "out of memory" half way through.
func checkMemory(workloads []workload.Workload, backends []backend.Backend, cfg *config) error {
	avail, source, ok := availableMemory()
	if !ok || len(workloads) == 0 {
		return nil
	}
	llc := 0
	if cfg.cache == "cold" {
		llc = peak.DetectMachine().LastLevelCacheBytes()
	}
	need := func(w workload.Workload) float64 {
		kernels := 0
		for _, b := range backends {
			n := len(backend.AlgorithmsFor(b, w))
			if _, child := b.(*worker.Backend); child {
				// In another process (a framework, an isolated library): the
				// shared file and the worker's own copy of the inputs besides.
				n *= 2
			}
			kernels += n
		}
		sets := 1
		if cfg.cache == "cold" {
			sets = harness.ColdCopies(w, llc)
		}
		return w.HostBytes(kernels, sets, cfg.reference && cfg.cache == "hot") + float64(kernels*(sets-1))*harness.ColdPadBytes
	}
	fits := func(w workload.Workload) bool { return need(w) <= float64(avail) }
	for _, w := range workloads {
		if fits(w) {
			continue
		}
		msg := fmt.Sprintf("%s needs about %s of memory (its inputs, each backend's operands, the reference), more than the %s available (%s)",
			w, units.Bytes(need(w)), units.Bytes(avail), source)
		if small, ok := w.Shrink(fits); ok {
			msg += fmt.Sprintf("; the largest that fits is -size=%s", sizeArg(small))
		} else {
			msg += "; no smaller size of it fits either"
		}
		return usageError{msg}
	}
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// sizeArg writes w's shape as -size takes it, a square gemm as its side.
func sizeArg(w workload.Workload) string {
	s := w.Shape
	if w.Op == workload.GEMM && s.M == s.N && s.N == s.K && !s.TransA && !s.TransB {
		return fmt.Sprint(s.N)
	}
	return s.Format(w.Op)
}

// parseQuietly parses args: -h prints the usage to stderr; a bad flag is
// one line (a usage error), not the flag package's line and then the whole
// usage.
func parseQuietly(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		stderr.Write(buf.Bytes())
		return err
	}
	return usagef("%v (%s -h lists the flags)", err, fs.Name())
}

// computable drops the workloads that no backend of the run declares
// (backend.Declarer) and names each dropped op and dtype on stderr, with a
// backend's reason where it gives one, before the peaks are measured: a
// run that none of its backends could compute was found only after them,
// as an empty table and exit status 3. None left is a usage error.
func computable(stderr io.Writer, workloads []workload.Workload, backends []backend.Backend) ([]workload.Workload, error) {
	if len(workloads) == 0 || len(backends) == 0 {
		return workloads, nil
	}
	var kept []workload.Workload
	var said []string // "op dtype", in the order first met
	reasons := map[string]string{}
	for _, w := range workloads {
		if slices.ContainsFunc(backends, func(b backend.Backend) bool { return declares(b, w) }) {
			kept = append(kept, w)
			continue
		}
		key := fmt.Sprintf("%s %s", w.Op, w.DType)
		if _, ok := reasons[key]; ok {
			continue
		}
		said = append(said, key)
		reasons[key] = whyNone(backends, w)
	}
	if len(kept) == 0 {
		return nil, usagef("no backend of the run computes %s: %s (-list says what each computes)", strings.Join(said, ", "), reasons[said[0]])
	}
	for _, key := range said {
		fmt.Fprintf(stderr, "peakbench: skipped %s: %s\n", key, reasons[key])
	}
	return kept, nil
}

// declares says whether b declares w's op in w's dtype; a backend that
// declares nothing (none peakbench ships) is taken at its Prepare's word.
func declares(b backend.Backend, w workload.Workload) bool {
	d := backend.DeclaredBy(b)
	return d == nil || d.Has(w.Op, w.DType)
}

// whyNone says which backends were asked and, where one explains itself
// (backend.Explainer), why it does not compute w.
func whyNone(backends []backend.Backend, w workload.Workload) string {
	var names, why []string
	for _, b := range backends {
		names = append(names, b.Name())
		if e, ok := b.(backend.Explainer); ok {
			if r := e.WhyNot(w); r != "" {
				why = append(why, b.Name()+": "+r)
			}
		}
	}
	s := names[0] + " does not compute it"
	if len(names) > 1 {
		s = "none of " + strings.Join(names, ", ") + " computes it"
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	return s
}

// checkModes refuses flags that -peak and -list would otherwise ignore in
// silence: -peak writes a table or JSON, -list a text list on standard
// output, and each prints one thing.
func checkModes(cfg *config) error {
	switch {
	case cfg.peak && cfg.list:
		return usagef("-peak and -list each print one thing: give one of them")
	case cfg.peak && cfg.format != "table" && cfg.format != "json":
		return usagef("-peak prints a table or JSON (-format=table or -format=json), not -format=%s", cfg.format)
	case cfg.list && (cfg.output != "" || cfg.format != "table"):
		return usagef("-list prints its list on standard output as text: -o and -format do not apply to it")
	}
	return nil
}
