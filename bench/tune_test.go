package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// tinySearches are two thread crossovers, a store-kind, a width and the
// FFT's crossover over two short sizes each: enough to run the whole
// search in a test's time.
func tinySearches() []tuneSearch {
	return []tuneSearch{
		{"nontemporal.dequantize", quantOps(5 << 11)[1:], ladder(5<<10, 5<<11), kindStores},
		{"parallel.elem_cheap.f64", cheapOps[float64](16 << 10), ladder(8<<10, 16<<10), kindThreads},
		{"parallel.reduce.f32", reduceOps[float32](16 << 10), ladder(8<<10, 16<<10), kindThreads},
		{"zmm.math", wideOps(64 << 10)[2:4], ladder(32<<10, 64<<10), kindZMM},
		fftShareSearch[complex64]("fft.share.f32", ladder(256<<10, 512<<10)),
	}
}

// runSearch runs the one search made by search within budget, as -tune
// does, and returns the tune file it wrote, loaded, and its progress.
func runSearch(t *testing.T, budget time.Duration, search func() tuneSearch) (*tune.File, string) {
	t.Helper()
	cfg := tuneConfig(t, budget)
	var stderr bytes.Buffer
	if err := tuneWith(context.Background(), &stderr, cfg, func() []tuneSearch { return []tuneSearch{search()} }, nil); err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	f, err := tune.Load(cfg.tuneFile, here())
	if err != nil {
		t.Fatal(err)
	}
	return f, stderr.String()
}

func tuneConfig(t *testing.T, budget time.Duration) *config {
	return &config{threads: []int{2}, tuneFile: filepath.Join(t.TempDir(), "tune.json"), tuneBudget: budget}
}

func here() tune.Machine { return tuneMachine(peak.DetectMachine()) }

func TestTuneWritesLoadableFile(t *testing.T) {
	cfg := tuneConfig(t, 3*time.Second)
	before := tune.Source() // what earlier tests of this process left in force
	var stderr bytes.Buffer
	if err := tuneWith(context.Background(), &stderr, cfg, tinySearches, nil); err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	f, err := tune.Load(cfg.tuneFile, here())
	if err != nil {
		t.Fatal(err)
	}
	if !f.Measured.Complete || len(f.Measured.Tuned) != 5 || len(f.Measured.Ladders["parallel.reduce.f32"]) != 2 {
		t.Errorf("measured %+v", f.Measured)
	}
	// The store search timed both kinds at 1 and 2 threads and chose a
	// size of its ladder or, when non-temporal stores never won, twice its
	// top.
	nt := f.Measured.Ladders["nontemporal.dequantize"]
	if len(nt) != 2 || nt[0].NS["dequantize@1"][1] <= 0 || nt[1].NS["dequantize@2"][0] <= 0 {
		t.Errorf("nontemporal.dequantize ladder %+v", nt)
	}
	if v := f.Params.NonTemporal.Dequantize; v != 5<<10 && v != 5<<11 && v != 5<<12 {
		t.Errorf("nontemporal.dequantize = %d, not a size of its ladder or twice its top", v)
	}
	// The width search timed both kernels at 1 and 2 threads and chose 0,
	// a size of its ladder or every size.
	w := f.Measured.Ladders["zmm.math"]
	if len(w) != 2 || w[0].NS["tanh@1"][1] <= 0 || w[1].NS["exp@2"][0] <= 0 {
		t.Errorf("zmm.math ladder %+v", w)
	}
	if v := f.Params.ZMM.Math; v != 0 && v != 32<<10 && v != tune.MaxPieceBytes {
		t.Errorf("zmm.math = %d, not 0, the ladder's foot or every size", v)
	}
	// The FFT's search timed 1 thread against 2 at each length (16 and
	// 32 Ki complex64) and chose a size of its ladder or twice its top.
	ff := f.Measured.Ladders["fft.share.f32"]
	if len(ff) != 2 || ff[0].NS["fft.c64"][0] <= 0 || ff[1].NS["fft.c64"][1] <= 0 {
		t.Errorf("fft.share.f32 ladder %+v", ff)
	}
	if v := f.Params.FFT.Share.F32; v != 256<<10 && v != 512<<10 && v != 1<<20 {
		t.Errorf("fft.share.f32 = %d, not a size of its ladder or twice its top", v)
	}
	if tune.Source() != before {
		t.Errorf("the search left the parameters from %q, not %q as it found them", tune.Source(), before)
	}
	// Each search's host load is on record where Linux gives it.
	if _, err := os.Stat("/proc/stat"); err == nil {
		for _, name := range f.Measured.Tuned {
			if h, ok := f.Measured.Host[name]; !ok || h.Steal < 0 || h.Steal > 1 || h.OtherThreads < 0 {
				t.Errorf("%s: host load %+v (recorded: %v)", name, h, ok)
			}
		}
	}
	t.Log(stderr.String())
}

// TestTuningSourceBusy: a file with parameters searched on a busy host says
// which in the runs' tuning detail, as the search's progress line did.
func TestTuningSourceBusy(t *testing.T) {
	f := &tune.File{Measured: tune.Measured{Complete: true, Tuned: []string{"parallel.reduce.f32", "gemv.parallel.f64"},
		Host: map[string]tune.HostLoad{"parallel.reduce.f32": {Steal: 0.01}, "gemv.parallel.f64": {Steal: 0.31, OtherThreads: 0.05}}}}
	if got, want := tuningSource("t.json", f), "; 1 searched while the host was busy: gemv.parallel.f64)"; !strings.HasSuffix(got, want) {
		t.Errorf("tuningSource = %q, want it to end %q", got, want)
	}
	f.Measured.Tuned = append(f.Measured.Tuned, "a", "b", "c")
	for _, name := range f.Measured.Tuned {
		f.Measured.Host[name] = tune.HostLoad{OtherThreads: 0.5}
	}
	if got, want := tuningSource("t.json", f), "; 5 of 5 parameters searched while the host was busy)"; !strings.HasSuffix(got, want) {
		t.Errorf("tuningSource = %q, want it to end %q", got, want)
	}
	clear(f.Measured.Host)
	if got := tuningSource("t.json", f); strings.Contains(got, "busy") {
		t.Errorf("tuningSource = %q on a quiet host", got)
	}
	if got, want := busyText(tune.HostLoad{Steal: 0.31, OtherThreads: 0.05}), " (the host was busy meanwhile: hypervisor steal 31.0%, other processes 0.05 CPUs)"; got != want {
		t.Errorf("busyText = %q, want %q", got, want)
	}
	if got := busyText(tune.HostLoad{Steal: 0.02}); got != "" {
		t.Errorf("busyText on a quiet host = %q", got)
	}
}

// TestTuneInterruptedKeepsWhatItFound cancels the search after its first
// parameter: the file holds that one, marked partial, and loads.
func TestTuneInterruptedKeepsWhatItFound(t *testing.T) {
	cfg := tuneConfig(t, 10*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	err := tuneWith(ctx, &stderr, cfg, tinySearches, func(string) { cancel() })
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("err = %v, want the interruption", err)
	}
	f, err := tune.Load(cfg.tuneFile, here())
	if err != nil {
		t.Fatal(err)
	}
	if f.Measured.Complete || f.Measured.Stopped != "interrupted" || len(f.Measured.Tuned) != 1 || f.Measured.Tuned[0] != "nontemporal.dequantize" {
		t.Errorf("measured %+v, want 1 parameter, interrupted", f.Measured)
	}
	if f.Params.Parallel.Reduce != tune.Defaults().Parallel.Reduce {
		t.Errorf("the parameter not searched is %+v, want its default", f.Params.Parallel.Reduce)
	}
	if !strings.Contains(tuningSource(cfg.tuneFile, f), "partial: 1 of") {
		t.Errorf("source %q does not say the file is partial", tuningSource(cfg.tuneFile, f))
	}
}

// TestTuneOutOfBudgetSaysEveryParameter: a budget spent before a
// parameter is searched still gives that parameter its progress line (one
// line per parameter, as docs/tuning.md says); the lines stopped there.
func TestTuneOutOfBudgetSaysEveryParameter(t *testing.T) {
	cfg := tuneConfig(t, time.Nanosecond)
	var stderr bytes.Buffer
	if err := tuneWith(context.Background(), &stderr, cfg, tinySearches, nil); err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	for _, s := range tinySearches() {
		if want := "tune " + s.field + ": not searched (out of budget); it keeps its default\n"; !strings.Contains(stderr.String(), want) {
			t.Errorf("no line %q in\n%s", want, &stderr)
		}
	}
	f, err := tune.Load(cfg.tuneFile, here())
	if err != nil {
		t.Fatal(err)
	}
	if f.Measured.Complete || f.Measured.Stopped != "out of budget" || len(f.Measured.Tuned) != 0 {
		t.Errorf("measured %+v, want nothing tuned, out of budget", f.Measured)
	}
}

// ladderSteps is a ladder of sizes from first, doubling, with these
// speedups.
func ladderSteps(first int, speedups ...float64) []tune.Step {
	s := make([]tune.Step, len(speedups))
	for i, v := range speedups {
		s[i] = tune.Step{Bytes: first << i, Speedup: v}
	}
	return s
}

func TestCrossoverPiece(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step { return ladderSteps(4096, speedups...) }
	for _, c := range []struct {
		steps []tune.Step
		want  int
	}{
		{steps(0.5, 0.9, 1.2, 1.5), 16384 / 2},
		{steps(1.2, 0.9, 1.2, 1.5), 16384 / 2},  // a loss above the first win moves it up
		{steps(0.5, 1.02, 1.2, 1.5), 16384 / 2}, // a win under the margin does not count
		{steps(0.5, 0.6, 0.7, 0.8), 32768},      // never: past the ladder
		{steps(2, 2, 2, 2), 4096 / 2},
	} {
		if got := crossoverPiece(c.steps); got != c.want {
			t.Errorf("%v: piece %d, want %d", c.steps, got, c.want)
		}
	}
}

func TestCrossoverBytes(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step { return ladderSteps(5<<20, speedups...) }
	for _, c := range []struct {
		steps []tune.Step
		want  int
	}{
		{steps(0.8, 1.0, 1.3, 2.3), 5 << 22},
		{steps(1.2, 0.97, 1.3, 2.3), 5 << 22},   // a loss above the first win moves it up
		{steps(1.0, 1.02, 1.04, 1.03), 5 << 24}, // never by the margin: past the ladder
		{steps(1.1, 1.1, 1.1, 1.1), 5 << 20},
	} {
		if got := crossoverBytes(c.steps); got != c.want {
			t.Errorf("%v: from %d bytes, want %d", c.steps, got, c.want)
		}
	}
}

// TestSlowestThreads: a store-kind step's speedup is the least over the
// thread counts of the mean over the kernels, so a size where one thread
// gains and two lose is not a crossover.
func TestSlowestThreads(t *testing.T) {
	pair := func(name string, th int) timedPair {
		return timedPair{name: name, one: tuneTarget{threads: th}, two: tuneTarget{threads: th}}
	}
	pairs := [][]timedPair{
		{pair("relu@1", 1), pair("relu@2", 2), pair("exp@1", 1), pair("exp@2", 2)},
		{pair("relu@1", 1), pair("relu@2", 2), pair("exp@1", 1), pair("exp@2", 2)},
	}
	steps := []tune.Step{
		// One thread 1.3× and 1.1× (mean 1.196), two 0.9× and 1.0× (0.949).
		{Bytes: 2 << 20, Speedup: 1.07, NS: map[string][2]float64{"relu@1": {130, 100}, "exp@1": {110, 100}, "relu@2": {90, 100}, "exp@2": {100, 100}}},
		{Bytes: 4 << 20, Speedup: 1.2, NS: map[string][2]float64{"relu@1": {130, 100}, "exp@1": {110, 100}, "relu@2": {120, 100}, "exp@2": {120, 100}}},
	}
	slowestThreads(steps, pairs)
	if math.Abs(steps[0].Speedup-math.Sqrt(0.9)) > 1e-9 || math.Abs(steps[1].Speedup-math.Sqrt(1.3*1.1)) > 1e-9 {
		t.Errorf("speedups %.4f, %.4f; want %.4f, %.4f", steps[0].Speedup, steps[1].Speedup, math.Sqrt(0.9), math.Sqrt(1.3*1.1))
	}
	if got := crossoverBytes(steps); got != 4<<20 {
		t.Errorf("non-temporal from %d bytes, want %d", got, 4<<20)
	}
}

func TestCrossoverLast(t *testing.T) {
	steps := func(speedups ...float64) []tune.Step { return ladderSteps(2<<20, speedups...) }
	for _, c := range []struct {
		steps []tune.Step
		want  int
	}{
		{steps(0.8, 1.0, 1.3, 1.2), 2 << 21},              // AVX2 wins from the third size: AVX-512 up to the second
		{steps(1.2, 0.97, 1.3, 1.2), 2 << 21},             // a loss above the first win moves it up
		{steps(0.5, 0.6, 1.02, 1.04), tune.MaxPieceBytes}, // never by the margin: AVX-512 at every size
		{steps(1.1, 1.1, 1.1, 1.1), 0},                    // AVX2 from the foot
	} {
		if got := crossoverLast(c.steps); got != c.want {
			t.Errorf("%v: %d, want %d", c.steps, got, c.want)
		}
	}
}

func TestApplyTuning(t *testing.T) {
	defer tune.Apply(tune.Defaults(), tune.DefaultSource)
	dir := t.TempDir()
	good := &tune.File{Version: tune.Version, Machine: here(), Params: tune.Defaults(),
		Measured: tune.Measured{Complete: true, When: time.Now()}}
	good.Params.Parallel.Cheap.F32 = 12345
	other := *good
	other.Machine.Threads++
	write := func(name string, f *tune.File) string {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	goodPath, otherPath := write("good.json", good), write("other.json", &other)
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, fmt.Appendf(nil, `{"version": %d, "params": {`, tune.Version), 0o644)

	for _, c := range []struct {
		file, source, warning string
		cheap                 int
	}{
		{goodPath, "file " + goodPath, "", 12345},
		{otherPath, "built-in defaults (" + otherPath + " ignored: made on another machine", "ignored", tune.Defaults().Parallel.Cheap.F32},
		{corrupt, "built-in defaults (" + corrupt + " ignored: not a tune file", "ignored", tune.Defaults().Parallel.Cheap.F32},
		{noTuneFile, "built-in defaults (-tune-file=none)", "", tune.Defaults().Parallel.Cheap.F32},
	} {
		var stderr bytes.Buffer
		if err := applyTuning(&stderr, &config{tuneFile: c.file}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tune.Source(), c.source) || tune.Current().Parallel.Cheap.F32 != c.cheap {
			t.Errorf("%s: source %q, cheap f32 %d; want %q…, %d", c.file, tune.Source(), tune.Current().Parallel.Cheap.F32, c.source, c.cheap)
		}
		if !strings.Contains(stderr.String(), c.warning) || (c.warning == "") != (stderr.Len() == 0) {
			t.Errorf("%s: stderr %q, want a warning %q", c.file, stderr.String(), c.warning)
		}
	}
	if err := applyTuning(&bytes.Buffer{}, &config{tuneFile: filepath.Join(dir, "missing.json")}); err == nil {
		t.Error("a -tune-file that does not exist was accepted")
	}
}

// TestTuneSearchesEveryParameter: the searches name tune.Params's fields,
// each once, in their order, so none is searched into nothing or left out.
func TestTuneSearchesEveryParameter(t *testing.T) {
	var got []string
	for _, s := range tuneSearches() {
		got = append(got, s.fields()...)
	}
	var want []string
	for _, f := range new(tune.Params).Fields() {
		if (strings.HasPrefix(f.Name, "zmm.") || f.Name == "gemv.zmm" || strings.HasPrefix(f.Name, "gemm.shape.")) && isa.Best < isa.AVX512 {
			continue // nothing to choose: both ways run the AVX2 kernels
		}
		if f.Name == "fft.pair" && isa.Best < isa.AVX512 {
			continue // no pair kernel below AVX-512
		}
		if strings.HasPrefix(f.Name, "gemm.cols_outer.") && (isa.Best == isa.Generic || len(colsOuterLadder()) == 0) {
			continue // no unpacked kernel, or no L2 to size the sweep: it never runs
		}
		want = append(want, f.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("searches %v, want the parameters %v", got, want)
	}
}

// TestFFTPairSearch runs fft.pair's search on two short lengths: the pair
// kernel against the fused first pass at each, the value the steps give,
// and the file written loads with it.
func TestFFTPairSearch(t *testing.T) {
	if isa.Best < isa.AVX512 {
		t.Skip("no pair kernel below AVX-512")
	}
	f, stderr := runSearch(t, 2*time.Second, func() tuneSearch { return fftPairSearch(ladder(4<<10, 8<<10)) })
	st := f.Measured.Ladders["fft.pair"]
	if len(st) != 2 || st[0].Bytes != 4<<10 || st[0].NS["fft.c64"][0] <= 0 || st[1].NS["fft.c64"][1] <= 0 {
		t.Errorf("fft.pair ladder %+v, want a step per length, both ways timed", st)
	}
	if v := f.Params.FFT.Pair; v != directLimit(st) {
		t.Errorf("fft.pair = %d, the steps give %d", v, directLimit(st))
	}
	if !strings.Contains(stderr, "first two stages fused over the pair kernel") {
		t.Errorf("no ladder line for fft.pair:\n%s", stderr)
	}
	t.Log(stderr)
}
