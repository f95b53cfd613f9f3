package main

import (
	"io"
	"os"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/report"
	"github.com/peakbench/peakbench/bench/result"
)

// libraryIdleWait are the threaded libraries' own idle-wait defaults,
// which -idle-wait=library sets where the user has not: the C layer's
// short settings (native/loader.c, quiet_idle_threads) give way to a value
// already set, and the workers pass the environment on.
var libraryIdleWait = [][2]string{
	{"KMP_BLOCKTIME", "200"},          // Intel OpenMP (MKL's): 200 ms
	{"OPENBLAS_THREAD_TIMEOUT", "28"}, // OpenBLAS: 2^28 cycles
}

// applyIdleWait sets the libraries' defaults for -idle-wait=library,
// before any library loads.
func applyIdleWait(mode string) {
	if mode != "library" {
		return
	}
	for _, kv := range libraryIdleWait {
		if _, set := os.LookupEnv(kv[0]); !set {
			os.Setenv(kv[0], kv[1])
		}
	}
}

// finishRun diagnoses a run's results (diagnose.CheckCodePaths, each
// library's code path against the machine and its results, then Diagnose:
// findings per result), writes the output and the -results-dir files, and
// ends standard error with the checks and the summary. It serves complete and
// interrupted runs alike: what was measured is written either way.
func finishRun(stdout, stderr io.Writer, cfg *config, rep *result.Run) error {
	diagnose.CheckCodePaths(rep)
	diagnose.Diagnose(rep)
	if err := emit(stdout, cfg, func(w io.Writer) error { return report.Write(w, rep, cfg.format) }); err != nil {
		return err
	}
	var files []string
	if cfg.output != "" {
		files = append(files, cfg.output)
	}
	var dirErr error
	if cfg.resultsDir != "" {
		paths, err := writeResultsDir(cfg.resultsDir, rep)
		files, dirErr = append(files, paths...), err
	}
	printChecks(stderr, rep)
	if cfg.summary {
		report.WriteSummary(stderr, rep, files)
	}
	return dirErr
}
