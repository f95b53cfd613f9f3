package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/result"
)

func TestSpeedups(t *testing.T) {
	res := func(backend, op string, ns float64, verified bool) result.Result {
		return result.Result{Backend: backend, Op: op, DType: "f32", Shape: "8", Threads: 1, Cache: "hot", MedianNS: ns, Verified: verified}
	}
	run := &result.Run{Vs: "torch", Results: []result.Result{
		res("torch", "add", 200, true), res("asm", "add", 100, true), res("numpy", "add", 400, true),
		res("torch", "exp", 300, true), res("asm", "exp", 100, true), res("numpy", "exp", 300, false),
		res("torch", "dot", 100, false), res("asm", "dot", 50, true), // no verified base: no speedup
	}}
	if s, ok := SpeedupOver(run, &run.Results[1]); !ok || s != 2 {
		t.Errorf("asm add: %v %v, want 2×", s, ok)
	}
	if _, ok := SpeedupOver(run, &run.Results[5]); ok {
		t.Error("a result that failed verification has a speedup")
	}
	if _, ok := SpeedupOver(run, &run.Results[7]); ok {
		t.Error("a speedup over a failed base")
	}
	tab := Speedups(run)
	if strings.Join(tab.Series, ",") != "asm,numpy" || len(tab.Rows) != 2 {
		t.Fatalf("series %v, %d rows; want asm,numpy and 2 rows (add, exp)", tab.Series, len(tab.Rows))
	}
	if g := tab.GeoMean[0]; math.Abs(g-math.Sqrt(6)) > 1e-12 || tab.Count[0] != 2 {
		t.Errorf("asm geometric mean %v over %d, want √6 over 2", g, tab.Count[0])
	}
	if g := tab.GeoMean[1]; g != 0.5 || tab.Count[1] != 1 {
		t.Errorf("numpy geometric mean %v over %d, want 0.5 over 1", g, tab.Count[1])
	}
}
