// Command peakbench runs identical workloads on numerical libraries and
// reports each result as a share of this machine's peak.
//
//	go run ./bench -backend=go,gonum -suite=quick
//	go run ./bench -list
//	go run ./bench -peak
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	_ "github.com/peakbench/peakbench/bench/backend/all"
	"github.com/peakbench/peakbench/bench/backend/gpu"
	"github.com/peakbench/peakbench/bench/backend/rocblas"
	"github.com/peakbench/peakbench/bench/backend/worker"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/report"
	"github.com/peakbench/peakbench/bench/workload"
)

// progressHook, when set by a test, runs after each progress report.
var progressHook func()

func main() {
	if code, child := serveChild(os.Args); child { // a vendor backend's child process (isolate.go)
		os.Exit(code)
	}
	// Ctrl-C, SIGTERM and SIGHUP (a closed terminal or SSH session) end the
	// run: the children are stopped, the finished results written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(exitCode(os.Stderr, err))
}

// exitCode prints err in one line and maps it to the exit status (exit.go):
// 2 for bad input, 3 for failed results, 1 for a regression, a failure or
// an interruption, 0 for success.
func exitCode(stderr io.Writer, err error) int {
	var (
		ue usageError
		fr failedResults
	)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "peakbench: %v\n", err)
		return exitUsage
	case errors.As(err, &fr):
		fmt.Fprintf(stderr, "peakbench: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "peakbench: %v\n", err)
	return exitRegression
}

func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok { // report, compare (subcommands.go)
			return sub(ctx, stdout, stderr, args[1:])
		}
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	gpu.SelectDevice(cfg.device) // gpu.go
	rocblas.SelectDevice(cfg.device)
	worker.SetTimeout(cfg.timeout)
	if cfg.list {
		return listBackends(stdout, cfg.isolate)
	}
	var workloads []workload.Workload
	if !cfg.peak {
		if workloads, err = workload.Expand(cfg.selection); err != nil {
			return usageError{err.Error()}
		}
	}
	if cfg.output != "" {
		if err := report.CheckWritable(cfg.output); err != nil {
			return usagef("-o: %v", err)
		}
	}
	if err := cfg.baselines.load(); err != nil {
		return err
	}
	backends, infos, err := openBackends(cfg.backends, cfg.isolate)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range backends {
			b.Close()
		}
	}()
	defer stopWorkersOn(ctx, backends)()
	if err := checkMemory(workloads, backends, cfg); err != nil { // validate.go
		return err
	}

	start := time.Now()
	machine := peak.MeasureUnits(peak.DetectMachine(), cfg.selection.Suite == "quick")
	if machine.UnitsNote != "" {
		progressf(stderr, "fp units: %s", machine.UnitsNote)
	}
	who := "threads"
	if len(cfg.threads) == 1 && cfg.threads[0] == 1 {
		who = "thread"
	}
	progressf(stderr, "measuring peaks for %s %s…", joinInts(cfg.threads), who)
	peaks, err := peak.Measure(ctx, machine, peak.Options{
		Threads: cfg.threads, PeakGFLOPS: cfg.peakGFLOPS, PeakGBPS: cfg.peakGBPS,
		Quick: cfg.selection.Suite == "quick",
	})
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted while measuring peaks; nothing was benchmarked")
		}
		return fmt.Errorf("measuring peaks: %v", err)
	}
	var noGPU []string
	peaks.GPUs, noGPU = gpuPeaks(stderr, backends, cfg) // gpu.go
	rep := &report.Run{
		Format: report.Format, Machine: machine, Peaks: peaks, Backends: infos,
		Env: environment(start, args, cfg), Vs: cfg.vs,
	}
	report.CheckCodePaths(rep) // each library's code path against the machine
	if cfg.peak {
		return emit(stdout, cfg, func(w io.Writer) error {
			if err := writePeaks(w, rep, cfg.format); err != nil {
				return err
			}
			return writeGPUPeaks(w, stderr, rep.Peaks.GPUs, noGPU, cfg.format)
		})
	}

	opt := measure.DefaultOptions()
	opt.MinTime, opt.NoiseTarget = cfg.minTime, cfg.noise
	plan := harness.Plan{
		Workloads: workloads, Backends: backends, Threads: cfg.threads, Cache: cfg.cache,
		Seed: cfg.seed, Measure: opt, Machine: machine, Peaks: peaks, Reference: cfg.reference,
		Clock: peak.MeasureClock,
		Progress: func(done, total int, latest []report.Result) {
			progress(stderr, done, total, latest, cfg.verbose)
			if progressHook != nil {
				progressHook()
			}
		},
	}
	if cfg.verbose {
		progressf(stderr, "%s", plan.Describe())
	}
	outcome, err := harness.Run(ctx, plan)
	rep.Results, rep.ClockEnd = outcome.Results, outcome.Clocks
	finishGPU(stderr, rep, backends) // gpu.go: empirical GEMM peaks, NVML details, throttle warnings
	rep.ModelErrors = report.CheckModel(rep)
	if errors.Is(err, measure.ErrInterrupted) {
		rep.Interrupted = true
		werr := emit(stdout, cfg, func(w io.Writer) error { return report.Write(w, rep, cfg.format) })
		if werr != nil {
			return werr
		}
		printChecks(stderr, rep)
		return fmt.Errorf("interrupted: wrote the %d results measured before the stop", len(rep.Results))
	}
	if err != nil {
		return err
	}
	if err := emit(stdout, cfg, func(w io.Writer) error { return report.Write(w, rep, cfg.format) }); err != nil {
		return err
	}
	printChecks(stderr, rep)
	return cfg.baselines.after(stdout, stderr, cfg, rep)
}

// printChecks ends a run on standard error with what its checks found
// (report.CheckLines): model errors, clock drift, code paths below the
// machine; or one line saying all passed.
func printChecks(stderr io.Writer, rep *report.Run) {
	lines := report.CheckLines(rep)
	if len(lines) == 0 {
		progressf(stderr, "checks passed: no result above its roofline bound beyond its noise, no clock drift, every library on the machine's full vector width.")
		return
	}
	items := 0 // model errors listed under the last cause
	more := func() {
		if items > maxStderrItems {
			fmt.Fprintf(stderr, "    - and %d more: every one is in the output (model_errors in the JSON).\n", items-maxStderrItems)
		}
		items = 0
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "    - "):
			if items++; items <= maxStderrItems {
				fmt.Fprintln(stderr, l)
			}
			continue
		case strings.HasPrefix(l, " "):
			more()
			fmt.Fprintln(stderr, l)
		default:
			more()
			progressf(stderr, "%s", l)
		}
	}
	more()
}

// maxStderrItems bounds the model errors standard error lists under one
// likely cause.
const maxStderrItems = 5

// emit writes to -o atomically, or to stdout.
func emit(stdout io.Writer, cfg *config, write func(io.Writer) error) error {
	if cfg.output == "" {
		return write(stdout)
	}
	return report.WriteFileAtomic(cfg.output, func(f *os.File) error { return write(f) })
}

// openBackends opens the named backends, or every available one when names
// is empty. A named backend that cannot open is an error; an unnamed one is
// recorded as unavailable with its reason.
// Vendor libraries open in a child process unless isolate is "off"
// (isolate.go).
func openBackends(names []string, isolate string) ([]backend.Backend, []report.BackendInfo, error) {
	all := len(names) == 0
	var fs []backend.Factory
	if all {
		fs = backend.All()
	} else {
		for _, n := range names {
			f, _ := backend.Lookup(n) // validated by parseFlags
			fs = append(fs, f)
		}
	}
	fs = factories(fs, isolate)
	var (
		opened []backend.Backend
		infos  []report.BackendInfo
	)
	for _, f := range fs {
		b, err := f.Open()
		if err != nil {
			if !all {
				for _, o := range opened {
					o.Close()
				}
				return nil, nil, fmt.Errorf("backend %s is not available: %v", f.Name, err)
			}
			infos = append(infos, report.BackendInfo{Name: f.Name, Reason: err.Error()})
			continue
		}
		opened = append(opened, b)
		infos = append(infos, report.BackendInfo{Name: f.Name, Device: b.Device(), Available: true, Info: b.Info()})
	}
	if len(opened) == 0 {
		return nil, nil, errors.New("no backend is available (see -list)")
	}
	return opened, infos, nil
}

func listBackends(w io.Writer, isolate string) error {
	for _, f := range factories(backend.All(), isolate) {
		b, err := f.Open()
		if err != nil {
			fmt.Fprintf(w, "%-10s not available: %v\n", f.Name, err)
			continue
		}
		info := b.Info()
		fmt.Fprintf(w, "%-10s available: %s (%s)\n", f.Name, info.Version, f.Description)
		b.Close()
	}
	return nil
}

func environment(start time.Time, args []string, cfg *config) report.Env {
	host, _ := os.Hostname()
	return report.Env{
		Start: start.UTC().Format(time.RFC3339), Host: host, GoVersion: goVersion(),
		Args: args, Seed: cfg.seed, Cache: cfg.cache,
		MinTimeNS: cfg.minTime.Nanoseconds(), NoiseTarget: cfg.noise,
		TimerOverheadNS: float64(measure.TimerOverhead().Nanoseconds()),
		HugePages:       hostmem.HugePages(),
	}
}

// progress reports one finished workload on standard error.
func progress(w io.Writer, done, total int, latest []report.Result, verbose bool) {
	var parts []string
	for _, r := range latest {
		switch {
		case r.Error != "":
			parts = append(parts, fmt.Sprintf("%s error", r.Series()))
		case !r.Verified:
			parts = append(parts, fmt.Sprintf("%s FAILED verification", r.Series()))
		default:
			mark := ""
			if report.OverBound(&r) {
				mark = " above its bound!"
			}
			parts = append(parts, fmt.Sprintf("%s %s GFLOP/s (%.0f%%%s)", r.Series(), report.Sig(r.GFLOPS), 100*r.Share.Roofline, mark))
		}
		if verbose && r.Error != "" {
			parts[len(parts)-1] += ": " + r.Error
		}
	}
	if len(latest) == 0 {
		return
	}
	r := latest[0]
	fmt.Fprintf(w, "[%d/%d] %s %s %s threads=%d: %s\n", done, total, r.Op, r.DType, r.Shape, r.Threads, strings.Join(parts, ", "))
}

func progressf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "peakbench: "+format+"\n", args...)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
