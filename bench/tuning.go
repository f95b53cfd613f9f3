package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// noTuneFile is the -tune-file value that runs on the built-in defaults.
const noTuneFile = "none"

// tuneMachine is the machine a tune file must have been made on: the CPU's
// signature (with the stepping, which peak.Machine does not keep), the
// level the asm kernels run at, cores, threads and caches.
func tuneMachine(m peak.Machine) tune.Machine {
	caches := make([]tune.Cache, len(m.Caches))
	for i, c := range m.Caches {
		caches[i] = tune.Cache{Level: c.Level, Bytes: c.Bytes, SharedBy: c.SharedBy}
	}
	return tune.Machine{
		Vendor: m.Vendor, Family: m.Family, Model: m.ModelID, Stepping: cpuStepping("/proc/cpuinfo"),
		Brand: m.Model, Microarch: m.Microarch, Arch: m.Arch, ISA: isa.Best.String(),
		Features: m.Features, Cores: m.Cores, Threads: m.CPUs, Caches: caches,
	}
}

// cpuStepping reads the first "stepping" line of /proc/cpuinfo; -1 where
// there is none (not Linux, not x86).
func cpuStepping(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "stepping" {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return -1
}

// tuneFilePath is the tune file of this run: -tune-file, or this machine's
// in the user's cache folder.
func tuneFilePath(cfg *config, m tune.Machine) (path string, named bool, err error) {
	if cfg.tuneFile != "" {
		return cfg.tuneFile, true, nil
	}
	path, err = tune.DefaultPath(m)
	return path, false, err
}

// applyTuning sets the parameters the gobackend kernels run with, before
// any backend is opened or anything measured: the tune file's when it is
// valid for this machine, else the built-in defaults. A file that exists
// but cannot be used is named on stderr with the reason, and the reason is
// kept in tune.Source, which the go and asm backends report as their
// "tuning" detail. Only a -tune-file that does not exist is an error.
func applyTuning(stderr io.Writer, cfg *config) error {
	if cfg.tuneFile == noTuneFile {
		tune.Apply(tune.Defaults(), tune.DefaultSource+" (-tune-file="+noTuneFile+")")
		return nil
	}
	m := tuneMachine(peak.DetectMachine())
	path, named, err := tuneFilePath(cfg, m)
	if err != nil {
		tune.Apply(tune.Defaults(), tune.DefaultSource+" ("+err.Error()+")")
		return nil
	}
	f, err := tune.Load(path, m)
	switch {
	case errors.Is(err, fs.ErrNotExist) && named:
		return usagef("-tune-file: %s does not exist (run -tune -tune-file=%s to make it, or -tune-file=%s for the built-in defaults)", path, path, noTuneFile)
	case errors.Is(err, fs.ErrNotExist):
		tune.Apply(tune.Defaults(), tune.DefaultSource+" (no tune file for this machine: -tune makes one)")
	case err != nil:
		fmt.Fprintf(stderr, "peakbench: warning: tune file %s ignored: %v; the go and asm kernels run with the built-in defaults\n", path, err)
		tune.Apply(tune.Defaults(), fmt.Sprintf("%s (%s ignored: %v)", tune.DefaultSource, path, err))
	default:
		tune.Apply(f.Params, tuningSource(path, f))
	}
	return nil
}

// tuningSource is the "tuning" detail of a run on file f.
func tuningSource(path string, f *tune.File) string {
	s := fmt.Sprintf("file %s (tuned %s", path, f.Measured.When.Local().Format(time.DateTime))
	if !f.Measured.Complete {
		s += fmt.Sprintf("; partial: %d of %d parameters, the others default", len(f.Measured.Tuned), len(new(tune.Params).Fields()))
	}
	switch busy := f.Measured.SearchedBusy(); {
	case len(busy) > 3: // the names are in the file's measured.host
		s += fmt.Sprintf("; %d of %d parameters searched while the host was busy", len(busy), len(f.Measured.Tuned))
	case len(busy) > 0:
		s += fmt.Sprintf("; %d searched while the host was busy: %s", len(busy), strings.Join(busy, ", "))
	}
	return s + ")"
}
