package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/peakbench/peakbench/bench/chart"
	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/internal/atomicfile"
	"github.com/peakbench/peakbench/bench/report"
	"github.com/peakbench/peakbench/bench/result"
)

// subcommands work on saved results instead of measuring; each is named
// first on the command line:
//
//	peakbench report [-o FILE] [-format html|md|table|svg|png|json|csv|gobench] a.json [b.json …]
//	peakbench compare OLD.json NEW.json [-threshold 5%]
var subcommands = map[string]func(ctx context.Context, stdout, stderr io.Writer, args []string) error{
	"report":  runReport,
	"compare": runCompare,
}

// reportFormats are what `report` writes: the HTML page (default), a
// Markdown or terminal view, a roofline image, or the other printers' output
// converted from a saved file.
var reportFormats = []string{"html", "md", "table", "summary", "svg", "png", "json", "csv", "gobench"}

func runReport(_ context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("peakbench report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "html", "output format: "+strings.Join(reportFormats, ", ")+" (md and html show several files side by side)")
	output := fs.String("o", "", "write to this file (atomically) instead of standard output")
	mem := fs.Bool("mem", false, "add a memory column to -format=table and md (the HTML report shows one whenever the file has memory figures)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: peakbench report [-o FILE] [-format FORMAT] RESULTS.json [MORE.json …]\n\n"+
			"Writes a report of saved runs (-format=json output): one self-contained HTML page by default,\n"+
			"with several files side by side (a column per file).\n\n")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if !slices.Contains(reportFormats, *format) {
		return usagef("-format: unknown format %q (accepted: %s)", *format, strings.Join(reportFormats, ", "))
	}
	if len(files) == 0 {
		return usagef("report: no results file given (usage: peakbench report [-o out.html] a.json [b.json …])")
	}
	switch *format {
	case "html", "md":
	default:
		if len(files) > 1 {
			return usagef("report: -format=%s takes one file (html and md show several side by side)", *format)
		}
	}
	runs, err := loadRuns(files)
	if err != nil {
		return err
	}
	if r := runs[0].Run; (*format == "svg" || *format == "png") && len(chart.ForRun(r, chart.NewPalette(r), "").Rooflines) == 0 {
		return usagef("report: %s has no result to chart (none ran and passed verification): -format=table lists what it holds", files[0])
	}
	if *output != "" {
		if err := atomicfile.CheckWritable(*output); err != nil {
			return usagef("-o: %v", err)
		}
	}
	for _, rf := range runs {
		rf.Run.MemColumn = *mem
	}
	write := func(w io.Writer) error {
		switch *format {
		case "html":
			return report.WriteHTML(w, runs)
		case "md":
			return report.WriteMarkdownRuns(w, runs)
		case "svg", "png":
			return chart.WriteRoofline(w, runs[0].Run, *format)
		case "summary": // the screen a run ends with
			return report.WriteSummary(w, runs[0].Run, nil)
		}
		return report.Write(w, runs[0].Run, *format)
	}
	if *output == "" {
		return write(stdout)
	}
	return atomicfile.WriteFileAtomic(*output, func(f *os.File) error { return write(f) })
}

func runCompare(_ context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("peakbench compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.String("threshold", "", "exit 1 when a significant slowdown exceeds this `PERCENT` (e.g. 5%), or when no result can be compared; for CI")
	allowFail := fs.Bool("allow-failures", false, "exit 0 even when results of NEW.json failed verification or errored (the default exit status is 3)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: peakbench compare OLD.json NEW.json [-threshold 5%%]\n\n"+
			"Compares two saved runs result by result (matched by backend, op, dtype, shape, threads, cache):\n"+
			"the change of the median time with its 95%% confidence interval, and whether it is significant\n"+
			"(Mann-Whitney U test over the samples, alpha 0.05, as benchstat does).\n"+
			"Exit status: 0, or 1 for a regression beyond -threshold (or nothing to compare), 2 for bad input,\n"+
			"3 when results of NEW.json failed verification or errored.\n\n")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return usagef("compare: want two results files, OLD.json NEW.json (got %d)", len(files))
	}
	var (
		gate  float64
		gated bool
	)
	if *threshold != "" {
		if gate, err = parseThreshold(*threshold); err != nil {
			return usagef("-threshold: %v", err)
		}
		gated = true
	}
	runs, err := loadRuns(files)
	if err != nil {
		return err
	}
	c := compare.Compare(runs[0].Run, runs[1].Run)
	if gated {
		c.Gate(gate)
	}
	if err := compare.WriteComparison(stdout, c, compare.RunLabel(runs[0].Run, files[0]), compare.RunLabel(runs[1].Run, files[1])); err != nil {
		return err
	}
	var failed error
	if len(c.NewFailures) > 0 {
		text := files[1] + ": " + compare.FailuresText(c.NewFailures, c.NewTotal)
		if *allowFail {
			progressf(stderr, "%s (exit status 0: -allow-failures)", text)
		} else {
			failed = failedResults{text + " (-allow-failures exits 0 all the same)"}
		}
	}
	return joinExit(failed, c.GateError()) // exit.go
}

// loadRuns reads saved runs; a file that cannot be read or is not a
// peakbench run is bad input (exit 2), named in a one-line error.
func loadRuns(files []string) ([]report.RunFile, error) {
	var runs []report.RunFile
	for _, f := range files {
		run, err := result.Load(f)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if run.Results == nil { // a file without "results": none, written [] as a run writes it
			run.Results = []result.Result{}
		}
		if !diagnose.HasFindings(run) {
			// A file older than findings: its records are enough to
			// diagnose it now (the rules read only what the file holds).
			diagnose.CheckCodePaths(run)
			diagnose.Diagnose(run)
		}
		runs = append(runs, report.RunFile{Name: f, Run: run})
	}
	return runs, nil
}

// parseInterspersed parses flags anywhere among the positional arguments
// (`compare a.json b.json -threshold 5%`), which flag.Parse alone stops at.
// Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseQuietly(fs, args, fs.Output()); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
