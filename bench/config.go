package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/report"
	"github.com/peakbench/peakbench/bench/workload"
)

// config is the parsed command line.
type config struct {
	backends   []string // empty: every available backend
	selection  workload.Selection
	threads    []int
	cache      string
	reference  bool
	minTime    time.Duration
	noise      float64
	format     string
	output     string
	list       bool
	peak       bool
	seed       uint64
	verbose    bool
	peakGFLOPS float64
	peakGBPS   float64
	device     int            // -device: the GPU the GPU backends run on (openOptions)
	allowFail  bool           // -allow-failures: failed results do not change the exit status
	baselines  *baselineFlags // -save-baseline, -baseline, -threshold (baseline.go)
	vs         string         // -vs: the backend speedups are shown over
	resultsDir string         // -results-dir: also write DIR/<machine>-<date>.json and .html
	idleWait   string         // -idle-wait: short (peakbench's) or library (the libraries' defaults)
	summary    bool           // -summary: end the run with the one-screen summary on standard error
	mem        bool           // -mem: a memory column in the tables
	resume     string         // -resume: the journal of the run to continue (journal.go)
	isolate    string         // -isolate: on, off, or both (isolate.go)
	timeout    time.Duration  // -timeout: the watchdog's base limit (isolate.go)
	tune       bool           // -tune: search the go and asm kernels' parameters (tune.go)
	tuneFile   string         // -tune-file: the tune file to read or write (tuning.go)
	tuneBudget time.Duration  // -tune-budget: how long -tune may search
}

// usageError is bad input: the command exits with status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("peakbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		backends = fs.String("backend", "all", "backends to run, comma-separated, or \"all\" available ones (see -list)")
		ops      = fs.String("op", "all", "operations, comma-separated: "+opNames()+", or \"all\"")
		suite    = fs.String("suite", workload.DefaultSuite, "problem set: "+strings.Join(workload.Suites, ", ")+" (default: one size per cache level of each op, a few minutes on 2 cores; standard and full are the long runs)")
		sizes    = fs.String("size", "", "sizes, comma-separated, replacing the suite's: gemm N or MxNxK[:NT|TN|TT], gemv N or MxN, softmax ROWSxCOLS, vector ops the element count (suffixes k, M, G: powers of 1000; Ki, Mi, Gi: of 1024); "+workload.LayerSyntax()+" (docs/layers.md); "+workload.SparseSyntax())
		matrix   = fs.String("matrix", "", "Matrix Market files (.mtx, coordinate real, integer or pattern; general or symmetric), comma-separated: sizes of the sparse ops (spmv, spmm, csr2coo, coo2csr, csr2csc), added to -size's; the other ops keep theirs")
		dtypes   = fs.String("dtype", "all", "element types: f32, f64, or \"all\" (f32 and f64); also f16, bf16, tf32, i8, u8s8, e4m3, e5m2 (gemm), i8, u8 (quantize, dequantize), bf16, f16 (convert, widen), u8s8, i8 (qlinear)")
		threads  = fs.String("threads", strconv.Itoa(runtime.NumCPU()), "thread counts, comma-separated (e.g. 1,2); also for -peak")
		c        = &config{}
	)
	fs.StringVar(&c.cache, "cache", "hot", "hot (buffers reused) or cold (rotate buffer sets larger than the last-level cache)")
	fs.BoolVar(&c.reference, "reference", true, "sample a stream of each memory-bound CPU workload's bytes beside its backends; results get their share of it (%REF)")
	fs.DurationVar(&c.minTime, "min-time", 20*time.Millisecond, "least duration of one sample")
	noise := fs.String("noise", "3%", "target relative spread (IQR/median); sampling extends, bounded, until met")
	fs.StringVar(&c.format, "format", "table", "output format: "+strings.Join(report.Formats, ", "))
	fs.StringVar(&c.output, "o", "", "write the output to this file (atomically) instead of standard output")
	fs.BoolVar(&c.list, "list", false, "list every backend and whether it is available here")
	fs.BoolVar(&c.peak, "peak", false, "print the machine and its measured peaks, with the formulas used")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random inputs and of the interleaving order")
	fs.BoolVar(&c.verbose, "v", false, "verbose progress on standard error")
	fs.Float64Var(&c.peakGFLOPS, "peak-gflops", 0, "theoretical compute peak in GFLOP/s to use instead of the computed one")
	fs.Float64Var(&c.peakGBPS, "peak-bw", 0, "DRAM bandwidth in GB/s to use instead of the measured one")
	fs.BoolVar(&c.allowFail, "allow-failures", false, "exit 0 even when a result fails verification or its backend errors (the default exit status is 3)")
	fs.IntVar(&c.device, "device", 0, "GPU device index the GPU backends (cuBLAS, cuDNN, cuFFT, cuSPARSE, rocBLAS, torch-cuda) run on")
	c.baselines = registerBaselineFlags(fs)
	fs.StringVar(&c.resultsDir, "results-dir", "", "also write the run as DIR/<machine>-<date>.json and .html (make bench: results)")
	fs.StringVar(&c.idleWait, "idle-wait", "short", "idle-wait settings of the threaded libraries: short (KMP_BLOCKTIME=1, OPENBLAS_THREAD_TIMEOUT=22, so that idle threads leave the cores to the next backend) or library (each library's own defaults)")
	fs.BoolVar(&c.summary, "summary", true, "end the run with a one-screen summary on standard error: best backend per op family, each backend's standing, the top findings, the files written")
	fs.BoolVar(&c.mem, "mem", false, "add a memory column to the table and Markdown: each result's resident growth and, for Go backends, allocations per iteration (always in the JSON)")
	fs.StringVar(&c.resume, "resume", "", "continue the stopped run whose journal is this `FILE` (given the same flags): workloads it finished are kept, the rest measured")
	fs.StringVar(&c.isolate, "isolate", "on", "vendor libraries (the backends loaded at run time: the CBLAS libraries, MKL, oneDNN, FFTW, the GPU libraries) run in a child process each: \"on\"; \"off\" runs them in process; \"both\" runs each both ways, the in-process one named NAME-inproc, to measure the cost (docs/architecture.md)")
	fs.DurationVar(&c.timeout, "timeout", 0, "a backend in a child process that takes longer than this to answer one request (a run: 20× its expected time if longer) is stopped and its results reported as timed out; 0: max(30s, 1000 × -min-time)")
	fs.BoolVar(&c.tune, "tune", false, "search the go and asm kernels' parameters on this machine (the sizes from which the vector kernels use more than one thread, store non-temporally and drop from AVX-512 to AVX2) within -tune-budget, write them to the tune file and exit; later runs use them (docs/tuning.md)")
	fs.StringVar(&c.tuneFile, "tune-file", "", "the tune `FILE` runs read and -tune writes (default: this machine's, in the user's cache folder); \"none\": run on the built-in defaults")
	fs.DurationVar(&c.tuneBudget, "tune-budget", time.Minute, "how long -tune may search; interrupted or out of time, it keeps what it found")
	fs.StringVar(&c.vs, "vs", "", "a backend of the run (e.g. torch): add each other backend's speedup over it, per workload and as a geometric mean")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: peakbench [flags]\n\nRuns workloads on numerical libraries and reports each result as a share of this machine's peak.\n\n")
		fs.PrintDefaults()
	}
	if err := parseQuietly(fs, args, stderr); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	if *backends != "all" {
		for _, name := range splitList(*backends) {
			if _, err := backend.Lookup(name); err != nil {
				return nil, usagef("-backend: %v", err)
			}
			c.backends = appendNew(c.backends, name)
		}
		if len(c.backends) == 0 {
			return nil, usagef("-backend: empty list")
		}
	}
	if c.vs != "" {
		// With -isolate=both a vendor library's in-process results
		// (NAME-inproc) are the run's too: a base like any other.
		name, twin := strings.CutSuffix(c.vs, inprocSuffix)
		f, err := backend.Lookup(name)
		switch {
		case err != nil && twin:
			_, err = backend.Lookup(c.vs) // the name given, in the message
			return nil, usagef("-vs: %v", err)
		case err != nil:
			return nil, usagef("-vs: %v", err)
		case twin && !f.Isolate:
			return nil, usagef("-vs: %s has no in-process twin: %s always runs in process (-isolate=both adds NAME%s for the vendor libraries)", c.vs, name, inprocSuffix)
		case twin && c.isolate != "both":
			return nil, usagef("-vs: %s (%s run in process) exists with -isolate=both alone; give -isolate=both, or -vs=%s", c.vs, name, name)
		}
		if len(c.backends) > 0 && !slices.Contains(c.backends, name) {
			return nil, usagef("-vs: %s is not among the -backend list (%s)", name, strings.Join(c.backends, ","))
		}
	}
	c.selection.Suite = *suite
	if !slices.Contains(workload.Suites, *suite) {
		return nil, usagef("-suite: unknown suite %q (accepted: %s)", *suite, strings.Join(workload.Suites, ", "))
	}
	if *ops != "all" {
		if len(splitList(*ops)) == 0 {
			return nil, usagef("-op: empty list (name ops such as gemm,axpy, or all)")
		}
		for _, s := range splitList(*ops) {
			op, err := workload.ParseOp(s)
			if err != nil {
				return nil, usagef("-op: %v", err)
			}
			c.selection.Ops = appendNew(c.selection.Ops, op)
		}
	}
	if *dtypes != "all" {
		if len(splitList(*dtypes)) == 0 {
			return nil, usagef("-dtype: empty list (name dtypes such as f32,f64, or all)")
		}
		for _, s := range splitList(*dtypes) {
			dt, err := workload.ParseDType(s)
			if err != nil {
				return nil, usagef("-dtype: %v", err)
			}
			c.selection.DTypes = appendNew(c.selection.DTypes, dt)
		}
	}
	c.selection.Sizes = splitList(*sizes) // the same size written twice: one workload (workload.ExpandSkipping)
	c.selection.Matrices = splitList(*matrix)
	if len(c.selection.Sizes) == 0 && flagSet(fs, "size") {
		return nil, usagef("-size: empty list (name sizes such as 512,1024, or leave -size out for the suite's)")
	}
	var err error
	if c.threads, err = parseThreads(*threads); err != nil {
		return nil, usagef("-threads: %v", err)
	}
	if err := checkThreads(c.threads, availableCPUs()); err != nil { // validate.go
		return nil, usagef("-threads: %v", err)
	}
	if c.cache != "hot" && c.cache != "cold" {
		return nil, usagef("-cache: %q is not hot or cold", c.cache)
	}
	if c.minTime <= 0 || c.minTime > time.Minute {
		return nil, usagef("-min-time: %v: a sample must last more than 0 and at most 1m (e.g. 20ms)", c.minTime)
	}
	if c.noise, err = parsePercent(*noise); err != nil {
		return nil, usagef("-noise: %v", err)
	}
	if !slices.Contains(report.Formats, c.format) {
		return nil, usagef("-format: unknown format %q (accepted: %s)", c.format, strings.Join(report.Formats, ", "))
	}
	if c.idleWait != "short" && c.idleWait != "library" {
		return nil, usagef("-idle-wait: %q is not short or library", c.idleWait)
	}
	if c.resultsDir != "" {
		if err := checkResultsDir(c.resultsDir); err != nil { // results.go
			return nil, usagef("-results-dir: %v", err)
		}
	}
	if !slices.Contains(isolateModes, c.isolate) {
		return nil, usagef("-isolate: unknown mode %q (accepted: %s)", c.isolate, strings.Join(isolateModes, ", "))
	}
	if c.timeout < 0 {
		return nil, usagef("-timeout: %v is negative (0 derives it from -min-time)", c.timeout)
	}
	if c.timeout == 0 {
		c.timeout = defaultTimeout(c.minTime)
	}
	if c.tune && (c.peak || c.list || c.resume != "") {
		return nil, usagef("-tune searches the kernels' parameters and exits; it does not go with -peak, -list or -resume")
	}
	if c.tune && c.tuneFile == noTuneFile {
		return nil, usagef("-tune writes a tune file; -tune-file=%s names none", noTuneFile)
	}
	if c.tuneBudget <= 0 {
		return nil, usagef("-tune-budget: %v is not a positive duration", c.tuneBudget)
	}
	if c.device < 0 {
		return nil, usagef("-device: %d is not a device index (0, 1, …)", c.device)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"-peak-gflops", c.peakGFLOPS}, {"-peak-bw", c.peakGBPS}} {
		if err := checkRate(f.v); err != nil { // validate.go
			return nil, usagef("%s: %v", f.name, err)
		}
	}
	if c.resume != "" && (c.peak || c.list) {
		return nil, usagef("-resume continues a benchmark run; it does not go with -peak or -list")
	}
	if err := checkEnvironment(); err != nil { // validate.go
		return nil, usageError{err.Error()}
	}
	if err := c.baselines.check(c); err != nil {
		return nil, err
	}
	return c, nil
}

func opNames() string {
	s := make([]string, len(workload.Ops))
	for i, op := range workload.Ops {
		s[i] = string(op)
	}
	return strings.Join(s, ", ")
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// appendNew appends v unless s holds it: a value named twice in a list
// flag is measured once, in its first place.
func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// maxThreads bounds -threads: far above any machine, low enough to catch typos.
const maxThreads = 4096

// parseThreads reads a list of thread counts such as "1,2".
func parseThreads(s string) ([]int, error) {
	fields := splitList(s)
	if len(fields) == 0 {
		return nil, errors.New("empty list (want counts such as 1,2)")
	}
	var out []int
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > maxThreads {
			return nil, fmt.Errorf("%q is not a thread count from 1 to %d", f, maxThreads)
		}
		out = appendNew(out, n)
	}
	return out, nil
}

// parsePercent reads "3%" or "0.03".
func parsePercent(s string) (float64, error) {
	v, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(v, 64)
	if pct {
		f /= 100
	}
	if err != nil || !(f > 0 && f < 1) { // also refuses NaN
		return 0, fmt.Errorf("%q is not a fraction between 0 and 1 (e.g. 3%% or 0.03)", s)
	}
	return f, nil
}

// openOptions is what every backend is opened with: the GPU (-device) and
// the limit of a request to a backend in another process (-timeout).
func (c *config) openOptions() backend.OpenOptions {
	return backend.OpenOptions{Device: c.device, Timeout: c.timeout}
}
