package harness

import (
	"context"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
)

// scriptedClock is a Plan.Clock that reads `ghz` on every call unless
// `at` gives another reading for the n-th call (from 1) of a thread count.
type scriptedClock struct {
	ghz   float64
	at    map[int]map[int]float64 // threads → call → GHz
	calls map[int]int
	ds    []time.Duration
}

func (s *scriptedClock) read(threads int, d time.Duration) float64 {
	if s.calls == nil {
		s.calls = map[int]int{}
	}
	s.calls[threads]++
	s.ds = append(s.ds, d)
	if g, ok := s.at[threads][s.calls[threads]]; ok {
		return g
	}
	return s.ghz
}

func clockPlan(c *scriptedClock) Plan {
	p := plan(&fake{name: "good", perIter: time.Microsecond})
	p.Peaks.Clocks = []peak.ClockReading{{Threads: 1, GHz: 3, Kernel: "add-chain"}, {Threads: 2, GHz: 3, Kernel: "add-chain"}}
	p.Clock = c.read
	return p
}

func marked(rs []result.Result) map[string]*result.ClockDrift {
	m := map[string]*result.ClockDrift{}
	for _, r := range rs {
		if r.ClockDrift != nil {
			m[r.Op+"/"+string(rune('0'+r.Threads))] = r.ClockDrift
		}
	}
	return m
}

// TestClockDropMarksResults simulates a clock drop after the first
// workload on one thread: that workload (read low after it) and the next
// (read low before it) are marked; two threads are not.
func TestClockDropMarksResults(t *testing.T) {
	// Calls on 1 thread: 1 before gemm, 2 after gemm (low, so read again: 3),
	// 4 after axpy, 5 at the end.
	c := &scriptedClock{ghz: 3, at: map[int]map[int]float64{1: {2: 2.5, 3: 2.6}}}
	o, err := Run(context.Background(), clockPlan(c))
	if err != nil {
		t.Fatal(err)
	}
	m := marked(o.Results)
	if len(m) != 2 || m["gemm/1"] == nil || m["axpy/1"] == nil {
		t.Fatalf("marked %v, want gemm and axpy on 1 thread", m)
	}
	if d := m["gemm/1"]; d.StartGHz != 3 || d.BeforeGHz != 3 || d.AfterGHz != 2.6 || abs(d.Drift-(2.6/3-1)) > 1e-12 {
		t.Errorf("gemm's drift %+v (the higher of two low readings is kept)", d)
	}
	if d := m["axpy/1"]; d.BeforeGHz != 2.6 || d.AfterGHz != 3 {
		t.Errorf("axpy's drift %+v", d)
	}
	if len(o.Clocks) != 2 {
		t.Fatalf("clocks %+v", o.Clocks)
	}
	one := o.Clocks[0]
	if one.Threads != 1 || one.StartGHz != 3 || one.Kernel != "add-chain" || one.EndGHz != 3 || one.Drift != 0 ||
		one.MinGHz != 2.6 || one.MaxGHz != 3 || one.Checks != 2 || one.Marked != 2 || !one.Drifted(0.03) {
		t.Errorf("1 thread: %+v", one)
	}
	if two := o.Clocks[1]; two.Marked != 0 || two.Drifted(0.03) || two.Checks != 2 {
		t.Errorf("2 threads: %+v", two)
	}
	// One reading before and after each workload and one at the end,
	// plus the second look at the low reading.
	if got, want := c.calls[1]+c.calls[2], 2*(1+2+1)+1; got != want {
		t.Errorf("%d clock readings, want %d", got, want)
	}
	ends := 0
	for _, d := range c.ds {
		switch d {
		case ClockEnd:
			ends++
		case ClockCheck:
		default:
			t.Errorf("a reading of %v", d)
		}
	}
	if ends != 2 {
		t.Errorf("%d end-of-run readings, want 2", ends)
	}
}

// TestClockNoiseIsNotDrift: a single low reading that a second look does
// not confirm marks nothing; a rise (which a reading cannot fake) does.
func TestClockNoiseIsNotDrift(t *testing.T) {
	c := &scriptedClock{ghz: 3, at: map[int]map[int]float64{1: {2: 2.5}}}
	o, err := Run(context.Background(), clockPlan(c))
	if err != nil {
		t.Fatal(err)
	}
	if m := marked(o.Results); len(m) != 0 || o.Clocks[0].MinGHz != 3 {
		t.Errorf("unconfirmed low reading marked %v, clock %+v", m, o.Clocks[0])
	}
	// Within the noise target: 2% off, not marked.
	c = &scriptedClock{ghz: 3, at: map[int]map[int]float64{2: {2: 2.94, 3: 3.06}}}
	o, _ = Run(context.Background(), clockPlan(c))
	if m := marked(o.Results); len(m) != 0 {
		t.Errorf("2%% off marked %v", m)
	}
	// A rise after the start is drift (the peaks were measured low).
	c = &scriptedClock{ghz: 3, at: map[int]map[int]float64{2: {3: 3.6}}}
	o, _ = Run(context.Background(), clockPlan(c))
	if m := marked(o.Results); len(m) != 1 || m["axpy/2"] == nil || m["axpy/2"].Drift <= 0.19 {
		t.Errorf("rise marked %v", m)
	}
	if c.calls[2] != 4 {
		t.Errorf("%d readings on 2 threads, want 4 (no second look at a high one)", c.calls[2])
	}
}

func TestNoClockNoChecks(t *testing.T) {
	p := plan(&fake{name: "good", perIter: time.Microsecond})
	o, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Clocks) != 0 || len(marked(o.Results)) != 0 || len(o.Results) != 4 {
		t.Errorf("without Plan.Clock: clocks %+v, %d results", o.Clocks, len(o.Results))
	}
	// Execute is Run without the clocks.
	rs, err := Execute(context.Background(), p)
	if err != nil || len(rs) != 4 || rs[1].Footprint <= 0 {
		t.Errorf("Execute: %d results, %v; footprint %v", len(rs), err, rs[1].Footprint)
	}
}

// TestClockInterrupted: a run stopped midway keeps the clocks read so far
// and takes no end-of-run reading.
func TestClockInterrupted(t *testing.T) {
	c := &scriptedClock{ghz: 3}
	p := clockPlan(c)
	ctx, cancel := context.WithCancel(context.Background())
	p.Progress = func(done, total int, _ []result.Result) {
		if done == 1 {
			cancel()
		}
	}
	o, err := Run(ctx, p)
	if err == nil {
		t.Fatal("no error from an interrupted run")
	}
	if len(o.Clocks) != 1 || o.Clocks[0].Checks != 1 || o.Clocks[0].EndGHz != 0 {
		t.Errorf("clocks %+v", o.Clocks)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
