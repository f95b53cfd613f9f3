package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/diagnose"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// TestRecheckBandwidth: a result above its memory bound gets its thread
// count's bandwidth measured again (here by a stand-in that finds the L3
// twice as fast), takes the raised figure, and is no longer a model error;
// the compute-bound result of the other thread count is left alone, and
// nothing is measured again where -peak-bw gave the bandwidth.
func TestRecheckBandwidth(t *testing.T) {
	newRun := func() *result.Run {
		rep := &result.Run{Peaks: peak.Peaks{Bandwidth: []peak.BandwidthPeak{
			{Level: "L3", Pattern: "read", Threads: 2, GBPS: 50},
			{Level: "L3", Pattern: "read", Threads: 1, GBPS: 40},
		}}}
		over := result.Result{Backend: "asm", Device: "cpu", Op: "sum", DType: "f32", Shape: "1048576", Threads: 2, Cache: "hot", Verified: true,
			FLOPs: 1e6, Bytes: 4e6, Intensity: 0.25, GBPS: 80, GFLOPS: 20, MedianNS: 5e4}
		over.Ceilings(peak.ComputePeak{TheoreticalGFLOPS: 1000}, rep.Peaks.Bandwidth[0])
		under := over
		under.Threads, under.GBPS, under.GFLOPS = 1, 30, 7.5
		under.Ceilings(peak.ComputePeak{TheoreticalGFLOPS: 500}, rep.Peaks.Bandwidth[1])
		rep.Results = []result.Result{over, under}
		rep.ModelErrors = diagnose.CheckModel(rep)
		return rep
	}
	defer func(f func(context.Context, peak.Machine, *peak.Peaks, []int, bool) ([]peak.Raised, error)) {
		remeasure = f
	}(remeasure)
	var asked []int
	remeasure = func(_ context.Context, _ peak.Machine, p *peak.Peaks, threads []int, _ bool) ([]peak.Raised, error) {
		asked = threads
		p.Bandwidth[0].GBPS = 100
		return []peak.Raised{{Level: "L3", Pattern: "read", Threads: 2, From: 50, To: 100}}, nil
	}

	rep := newRun()
	if len(rep.ModelErrors) != 1 {
		t.Fatalf("model errors before %+v, want the 2-thread sum", rep.ModelErrors)
	}
	var stderr bytes.Buffer
	recheckBandwidth(context.Background(), &stderr, &config{}, rep)
	if len(asked) != 1 || asked[0] != 2 {
		t.Errorf("measured again for %v threads, want [2]", asked)
	}
	if len(rep.ModelErrors) != 0 || rep.Results[0].Peak.BandwidthGBPS != 100 || rep.Results[0].Share.Roofline != 0.8 {
		t.Errorf("after: model errors %+v, 2-thread result %+v %+v", rep.ModelErrors, rep.Results[0].Peak, rep.Results[0].Share)
	}
	if rep.Results[1].Peak.BandwidthGBPS != 40 {
		t.Errorf("the 1-thread result was re-bounded: %+v", rep.Results[1].Peak)
	}
	for _, want := range []string{"1 result(s) above their memory bound: measuring the bandwidth peaks again (2 threads)", "L3, 2 threads: read 50.0 → 100 GB/s"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}

	asked = nil
	rep = newRun()
	recheckBandwidth(context.Background(), &stderr, &config{peakGBPS: 30}, rep)
	if asked != nil || len(rep.ModelErrors) != 1 {
		t.Errorf("with -peak-bw: measured again for %v, model errors %+v", asked, rep.ModelErrors)
	}
}

// TestRecheckCompute: a gemm above the empirical peak of its unit gets
// that unit's kernel run again on its thread count (here by a stand-in
// that finds it twice as fast), and every result of that unit and thread
// count takes the raised figure; the f32 result, under its own empirical
// peak, asks for nothing, and neither does an interrupted run.
func TestRecheckCompute(t *testing.T) {
	newRun := func() *result.Run {
		rep := &result.Run{Peaks: peak.Peaks{Compute: []peak.ComputePeak{
			{DType: "i8", Unit: peak.UnitAVX512VNNI, Threads: 2, TheoreticalGFLOPS: 1720, EmpiricalGFLOPS: 731, Kernel: "dpbusd-zmm"},
			{DType: "u8s8", Unit: peak.UnitAVX512VNNI, Threads: 2, TheoreticalGFLOPS: 1720, EmpiricalGFLOPS: 731, Kernel: "dpbusd-zmm"},
			{DType: "f32", Unit: peak.UnitFMA, Threads: 2, TheoreticalGFLOPS: 430, EmpiricalGFLOPS: 427, Kernel: "fma-zmm"},
		}}}
		gemm := func(dtype string, gflops float64, c peak.ComputePeak) result.Result {
			r := result.Result{Backend: "asm", Device: "cpu", Op: "gemm", DType: dtype, Shape: "2048x2048x2048", Threads: 2, Cache: "hot",
				Verified: true, Spread: 0.05, FLOPs: 1.7e10, Bytes: 5e7, Intensity: 340, GFLOPS: gflops}
			r.Ceilings(c, peak.BandwidthPeak{Level: "L3", GBPS: 180})
			return r
		}
		rep.Results = []result.Result{
			gemm("i8", 1556, rep.Peaks.Compute[0]),
			gemm("u8s8", 700, rep.Peaks.Compute[1]),
			gemm("f32", 400, rep.Peaks.Compute[2]),
		}
		return rep
	}
	defer func(f func(context.Context, peak.Machine, *peak.Peaks, []peak.ComputeKernel, bool) ([]peak.RaisedCompute, error)) {
		remeasureCompute = f
	}(remeasureCompute)
	var asked []peak.ComputeKernel
	remeasureCompute = func(_ context.Context, _ peak.Machine, p *peak.Peaks, want []peak.ComputeKernel, _ bool) ([]peak.RaisedCompute, error) {
		asked = want
		p.Compute[0].EmpiricalGFLOPS, p.Compute[1].EmpiricalGFLOPS = 1600, 1600
		return []peak.RaisedCompute{{Unit: peak.UnitAVX512VNNI, Kernel: "dpbusd-zmm", Threads: 2, From: 731, To: 1600}}, nil
	}

	rep := newRun()
	var stderr bytes.Buffer
	recheckCompute(context.Background(), &stderr, &config{}, rep)
	if want := []peak.ComputeKernel{{Kernel: "dpbusd-zmm", Threads: 2}}; !slices.Equal(asked, want) {
		t.Errorf("ran again %+v, want %+v", asked, want)
	}
	for _, r := range rep.Results[:2] {
		if r.Peak.ComputeEmpiricalGFLOPS != 1600 || r.Share.ComputeEmpirical != r.GFLOPS/1600 {
			t.Errorf("%s after: %+v %+v", r.DType, r.Peak, r.Share)
		}
	}
	if f := rep.Results[2]; f.Peak.ComputeEmpiricalGFLOPS != 427 {
		t.Errorf("the f32 result's ceiling changed: %+v", f.Peak)
	}
	for _, want := range []string{"1 result(s) above the empirical compute peak of their unit", "avx512-vnni, 2 threads: 731 → 1600 GFLOP/s"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}

	asked = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep = newRun()
	recheckCompute(ctx, &stderr, &config{}, rep)
	if asked != nil || rep.Results[0].Peak.ComputeEmpiricalGFLOPS != 731 {
		t.Errorf("interrupted: ran again %+v, result %+v", asked, rep.Results[0].Peak)
	}
}
