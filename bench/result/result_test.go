package result_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestCeilings(t *testing.T) {
	r := resulttest.Fixture().Results
	if r[0].Peak.Bound != "compute" || r[1].Peak.Bound != "memory" || r[1].Peak.BandwidthLevel != "DRAM" {
		t.Errorf("bounds %q, %q/%q", r[0].Peak.Bound, r[1].Peak.Bound, r[1].Peak.BandwidthLevel)
	}
	// axpy: intensity 1/6 FLOP/B × 28 GB/s = 4.67 GFLOP/s roofline.
	if got, want := r[1].Peak.RooflineGFLOPS, 28.0/6; abs(got-want) > 1e-9 {
		t.Errorf("axpy roofline %v, want %v", got, want)
	}
	if got, want := r[1].Share.Roofline, r[1].Share.Bandwidth; abs(got-want) > 1e-12 {
		t.Errorf("memory-bound roofline share %v differs from bandwidth share %v", got, want)
	}
	if got, want := r[0].Share.ComputeTheoretical, r[0].GFLOPS/195.2; abs(got-want) > 1e-12 {
		t.Errorf("compute share %v, want %v", got, want)
	}
}

// TestCeilingsWithoutFLOPs: an op that does no arithmetic (a sparse
// format conversion) is memory-bound, its roofline share its bandwidth's.
func TestCeilingsWithoutFLOPs(t *testing.T) {
	r := result.Result{Op: "csr2csc", FLOPs: 0, Bytes: 1e6, GBPS: 7}
	r.Ceilings(peak.ComputePeak{TheoreticalGFLOPS: 100}, peak.BandwidthPeak{Level: "DRAM", GBPS: 28})
	if r.Peak.Bound != "memory" || r.Share.Roofline != 0.25 || r.Share.Bandwidth != 0.25 {
		t.Errorf("bound %q, roofline share %v, bandwidth share %v; want memory, 0.25, 0.25", r.Peak.Bound, r.Share.Roofline, r.Share.Bandwidth)
	}
}

// TestRebound: a bandwidth ceiling measured again replaces the first,
// with the roofline and shares that follow; the compute ceiling, its
// unit's note and the reference stream stay.
func TestRebound(t *testing.T) {
	r := result.Result{Op: "axpy", FLOPs: 2e6, Bytes: 12e6, Intensity: 1.0 / 6, GBPS: 24, GFLOPS: 4}
	r.Ceilings(peak.ComputePeak{Unit: "fma", TheoreticalGFLOPS: 100, EmpiricalGFLOPS: 90}, peak.BandwidthPeak{Level: "L3", Pattern: "update", GBPS: 20})
	r.Peak.ComputeUnitNote, r.Peak.ReferenceGBPS, r.Peak.Reference, r.Share.Reference = "note", 30, "update over 12 MB", 0.8
	r.Rebound(peak.BandwidthPeak{Level: "L3", Pattern: "update", GBPS: 40, Spread: 0.02})
	p := r.Peak
	if p.BandwidthGBPS != 40 || p.BandwidthSpread != 0.02 || p.Bound != "memory" || abs(p.RooflineGFLOPS-40.0/6) > 1e-9 || abs(r.Share.Roofline-4/(40.0/6)) > 1e-9 || r.Share.Bandwidth != 0.6 {
		t.Errorf("after Rebound: %+v, shares %+v", p, r.Share)
	}
	if p.ComputeUnit != "fma" || p.ComputeTheoreticalGFLOPS != 100 || p.ComputeEmpiricalGFLOPS != 90 || p.ComputeUnitNote != "note" ||
		p.ReferenceGBPS != 30 || p.Reference != "update over 12 MB" || r.Share.Reference != 0.8 || r.Share.ComputeTheoretical != 0.04 {
		t.Errorf("Rebound changed what it should keep: %+v, shares %+v", p, r.Share)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestJSONNames(t *testing.T) {
	var buf bytes.Buffer
	result.WriteJSON(&buf, resulttest.Fixture())
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"machine", "peaks", "results"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("top level lacks %q", k)
		}
	}
	res := doc["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"backend", "op", "dtype", "shape", "threads", "samples_ns", "median_ns", "gflops", "gbps",
		"intensity", "verified", "max_rel_err", "share"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %q", k)
		}
	}
	share := res["share"].(map[string]any)
	for _, k := range []string{"compute_theoretical", "compute_empirical", "bandwidth", "roofline"} {
		if _, ok := share[k]; !ok {
			t.Errorf("share lacks %q", k)
		}
	}
}
