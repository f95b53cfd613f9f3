package measure

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	want := Stats{N: 5, Median: 3, Min: 1, Max: 5, Q1: 2, Q3: 4, Mean: 3}
	if s != want {
		t.Fatalf("Summarize = %+v, want %+v", s, want)
	}
	if got := s.IQR(); got != 2 {
		t.Errorf("IQR = %v, want 2", got)
	}
	if got := s.Spread(); math.Abs(got-2.0/3) > 1e-15 {
		t.Errorf("Spread = %v, want 2/3", got)
	}
	// Even count: the median interpolates.
	if m := Summarize([]float64{1, 2, 3, 10}).Median; m != 2.5 {
		t.Errorf("median of 1,2,3,10 = %v, want 2.5", m)
	}
	// Interpolated quartiles (type 7): 1..8 → Q1 = 2.75, Q3 = 6.25.
	s = Summarize([]float64{8, 7, 6, 5, 4, 3, 2, 1})
	if s.Q1 != 2.75 || s.Q3 != 6.25 {
		t.Errorf("Q1, Q3 = %v, %v, want 2.75, 6.25", s.Q1, s.Q3)
	}
	if (Summarize(nil) != Stats{}) {
		t.Error("Summarize(nil) is not zero")
	}
	if Summarize([]float64{7}).Median != 7 {
		t.Error("median of one sample")
	}
}

// fakeTarget reports a fixed time per iteration, with an optional jitter
// pattern, without sleeping.
type fakeTarget struct {
	perIter time.Duration
	jitter  []float64 // multipliers cycled per call
	calls   int
	iters   []int
	failAt  int // call number that fails, 0 for never
}

func (f *fakeTarget) Run(iters int) (time.Duration, error) {
	f.calls++
	f.iters = append(f.iters, iters)
	if f.failAt != 0 && f.calls == f.failAt {
		return 0, errors.New("device lost")
	}
	m := 1.0
	if len(f.jitter) > 0 {
		m = f.jitter[f.calls%len(f.jitter)]
	}
	return time.Duration(float64(f.perIter) * float64(iters) * m), nil
}

func TestInterleavedQuiet(t *testing.T) {
	a := &fakeTarget{perIter: time.Microsecond}
	b := &fakeTarget{perIter: 3 * time.Microsecond}
	opt := DefaultOptions()
	res, err := Interleaved(context.Background(), []Target{a, b}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("target %d: %v", i, r.Err)
		}
		if len(r.Samples) != opt.MinSamples {
			t.Errorf("target %d: %d samples, want %d (quiet targets stop at the minimum)", i, len(r.Samples), opt.MinSamples)
		}
		if r.Noisy {
			t.Errorf("target %d reported noisy", i)
		}
		if got := time.Duration(r.Iters) * []time.Duration{a.perIter, b.perIter}[i]; got < opt.MinTime {
			t.Errorf("target %d: sample lasts %v, under MinTime %v", i, got, opt.MinTime)
		}
	}
	if res[0].Stats.Median != 1000 || res[1].Stats.Median != 3000 {
		t.Errorf("medians %v, %v ns, want 1000, 3000", res[0].Stats.Median, res[1].Stats.Median)
	}
}

func TestInterleavedNoisyExtendsAndSaysSo(t *testing.T) {
	noisy := &fakeTarget{perIter: time.Microsecond, jitter: []float64{1, 1.5, 0.7, 1.3}}
	opt := DefaultOptions()
	opt.MaxSamples = 25
	res, err := Interleaved(context.Background(), []Target{noisy}, opt)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.Samples) != opt.MaxSamples {
		t.Errorf("%d samples, want extension to %d", len(r.Samples), opt.MaxSamples)
	}
	if !r.Noisy {
		t.Errorf("spread %.2f over target %.2f not reported noisy", r.Stats.Spread(), opt.NoiseTarget)
	}
}

func TestInterleavedFailureStopsOnlyThatTarget(t *testing.T) {
	bad := &fakeTarget{perIter: time.Microsecond, failAt: 8}
	good := &fakeTarget{perIter: time.Microsecond}
	res, err := Interleaved(context.Background(), []Target{bad, good}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err == nil {
		t.Error("failing target has no error")
	}
	if res[1].Err != nil || res[1].Stats.N == 0 {
		t.Errorf("healthy target: err %v, %d samples", res[1].Err, res[1].Stats.N)
	}
}

func TestInterleavedRoundRobin(t *testing.T) {
	// Every round takes one sample of each target: after calibration the
	// sample counts of two quiet targets never differ by more than one.
	a := &fakeTarget{perIter: time.Microsecond}
	b := &fakeTarget{perIter: time.Microsecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, _ := Interleaved(ctx, []Target{a, b}, DefaultOptions())
	if d := len(res[0].Samples) - len(res[1].Samples); d < -1 || d > 1 {
		t.Errorf("sample counts %d and %d", len(res[0].Samples), len(res[1].Samples))
	}
}

func TestInterleavedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Interleaved(ctx, []Target{&fakeTarget{perIter: time.Microsecond}}, DefaultOptions())
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
}

func TestTimerOverhead(t *testing.T) {
	if d := TimerOverhead(); d <= 0 || d > time.Millisecond {
		t.Errorf("TimerOverhead = %v, want a small positive duration", d)
	}
}

// orderTarget records, in a log shared by all targets, which one ran.
type orderTarget struct {
	id  int
	log *[]int
}

func (o orderTarget) Run(iters int) (time.Duration, error) {
	*o.log = append(*o.log, o.id)
	return time.Duration(iters) * time.Microsecond, nil
}

// TestQuietOnSwitch checks that Quiet runs before each sample of a target
// other than the one sampled last, and only then.
func TestQuietOnSwitch(t *testing.T) {
	var log []int
	quiets := 0
	opt := DefaultOptions()
	opt.MinTime = time.Microsecond
	opt.Settle = time.Nanosecond
	opt.Quiet = func() { quiets++; log = append(log, -1) }
	if _, err := Interleaved(context.Background(), []Target{orderTarget{0, &log}, orderTarget{1, &log}}, opt); err != nil {
		t.Fatal(err)
	}
	// Calibration runs each target on its own first (no pause); from the
	// first sample on, a Quiet (-1) stands before every sample of another
	// target than the last one, and only there.
	first := slices.Index(log, -1)
	if first < 0 {
		t.Fatalf("Quiet never ran: %v", log)
	}
	prev, lastID, switches := -2, -2, 0
	for _, id := range log[first:] {
		if id == -1 {
			prev = -1
			continue
		}
		if prev >= 0 && prev != id {
			t.Fatalf("target %d sampled right after %d without Quiet: %v", id, prev, log)
		}
		if prev == -1 && id == lastID {
			t.Fatalf("Quiet before a second sample of target %d in a row: %v", id, log)
		}
		lastID = id
		if prev == -1 {
			switches++
		}
		prev = id
	}
	if quiets == 0 || quiets != switches {
		t.Errorf("Quiet ran %d times for %d switches: %v", quiets, switches, log)
	}
}
