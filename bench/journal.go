package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/internal/journal"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// A run's results go to a journal (bench/internal/journal) as each
// workload finishes, and the output is written from it at the end: a run
// stopped by Ctrl-C, SIGKILL or a crash keeps every finished workload, and
// -resume continues it. Where the journal lives: beside -o (OUT.journal),
// or, without -o or when -o is a device or pipe, in the user's cache
// folder ($XDG_CACHE_HOME/peakbench/journals, else ~/.cache/…). A run whose
// output is JSON removes its journal at the end (the output holds all of
// it); other formats keep it, marked finished, for the samples they leave
// out.

// journalPlan is where a run's journal goes, decided before the peaks are
// measured so that a journal in the way, or a resume that does not match,
// fails at once.
type journalPlan struct {
	path   string
	prior  *journal.Journal // -resume: the journal read back; nil for a new run
	config map[string]string
	names  []string // the workloads, as the journal names them
}

// planJournal picks the journal of this run: with -resume the one named,
// after checking it was made on this machine with this configuration;
// otherwise a new one, refusing to replace an unfinished run's.
func planJournal(cfg *config, workloads []workload.Workload, infos []result.BackendInfo, start time.Time) (*journalPlan, error) {
	jp := &journalPlan{config: runConfig(cfg, infos)}
	if cfg.peak {
		return jp, nil // nothing to keep: -peak measures the peaks alone
	}
	for _, w := range workloads {
		jp.names = append(jp.names, w.String())
	}
	if cfg.resume == "" {
		jp.path = journalPath(cfg, start)
		if err := journal.CheckFree(jp.path); err != nil {
			return nil, usagef("journal: %v", err)
		}
		return jp, nil
	}
	j, err := journal.Read(cfg.resume)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("-resume: %s: no such file", cfg.resume)
	}
	if err != nil {
		// A run with -o FILE keeps its journal beside it as FILE.journal:
		// the output is the name one remembers.
		if _, serr := os.Stat(cfg.resume + ".journal"); serr == nil {
			return nil, usagef("-resume: %v; its journal is %s.journal", unwrapPathError(err), cfg.resume)
		}
		return nil, usagef("-resume: %v", unwrapPathError(err))
	}
	if err := journal.SameConfig(j.Header, jp.config, jp.names); err != nil {
		return nil, usagef("-resume %s: %v", cfg.resume, err)
	}
	if err := journal.SameMachine(j.Header.Run.Machine, peak.DetectMachine()); err != nil {
		return nil, usagef("-resume %s: %v", cfg.resume, err)
	}
	jp.path, jp.prior = cfg.resume, j
	return jp, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// journalPath is a new run's journal: beside a regular -o file, else in
// the cache folder under the start time and process id.
func journalPath(cfg *config, start time.Time) string {
	if cfg.output != "" {
		if fi, err := os.Stat(cfg.output); err != nil || fi.Mode().IsRegular() {
			return cfg.output + ".journal"
		}
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "peakbench", "journals", fmt.Sprintf("%s-%d.journal", start.UTC().Format("20060102T150405Z"), os.Getpid()))
}

// resumedRun is the run a resumed journal started: its machine, and the
// peaks measured at its start, which the results already in the journal
// are shares of. They are used as they are rather than measured again: the
// machine is checked to be the same (planJournal), one output has one set
// of ceilings, and the clock checks between workloads still compare each
// workload's clock with that start (a changed machine state shows there).
func (jp *journalPlan) resumedRun(stderr io.Writer, cfg *config, start time.Time) *result.Run {
	run := jp.prior.Header.Run
	run.Format, run.Vs, run.MemColumn = result.Format, cfg.vs, cfg.mem
	run.Env.Resumed = append(append([]string(nil), jp.prior.Resumed...), start.UTC().Format(time.RFC3339))
	progressf(stderr, "resuming %s: %d of %d workloads done; the rest measured against the peaks of its start (%s)",
		jp.path, len(jp.prior.Done), len(jp.names)*len(cfg.threads), run.Env.Start)
	return &run
}

// runConfig is what a resumed run must share with the run it continues:
// the binary, the backends and every flag that changes what is measured
// or how (not the output's format or place).
func runConfig(cfg *config, infos []result.BackendInfo) map[string]string {
	var opened []string
	for _, b := range infos {
		if b.Available {
			opened = append(opened, b.Name)
		}
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return "all"
		}
		return strings.Join(s, ",")
	}
	var ops, dtypes []string
	for _, op := range cfg.selection.Ops {
		ops = append(ops, string(op))
	}
	for _, dt := range cfg.selection.DTypes {
		dtypes = append(dtypes, string(dt))
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return map[string]string{
		"version": peakbenchVersion(), "-backend": list(cfg.backends), "backends opened": strings.Join(opened, ","),
		"-suite": cfg.selection.Suite, "-op": list(ops), "-size": strings.Join(cfg.selection.Sizes, ","), "-dtype": list(dtypes),
		"-threads": joinInts(cfg.threads), "-cache": cfg.cache, "-seed": strconv.FormatUint(cfg.seed, 10),
		"-reference": strconv.FormatBool(cfg.reference), "-min-time": cfg.minTime.String(), "-noise": g(cfg.noise),
		"-peak-gflops": g(cfg.peakGFLOPS), "-peak-bw": g(cfg.peakGBPS), "-device": strconv.Itoa(cfg.device),
		"tuning": tune.Source(), // the go and asm kernels' parameters (tuning.go)
	}
}

// peakbenchVersion names the binary: the module version and, for a build
// from a checkout, its commit ("+modified" with uncommitted changes).
func peakbenchVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v, rev, modified := bi.Main.Version, "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		v += " " + rev
		if modified {
			v += "+modified"
		}
	}
	return v
}

// runJournal is the journal of a run in progress.
type runJournal struct {
	stderr io.Writer
	w      *journal.Writer // nil without a journal, or once it failed or finished
	path   string
	prior  *journal.Journal
	kept   bool // some workload is in the journal: worth a hint if the run stops
}

// open creates the journal (a new run) or continues it (-resume). A
// journal that cannot be written is one line on standard error, and the
// run goes on with its results in memory only.
func (jp *journalPlan) open(stderr io.Writer, rep *result.Run, cfg *config) *runJournal {
	jr := &runJournal{stderr: stderr, path: jp.path, prior: jp.prior}
	var err error
	if jp.prior != nil {
		jr.kept = len(jp.prior.Done) > 0
		jr.w, err = journal.Continue(jp.prior, rep.Env.Resumed[len(rep.Env.Resumed)-1])
	} else {
		h := journal.Header{Config: jp.config, Workloads: jp.names, Run: *rep}
		h.Run.Results = nil
		jr.w, err = journal.Create(jp.path, h)
	}
	if err != nil {
		progressf(stderr, "no journal (%v): results are kept in memory until the end, and a stopped run cannot be resumed", err)
		jr.w = nil
		return jr
	}
	if jp.prior == nil {
		progressf(stderr, "journal: %s (if the run stops, -resume %s continues it)", jp.path, jp.path)
	}
	return jr
}

// skip says whether a resumed run's journal holds w at threads already.
func (jr *runJournal) skip(w workload.Workload, threads int) bool {
	return jr.prior != nil && jr.prior.Done[journal.Key{Workload: w.String(), Threads: threads}]
}

// record appends a finished workload's results, synced before the next
// workload starts.
func (jr *runJournal) record(w workload.Workload, threads int, rs []result.Result) {
	if jr.w == nil {
		return
	}
	if err := jr.w.Add(journal.Line{Workload: w.String(), Threads: threads, Results: rs}); err != nil {
		progressf(jr.stderr, "%v: the results from here on are kept in memory only", err)
		jr.w.Close()
		jr.w = nil
		return
	}
	jr.kept = true
}

// results are the run's results for the output: the journal's, read back
// (a resumed run's earlier results included, each workload once); where
// the journal failed, the resumed results and those measured now.
func (jr *runJournal) results(measured []result.Result) []result.Result {
	if jr.w != nil {
		if j, err := journal.Read(jr.path); err == nil {
			return j.Results
		}
	}
	var out []result.Result
	if jr.prior != nil {
		out = append(out, jr.prior.Results...)
	}
	return append(out, measured...)
}

// finish marks the journal of a run that measured everything and wrote
// its output: removed when the output is JSON (which holds all of it),
// kept otherwise for the samples a table leaves out.
func (jr *runJournal) finish(stderr io.Writer, cfg *config) {
	if jr.w == nil {
		return
	}
	err := jr.w.Finish()
	jr.w = nil
	switch {
	case err != nil:
		progressf(stderr, "%v", err)
	case cfg.format == "json" || cfg.resultsDir != "":
		os.Remove(jr.path) // a JSON output holds all of it
	default:
		progressf(stderr, "journal kept at %s: every result as JSON lines, samples included", jr.path)
	}
}

// close ends a journal the run did not finish (interrupted, or an error
// after measuring began), saying how to continue.
func (jr *runJournal) close(stderr io.Writer) {
	if jr.w == nil {
		return
	}
	jr.w.Close()
	jr.w = nil
	if jr.kept {
		progressf(stderr, "the journal %s keeps every finished workload: -resume %s (with the same flags) continues the run", jr.path, jr.path)
	}
}
