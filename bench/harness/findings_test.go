package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/workload"
)

// spinner is a backend whose kernel spins on the calling thread for a
// planted fixed cost per call plus a cost per element: what a library with
// per-call overhead that ignores the thread count it is given looks like.
type spinner struct {
	fixed, perElem time.Duration
}

func (s *spinner) Name() string            { return "spinner" }
func (s *spinner) Device() platform.Device { return platform.HostCPU() }
func (s *spinner) Info() backend.Info      { return backend.Info{Version: "1.0"} }
func (s *spinner) Close() error            { return nil }
func (s *spinner) Prepare(w workload.Workload, in workload.Data, cfg backend.Config) (backend.Kernel, error) {
	per := s.fixed + time.Duration(w.Shape.N)*s.perElem
	return &spinKernel{out: w.Reference(in), per: per}, nil
}

type spinKernel struct {
	out []float64
	per time.Duration
}

func (k *spinKernel) Run(iters int) (time.Duration, error) {
	start := time.Now()
	end := start.Add(time.Duration(iters) * k.per)
	for time.Now().Before(end) {
	}
	return time.Since(start), nil
}
func (k *spinKernel) Output() ([]float64, error) { return k.out, nil }
func (k *spinKernel) Close() error               { return nil }

// A planted per-call overhead is found by the fit over the run's sizes,
// and a kernel that keeps one thread busy when given two is found idle:
// both measured for real through the harness (CPU time, wall time).
func TestFindingsOnPlantedOverheadAndIdleThread(t *testing.T) {
	if testing.Short() {
		t.Skip("spins for about a second")
	}
	p := plan(&spinner{fixed: 40 * time.Microsecond, perElem: time.Nanosecond})
	p.Measure.MinTime = 10 * time.Millisecond
	p.Measure.MaxSamples = 8
	p.Threads = []int{2}
	p.Workloads = nil
	for _, n := range []int{1 << 10, 1 << 13, 1 << 16} { // 41 µs, 48 µs, 106 µs
		p.Workloads = append(p.Workloads, workload.Workload{Op: workload.AXPY, DType: workload.F32, Shape: workload.Shape{N: n}})
	}
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	run := &result.Run{Results: results, Peaks: p.Peaks, Machine: p.Machine}
	diagnose.Diagnose(run)
	for _, r := range run.Results {
		for _, f := range r.Findings {
			t.Logf("%s: %s: %s [%s] %s", r.Shape, f.Code, f.Text, f.Evidence, f.Remedy)
		}
	}
	small := findFinding(t, &run.Results[0], diagnose.CodeOverhead)
	if !strings.Contains(small.Evidence, "fit over 3 sizes") {
		t.Errorf("evidence %q", small.Evidence)
	}
	// The fixed cost is planted at 40 µs; the fit reads it from the medians.
	if !strings.Contains(small.Text, "fixed 3") && !strings.Contains(small.Text, "fixed 4") {
		t.Errorf("planted 40 µs per call, finding says %q", small.Text)
	}
	if b := run.Results[0].Findings[0]; b.Code != diagnose.CodeBoundOverhead {
		t.Errorf("1 Ki elements with a 40 µs fixed cost: bound %s, want %s", b.Code, diagnose.CodeBoundOverhead)
	}
	for i := range run.Results {
		r := &run.Results[i]
		if r.Host == nil || r.Host.SampledNS <= 0 {
			t.Fatalf("%s: no host use recorded", r.Shape)
		}
		if r.Host.Steal < 0.1 { // on a host that lets the thread run
			f := findFinding(t, r, diagnose.CodeThreadsIdle)
			if !strings.Contains(f.Evidence, "2 asked") {
				t.Errorf("threads evidence %q", f.Evidence)
			}
		}
	}
}

func findFinding(t *testing.T, r *result.Result, code string) result.Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Code == code {
			return f
		}
	}
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code)
	}
	t.Fatalf("%s %s %s: no %s finding (has %v; host %+v)", r.Backend, r.Op, r.Shape, code, codes, r.Host)
	return result.Finding{}
}

// An op measured at one size gets a tiny-size probe on each backend,
// which the overhead fit takes as its second point. The fit is of wall
// times: on a host where other processes took the CPUs during the samples
// (result.HostUse.OtherThreads) an attempt may not show it, and is
// repeated, at most three times.
func TestProbeOneSize(t *testing.T) {
	if testing.Short() {
		t.Skip("spins for about a second")
	}
	var why string
	for attempt := 1; attempt <= 3; attempt++ {
		r, disturbed := probeOneSize(t)
		f, ok := findingOf(r, diagnose.CodeOverhead)
		if ok {
			if !strings.Contains(f.Evidence, "fit over 2 sizes (64 elements") {
				t.Errorf("evidence %q", f.Evidence)
			}
			return
		}
		why = fmt.Sprintf("attempt %d: no %s finding (has %v; host %+v)", attempt, diagnose.CodeOverhead, r.Findings, r.Host)
		if !disturbed {
			break
		}
		t.Log(why + ": the host was busy, again")
	}
	t.Fatal(why)
}

// probeOneSize measures the planted overhead at one size and diagnoses
// it; disturbed says other processes took a CPU's worth of time or more.
func probeOneSize(t *testing.T) (r result.Result, disturbed bool) {
	p := plan(&spinner{fixed: 30 * time.Microsecond, perElem: 10 * time.Nanosecond}) // 4096 elements: 71 µs
	p.Measure.MinTime = 5 * time.Millisecond
	p.Measure.MaxSamples = 8
	p.Threads = []int{1}
	p.ProbeOverhead = true
	p.Workloads = []workload.Workload{{Op: workload.AXPY, DType: workload.F32, Shape: workload.Shape{N: 4096}}}
	results, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("%d results; the probe must not be one", len(results))
	}
	pr := results[0].Probe
	if pr == nil || pr.Shape != "64" || pr.MedianNS < 25e3 {
		t.Fatalf("probe %+v", pr)
	}
	run := &result.Run{Results: results, Peaks: p.Peaks, Machine: p.Machine}
	diagnose.Diagnose(run)
	r = run.Results[0]
	return r, r.Host != nil && r.Host.OtherThreads >= 1
}

// findingOf returns r's finding of code.
func findingOf(r result.Result, code string) (result.Finding, bool) {
	for _, f := range r.Findings {
		if f.Code == code {
			return f, true
		}
	}
	return result.Finding{}, false
}
