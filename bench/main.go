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
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	_ "github.com/peakbench/peakbench/bench/backend/all"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/internal/hostmem"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	_ "github.com/peakbench/peakbench/bench/platform/all"
	"github.com/peakbench/peakbench/bench/result"
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
	finished := make(chan struct{})
	go sayStopping(ctx, finished, stop, os.Stderr)
	err := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	close(finished)
	stop()
	os.Exit(exitCode(os.Stderr, err))
}

// sayStopping tells, as soon as a signal ends the run, that it was heard:
// a kernel call in progress (a large GEMM being verified takes seconds)
// finishes before the results are written, and a run silent meanwhile
// gets killed. Then the signals' default comes back, so a second Ctrl-C
// ends the process at once. What it says after "stopping: " is what the
// run set last (noteStop): a journal is promised only where one exists.
func sayStopping(ctx context.Context, finished <-chan struct{}, stop func(), stderr io.Writer) {
	select {
	case <-finished:
	case <-ctx.Done():
		select {
		case <-finished: // main's stop after the run, not a signal
			return
		default:
		}
		fmt.Fprintln(stderr, "peakbench: stopping: "+stopText())
		stop()
	}
}

// stopNote is what the line a signal prints says after "stopping: ", set
// by the run as it goes from one stage to the next; nil: stopNothingYet.
var stopNote atomic.Pointer[string]

// What a signal stops, at each stage of a run.
const (
	// Before the first workload (the peaks being measured, the backends
	// opening): no result, and no journal yet.
	stopNothingYet = "no workload is measured yet: nothing is written and there is no journal to resume (a second Ctrl-C ends it now)"
	// A subcommand (report, compare) reads files and measures nothing.
	stopSubcommand = "nothing is written (a second Ctrl-C ends it now)"
	// Workloads being measured, each kept in the journal (%s) as it ends.
	stopJournal = "the call in progress finishes, then the results measured so far are written (a second Ctrl-C ends it now; -resume %s continues from the journal)"
	// Workloads being measured, the journal not writable: memory alone.
	stopNoJournal = "the call in progress finishes, then the results measured so far are written (a second Ctrl-C ends it now and loses them: this run has no journal)"
	// -tune: the parameters decided so far go to the tune file (%s).
	stopTune = "the search in progress finishes, then the parameters found so far are written to %s (a second Ctrl-C ends it now and writes nothing)"
)

// noteStop sets what a signal's line says from now on.
func noteStop(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	stopNote.Store(&s)
}

// stopText is what a signal's line says now.
func stopText() string {
	if s := stopNote.Load(); s != nil {
		return *s
	}
	return stopNothingYet
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
	noteStop(stopNothingYet)
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok { // report, compare (subcommands.go)
			noteStop(stopSubcommand)
			return sub(ctx, stdout, stderr, args[1:])
		}
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if err := checkModes(cfg); err != nil { // validate.go
		return err
	}
	applyIdleWait(cfg.idleWait) // finish.go
	if cfg.tune {
		return runTune(ctx, stderr, cfg) // tune.go
	}
	if err := applyTuning(stderr, cfg); err != nil { // tuning.go: before any backend reports its details
		return err
	}
	if cfg.list {
		return listBackends(stdout, cfg.backends, cfg.isolate, cfg.openOptions())
	}
	var workloads []workload.Workload
	if !cfg.peak {
		var skipped []string
		if workloads, skipped, err = workload.ExpandSkipping(cfg.selection); err != nil {
			return usageError{err.Error()}
		}
		for _, s := range skipped {
			fmt.Fprintf(stderr, "peakbench: skipped %s\n", s)
		}
	}
	if cfg.output != "" {
		if err := atomicfile.CheckWritable(cfg.output); err != nil {
			return usagef("-o: %v", err)
		}
	}
	if err := cfg.baselines.load(); err != nil {
		return err
	}
	backends, infos, err := openBackends(cfg.backends, cfg.isolate, cfg.openOptions())
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range backends {
			b.Close()
		}
	}()
	defer stopWorkersOn(ctx, backends)()
	if !cfg.peak { // -peak measures no workload: -vs has nothing to compare
		if err := vsAvailable(cfg.vs, infos); err != nil {
			return err
		}
	}
	if workloads, err = computable(stderr, workloads, backends); err != nil { // validate.go
		return err
	}
	if err := checkMemory(workloads, backends, cfg); err != nil {
		return err
	}

	start := time.Now()
	jp, err := planJournal(cfg, workloads, infos, start) // journal.go: where results are kept as measured; -resume
	if err != nil {
		return err
	}
	var (
		rep   *result.Run
		noGPU []string
	)
	if jp.prior != nil { // the machine, peaks and environment of the run resumed
		noteStop(stopJournal, jp.path) // it exists already
		rep = jp.resumedRun(stderr, cfg, start)
	} else if rep, noGPU, err = measurePeaks(ctx, stderr, cfg, args, backends, infos, start); err != nil { // peaks.go
		return err
	}
	machine, peaks := rep.Machine, rep.Peaks
	if cfg.peak {
		return emit(stdout, cfg, func(w io.Writer) error {
			if err := writePeaks(w, rep, cfg.format); err != nil {
				return err
			}
			return writeGPUPeaks(w, stderr, rep.Peaks.GPUs, noGPU, cfg.format)
		})
	}

	jr := jp.open(stderr, rep, cfg)
	defer jr.close(stderr)
	if jr.w != nil {
		noteStop(stopJournal, jr.path)
	} else {
		noteStop(stopNoJournal)
	}
	opt := measure.DefaultOptions()
	opt.MinTime, opt.NoiseTarget = cfg.minTime, cfg.noise
	var measureStart time.Time
	refused := newRefusals() // refusals.go
	plan := harness.Plan{
		Workloads: workloads, Backends: backends, Threads: cfg.threads, Cache: cfg.cache,
		Seed: cfg.seed, Measure: opt, Machine: machine, Peaks: peaks, Reference: cfg.reference,
		Clock: peak.MeasureClock, ProbeOverhead: true, Skip: jr.skip, Finished: jr.record, Refused: refused.add,
		Progress: func(done, total int, latest []result.Result) {
			progress(stderr, done, total, latest, cfg.verbose, remaining(time.Since(measureStart), done, total))
			if progressHook != nil {
				progressHook()
			}
		},
	}
	if cfg.verbose {
		progressf(stderr, "%s", plan.Describe())
	}
	measureStart = time.Now()
	outcome, err := harness.Run(ctx, plan)
	// The results are the journal's: a resumed run's earlier ones included.
	rep.Results, rep.ClockEnd = jr.results(outcome.Results), outcome.Clocks
	if rep.Results == nil {
		rep.Results = []result.Result{} // "results": [] in the JSON, not null
	}
	refused.report(stderr, backends, rep.Results)
	finishGPU(stderr, rep, backends) // gpu.go: empirical GEMM peaks, NVML details, throttle warnings
	rep.ModelErrors = diagnose.CheckModel(rep)
	if err == nil {
		recheckBandwidth(ctx, stderr, cfg, rep) // recheck.go
		recheckCompute(ctx, stderr, cfg, rep)
	}
	if errors.Is(err, measure.ErrInterrupted) {
		rep.Interrupted = true
		if werr := finishRun(stdout, stderr, cfg, rep); werr != nil { // finish.go
			return werr
		}
		return fmt.Errorf("interrupted: wrote the %d results measured before the stop", len(rep.Results))
	}
	if err != nil {
		return err
	}
	if err := finishRun(stdout, stderr, cfg, rep); err != nil {
		return err
	}
	jr.finish(stderr, cfg)
	return cfg.baselines.after(stdout, stderr, cfg, rep)
}

// printChecks ends a run on standard error with what its checks found
// (diagnose.CheckLines): model errors, clock drift, code paths below the
// machine; or one line saying all passed.
func printChecks(stderr io.Writer, rep *result.Run) {
	lines := diagnose.CheckLines(rep)
	if len(lines) == 0 && len(rep.Results) == 0 {
		return // no result to have passed them
	}
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
	return atomicfile.WriteFileAtomic(cfg.output, func(f *os.File) error { return write(f) })
}

// openBackends opens the named backends, or every available one when names
// is empty. A named backend that cannot open is an error; an unnamed one is
// recorded as unavailable with its reason.
// Vendor libraries open in a child process unless isolate is "off"
// (isolate.go). Each opens with opt: the GPU (-device) and the watchdog's
// limit (-timeout).
func openBackends(names []string, isolate string, opt backend.OpenOptions) ([]backend.Backend, []result.BackendInfo, error) {
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
		infos  []result.BackendInfo
	)
	for _, f := range fs {
		b, err := f.Open(opt)
		if err != nil {
			if !all {
				for _, o := range opened {
					o.Close()
				}
				return nil, nil, fmt.Errorf("backend %s is not available: %v", f.Name, err)
			}
			infos = append(infos, result.BackendInfo{Name: f.Name, Reason: err.Error()})
			continue
		}
		opened = append(opened, b)
		infos = append(infos, result.BackendInfo{Name: f.Name, Device: b.Device().String(), Available: true, Info: b.Info()})
	}
	if len(opened) == 0 {
		return nil, nil, errors.New("no backend is available (see -list)")
	}
	return opened, infos, nil
}

// vsAvailable fails a run whose -vs base could not open here (-backend=all
// records it unavailable and goes on): its column would be empty. A named
// -backend that cannot open fails in openBackends already.
func vsAvailable(vs string, infos []result.BackendInfo) error {
	for _, in := range infos {
		if in.Name == vs && !in.Available {
			return fmt.Errorf("-vs: backend %s is not available: %s", vs, in.Reason)
		}
	}
	return nil
}

// listBackends says of each backend (those of -backend, every one when it
// names none) whether it is available here, and why not, one line each;
// the go and asm backends' line ends with the tuning in use (their
// "tuning" detail: a tune file, or the built-in defaults and why).
func listBackends(w io.Writer, names []string, isolate string, opt backend.OpenOptions) error {
	for _, f := range factories(backend.All(), isolate) {
		if len(names) > 0 && !slices.Contains(names, strings.TrimSuffix(f.Name, inprocSuffix)) {
			continue
		}
		b, err := f.Open(opt)
		if err != nil {
			fmt.Fprintf(w, "%-10s not available: %v\n", f.Name, err)
			continue
		}
		info := b.Info()
		tuning := ""
		if t := info.Details["tuning"]; t != "" {
			tuning = "; tuning: " + t
		}
		fmt.Fprintf(w, "%-10s available: %s (%s)%s\n", f.Name, info.Version, f.Description, tuning)
		b.Close()
	}
	return nil
}

func environment(start time.Time, args []string, cfg *config) result.Env {
	host, _ := os.Hostname()
	return result.Env{
		Start: start.UTC().Format(time.RFC3339), Host: host, GoVersion: goVersion(),
		Args: args, Seed: cfg.seed, Cache: cfg.cache,
		MinTimeNS: cfg.minTime.Nanoseconds(), NoiseTarget: cfg.noise,
		TimerOverheadNS: float64(measure.TimerOverhead().Nanoseconds()),
		HugePages:       hostmem.HugePages(),
	}
}

// remaining estimates the time left from the time per workload so far:
// sampling lasts about as long for every workload (the samples are sized
// by -min-time), so the count of workloads left is a fair measure.
func remaining(elapsed time.Duration, done, total int) time.Duration {
	if done <= 0 || done >= total {
		return 0
	}
	return elapsed / time.Duration(done) * time.Duration(total-done)
}

// etaText writes a time left for progress lines: "about 3m10s left".
func etaText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	if d < time.Minute {
		return fmt.Sprintf(" (about %ds left)", int(d.Seconds()+0.5))
	}
	return fmt.Sprintf(" (about %s left)", d.Round(10*time.Second))
}

// progress reports one finished workload on standard error, with the time
// left (0: not said).
func progress(w io.Writer, done, total int, latest []result.Result, verbose bool, left time.Duration) {
	var parts []string
	for _, r := range latest {
		switch {
		case r.Error != "":
			parts = append(parts, fmt.Sprintf("%s error", r.Series()))
		case !r.Verified:
			parts = append(parts, fmt.Sprintf("%s FAILED verification", r.Series()))
		default:
			mark := ""
			if diagnose.OverBound(&r) {
				mark = " above its bound!"
			}
			rate := units.Sig(r.GFLOPS) + " GFLOP/s"
			if r.FLOPs == 0 { // an op without arithmetic (the sparse conversions): its bandwidth says more
				rate = units.Sig(r.GBPS) + " GB/s"
			}
			parts = append(parts, fmt.Sprintf("%s %s (%.0f%%%s)", r.Series(), rate, 100*r.Share.Roofline, mark))
		}
		if verbose && r.Error != "" {
			parts[len(parts)-1] += ": " + r.Error
		}
	}
	if len(latest) == 0 {
		return
	}
	r := latest[0]
	fmt.Fprintf(w, "[%d/%d]%s %s %s %s threads=%d: %s\n", done, total, etaText(left), r.Op, r.DType, r.Shape, r.Threads, strings.Join(parts, ", "))
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
