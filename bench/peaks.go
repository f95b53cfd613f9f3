package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
)

func goVersion() string { return runtime.Version() }

// writePeaks prints the machine and its peaks, for -peak. The JSON form
// holds "machine" and "peaks" alone.
func writePeaks(w io.Writer, run *result.Run, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Machine any `json:"machine"`
			Peaks   any `json:"peaks"`
		}{run.Machine, run.Peaks})
	}
	m := run.Machine
	fmt.Fprintf(w, "machine:   %s\n", m.Model)
	fmt.Fprintf(w, "vendor:    %s, family %d model %d → %s\n", m.Vendor, m.Family, m.ModelID, m.Microarch)
	fmt.Fprintf(w, "cpus:      %d (%s/%s), features: %s\n", m.CPUs, m.OS, m.Arch, strings.Join(m.Features, " "))
	fmt.Fprintf(w, "fp units:  %d FMA pipes × %d-bit SIMD per core → %g f32 / %g f64 FLOP/cycle/core (2 FLOP per FMA lane; %s)\n",
		m.FMAUnits, m.SIMDBits, m.FLOPsPerCycle("f32"), m.FLOPsPerCycle("f64"), m.UnitsSource)
	for _, u := range m.Units {
		if !u.OK() {
			fmt.Fprintf(w, "           %d-bit: not probed: %s\n", u.Bits, u.Error)
			continue
		}
		fmt.Fprintf(w, "           %d-bit: %.2f FMA/cycle → %d pipes at %.2f GHz (clock under its FMAs); 1 thread %s f32 / %s f64 GFLOP/s\n",
			u.Bits, u.FMAPerCycle, u.Pipes, u.ClockGHz, units.Sig(u.F32GFLOPS), units.Sig(u.F64GFLOPS))
	}
	fmt.Fprintf(w, "table:     %s: %d FMA pipes × %d-bit SIMD per core\n", m.Table.Microarch, m.Table.FMAUnits, m.Table.SIMDBits)
	if m.UnitsNote != "" {
		fmt.Fprintf(w, "note:      %s\n", m.UnitsNote)
	}
	writeComputeUnits(w, m)
	writeCaches(w, m, run.Peaks)
	if m.NominalGHz > 0 {
		fmt.Fprintf(w, "nominal:   %.3f GHz (TSC/nominal; the measured clock below is what the cores ran at)\n", m.NominalGHz)
	}
	fmt.Fprintln(w, "\ncompute, per dtype and unit (theoretical = threads × measured clock × FLOP/cycle/core, integer types counting two ops per multiply-add;")
	fmt.Fprintln(w, "measured = our throughput kernel of the unit; a result is a share of the unit its kernel ran on, else of its dtype's fastest)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DTYPE\tUNIT\tTHREADS\tCLOCK GHz\tTHEORETICAL GFLOP/s\tMEASURED GFLOP/s\tMEASURED/THEORETICAL\tFORMULA\tKERNEL")
	for _, c := range run.Peaks.Compute {
		share := 0.0
		if c.TheoreticalGFLOPS > 0 {
			share = c.EmpiricalGFLOPS / c.TheoreticalGFLOPS
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%s\t%s\t%.1f%%\t%s\t%s\n", c.DType, c.UnitName(), c.Threads, c.ClockGHz,
			units.Sig(c.TheoreticalGFLOPS), units.Sig(c.EmpiricalGFLOPS), 100*share, c.Formula, c.Kernel)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nbandwidth (per thread on its own arrays, the same memory per level for each pattern: triad a[i] = b[i] + s·c[i], update a[i] += s·b[i], copy a[i] = b[i], read Σ b[i];")
	fmt.Fprintln(w, "the bytes the program loads and stores, write-allocate not counted; a result is a share of the pattern with its own mix of loads and stores)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tPATTERN\tTHREADS\tGB/s\tWORKING SET/THREAD\tSOURCE")
	for _, b := range run.Peaks.Bandwidth {
		src := b.Source
		if b.Disturbed {
			src += " — DISTURBED: a thread was set aside in every repetition, the figure may read low"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", b.Level, b.PatternName(), b.Threads, units.Sig(b.GBPS), units.Bytes(b.WorkingSet), src)
	}
	return tw.Flush()
}

// writeComputeUnits prints the low-precision units: what each did on one
// core and the issue rate the model takes from it, or the feature (or OS
// state, or permission) it lacks. Their peaks per thread count are in the
// compute table.
func writeComputeUnits(w io.Writer, m peak.Machine) {
	if len(m.ComputeUnits) == 0 {
		return
	}
	fmt.Fprintln(w, "low-precision units (instruction throughput on one core, rounded to an issue rate; bf16 and f16 also run on the FMAs, converted to f32):")
	for _, u := range m.ComputeUnits {
		if !u.OK() {
			fmt.Fprintf(w, "           %s: %s\n", u.Unit, u.Missing)
			continue
		}
		fmt.Fprintf(w, "           %s (%s): %s, %.3g per cycle → %s → %g ops/cycle/core at %.2f GHz; 1 thread %s GOP/s\n",
			u.Unit, strings.Join(u.DTypes, ", "), u.Instruction, u.PerCycle, peak.RateText(u.IssueRate), u.OpsPerCycle(), u.ClockGHz, units.Sig(u.GOPS))
		if u.Note != "" {
			fmt.Fprintf(w, "             %s\n", u.Note)
		}
	}
}

// writeCaches prints the caches as reported and as the working-set sweep
// found them for each thread count (the effective size: all threads' working
// set at the level's knee; in parentheses where the working sets compared
// with the level end, past its transition), then each disagreement.
func writeCaches(w io.Writer, m peak.Machine, p peak.Peaks) {
	var caches []string
	for _, c := range m.Caches {
		caches = append(caches, fmt.Sprintf("L%d %s", c.Level, units.Bytes(c.Bytes)))
	}
	fmt.Fprintf(w, "caches:    reported %s (one instance each; sysfs/CPUID)\n", strings.Join(caches, ", "))
	if len(p.Sweeps) > 0 {
		fmt.Fprintln(w, "           measured by a read sweep (where each level's plateau ends; < the working sets compared with it; all threads together):")
	}
	var notes []string
	for _, s := range p.Sweeps {
		var found []string
		for _, c := range p.CachesFor(s.Threads) {
			if c.Found {
				found = append(found, fmt.Sprintf("%s %s (< %s)", c.Level, units.Bytes(c.EffectiveBytes), units.Bytes(c.BoundBytes)))
			}
			if c.Note != "" {
				notes = append(notes, c.Note)
			}
		}
		if len(found) == 0 {
			found = []string{"none: every working set ran at DRAM speed"}
		}
		if disturbed := s.DisturbedPoints(); disturbed > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of %d sweep figures were taken while a thread waited for a CPU (another process ran): these levels may be off",
				peak.ThreadsText(s.Threads), disturbed, len(s.Points)))
		}
		fmt.Fprintf(w, "           %s: %s; larger: DRAM\n", peak.ThreadsText(s.Threads), strings.Join(found, ", "))
	}
	for _, n := range notes {
		fmt.Fprintf(w, "           %s\n", n)
	}
}

// measurePeaks measures the peaks of the platforms the run needs
// (platformsFor) and returns the run they start, with why each GPU
// platform looked for has no peaks. The host's peaks are needed: without
// them nothing is measured.
func measurePeaks(ctx context.Context, stderr io.Writer, cfg *config, args []string, backends []backend.Backend, infos []result.BackendInfo, start time.Time) (*result.Run, []string, error) {
	opt := platform.Options{
		Device: cfg.device, Threads: cfg.threads, Quick: cfg.selection.Suite == "quick",
		PeakGFLOPS: cfg.peakGFLOPS, PeakGBPS: cfg.peakGBPS,
		Log: func(format string, args ...any) { progressf(stderr, format, args...) },
	}
	var (
		m     platform.Measured
		noGPU []string
	)
	for _, p := range platformsFor(backends, cfg.peak) {
		before := len(m.Peaks.GPUs)
		err := p.MeasurePeaks(ctx, opt, &m)
		switch {
		case err != nil && p.Kind == platform.Host && ctx.Err() != nil:
			return nil, nil, errors.New("interrupted while measuring peaks; nothing was benchmarked")
		case err != nil && p.Kind == platform.Host:
			return nil, nil, fmt.Errorf("measuring peaks: %v", err)
		case err != nil:
			noGPU = append(noGPU, err.Error())
		}
		for _, g := range m.Peaks.GPUs[before:] {
			progressf(stderr, "GPU %s: %s", g.Device, gpuBandwidthLine(g)) // gpu.go
		}
	}
	return &result.Run{
		Format: result.Format, Machine: m.Machine, Peaks: m.Peaks, Backends: infos,
		Env: environment(start, args, cfg), Vs: cfg.vs, MemColumn: cfg.mem,
	}, noGPU, nil
}

// platformsFor returns the platforms whose peaks a run needs, the host's
// first: the host's always, and the platform of each backend's device; for
// -peak (all), every platform. Nothing GPU is touched when no backend runs
// on a GPU and -peak was not asked for.
func platformsFor(backends []backend.Backend, all bool) []platform.Platform {
	var out []platform.Platform
	for _, p := range platform.All() {
		want := all || p.Kind == platform.Host
		for _, b := range backends {
			if q, ok := platform.ForDevice(b.Device()); ok && q.Name == p.Name {
				want = true
			}
		}
		if want {
			out = append(out, p)
		}
	}
	return out
}
