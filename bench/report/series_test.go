package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/compare"
	"github.com/peakbench/peakbench/bench/result"
)

func TestSeries(t *testing.T) {
	r := result.Result{Backend: "asm", Op: "conv2d", DType: "f32", Shape: "1x64x56x56:64x3x3:p1", Threads: 2, Cache: "hot",
		Algorithm: "direct", Verified: true, MedianNS: 1e6, SamplesNS: []float64{1e6}, GFLOPS: 231}
	o := result.Result{Backend: "onednn", Op: "conv2d", DType: "f32", Shape: r.Shape, Threads: 2, Cache: "hot",
		Algorithm: "auto", Implementation: "jit:avx512_core", Verified: true, MedianNS: 5e5, SamplesNS: []float64{5e5}, GFLOPS: 462}
	p := result.Result{Backend: "go", Op: "gemm"}
	if r.Series() != "asm (direct)" || o.Label() != "onednn (auto) [jit:avx512_core]" || p.Series() != "go" || p.Label() != "go" {
		t.Errorf("series %q, label %q, plain %q %q", r.Series(), o.Label(), p.Series(), p.Label())
	}
	if compare.KeyOf(&r) == compare.KeyOf(&result.Result{Backend: "asm", Op: "conv2d", DType: "f32", Shape: r.Shape, Threads: 2, Cache: "hot", Algorithm: "im2col+gemm"}) {
		t.Error("two algorithms of one backend share a comparison key")
	}
	run := &result.Run{Format: result.Format, Results: []result.Result{r, o}}
	var buf bytes.Buffer
	if err := Write(&buf, run, "table"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "asm (direct)") || !strings.Contains(buf.String(), "onednn (auto) [jit:avx512_core]") {
		t.Errorf("table lacks the algorithms:\n%s", buf.String())
	}
	buf.Reset()
	if err := Write(&buf, run, "gobench"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "BenchmarkConv2d/backend=asm/dtype=f32/shape=1x64x56x56:64x3x3:p1/threads=2/algorithm=direct") {
		t.Errorf("gobench lacks the algorithm:\n%s", buf.String())
	}
	buf.Reset()
	if err := Write(&buf, run, "json"); err != nil {
		t.Fatal(err)
	}
	var back result.Run
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Results[1].Algorithm != "auto" || back.Results[1].Implementation != "jit:avx512_core" {
		t.Errorf("json round trip: %v %+v", err, back.Results)
	}
	if b := result.Summarize(run)[0]; b.Best.Series() != "onednn (auto)" || b.Next.Series() != "asm (direct)" {
		t.Errorf("summary: %+v", b)
	}
}
