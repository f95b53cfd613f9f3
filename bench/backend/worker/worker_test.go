package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/harness"
	"github.com/peakbench/peakbench/bench/measure"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// refSpec starts the test binary as the reference worker in mode.
func refSpec(name, mode string) Spec {
	return Spec{Name: name, Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{refWorkerEnv + "=" + mode}, Timeout: 3 * time.Second}
}

func startRef(t *testing.T, name, mode string) *Backend {
	t.Helper()
	b, err := Start(refSpec(name, mode))
	if err != nil {
		t.Fatalf("Start(%s): %v", mode, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestReferenceConformance runs the conformance suite every backend
// passes through the protocol, against the Go reference worker.
func TestReferenceConformance(t *testing.T) {
	b := startRef(t, "ref", "ok")
	if b.Name() != "ref" || !b.Device().IsHost() || b.Info().Version != "1.0" || b.Info().Details["mode"] != "ok" {
		t.Errorf("hello not taken: name %q device %q info %+v", b.Name(), b.Device(), b.Info())
	}
	backendtest.Run(t, b)
	if _, err := os.Stat(shmDir()); err == nil {
		left, _ := os.ReadDir(shmDir())
		for _, e := range left {
			if strings.HasPrefix(e.Name(), fmt.Sprintf("peakbench-%d-", os.Getpid())) {
				t.Errorf("shared file %s left behind", e.Name())
			}
		}
	}
}

// TestHelloRefused: a worker that speaks another protocol version, or
// whose framework is missing, is refused at Start with one line saying so.
func TestHelloRefused(t *testing.T) {
	for mode, want := range map[string]string{
		"version": "ref: worker speaks protocol 99; peakbench speaks 1",
		"missing": "ref: No module named 'ref'",
		"noisy":   "ref: worker's reply to hello is malformed",
		"device":  `ref: worker's hello: device "gpu zero": want "cpu" or KIND:INDEX [NAME]`,
	} {
		_, err := Start(refSpec("ref", mode))
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Start: %v; want one line starting %q", mode, err, want)
		}
		var miss errMissing
		if errors.As(err, &miss) != (mode == "missing") {
			t.Errorf("%s: missing framework %v", mode, errors.As(err, &miss))
		}
	}
	_, err := Start(Spec{Name: "ref", Command: []string{"/nonexistent/python3"}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("Start of a missing program: %v", err)
	}
}

// TestFaults runs a faulty worker beside a correct one through the
// harness: the faulty one's results carry one clear error (or fail
// verification), the other's are all kept and verified.
func TestFaults(t *testing.T) {
	for _, c := range []struct{ mode, want string }{
		{"crash", "bad: worker exited with status 3 while running gemm f32 8x8x8: Fatal: simulated crash"},
		{"hang", "bad: gemm f32 8x8x8 timed out after 1s; stopped the worker"},
		{"malformed", `bad: worker's reply to run is malformed (invalid character 'h' in literal true (expecting 'r')): "this is not JSON"; stopped it`},
		{"zerons", `bad: worker's reply to run has no positive "ns" (0); stopped it`},
		{"wrong", ""},
	} {
		t.Run(c.mode, func(t *testing.T) {
			good := startRef(t, "good", "ok")
			spec := refSpec("bad", c.mode)
			spec.Timeout = time.Second
			bad, err := Start(spec)
			if err != nil {
				t.Fatal(err)
			}
			defer bad.Close()
			results, err := harness.Execute(context.Background(), plan(good, bad))
			if err != nil {
				t.Fatal(err)
			}
			n := map[string]int{}
			for _, r := range results {
				n[r.Backend]++
				switch {
				case r.Backend == "good":
					if r.Error != "" || !r.Verified || r.MedianNS <= 0 {
						t.Errorf("good %s: error %q, verified %v, median %v", r.Op, r.Error, r.Verified, r.MedianNS)
					}
				case c.mode == "wrong":
					if r.Error != "" || r.Verified {
						t.Errorf("wrong %s: error %q, verified %v; want a failed verification", r.Op, r.Error, r.Verified)
					}
				default:
					if r.Error != c.want {
						t.Errorf("%s %s: error\n%q, want\n%q", c.mode, r.Op, r.Error, c.want)
					}
				}
			}
			if n["good"] != 2 || n["bad"] != 2 {
				t.Errorf("results per backend %v; want 2 each", n)
			}
		})
	}
}

// TestUnsupported: an op the hello does not list is skipped without a
// request; a dead worker's backend returns its error at once.
func TestUnsupported(t *testing.T) {
	b := startRef(t, "ref", "ok")
	w := workload.Workload{Op: workload.Conv2D, DType: workload.F32}
	if _, err := b.Prepare(w, workload.Data{}, backend.Config{}); !errors.Is(err, backend.ErrUnsupported) {
		t.Errorf("Prepare(conv2d) = %v; want ErrUnsupported", err)
	}
	w = workload.Workload{Op: workload.Dot, DType: workload.F32, Shape: workload.Shape{N: 8}}
	if _, err := b.Prepare(w, w.NewData(1), backend.Config{Algorithm: "x"}); err == nil {
		t.Error("Prepare with an algorithm the worker does not list succeeded")
	}
	b.fail(errors.New("ref: gone"))
	if _, err := b.Prepare(w, w.NewData(1), backend.Config{}); err == nil || err.Error() != "ref: gone" {
		t.Errorf("Prepare on a dead worker: %v", err)
	}
}

// TestUnavailableSaysWhy: an op the hello leaves out with a reason
// (a framework build without it) is refused as undeclared, with that
// reason, never as a shape the worker cannot run.
func TestUnavailableSaysWhy(t *testing.T) {
	b := startRef(t, "ref", "nosparse")
	sh, err := workload.ParseShape(workload.SpMV, "banded:n=16:bw=1")
	if err != nil {
		t.Fatal(err)
	}
	w := workload.Workload{Op: workload.SpMV, DType: workload.F32, Shape: sh}
	_, err = b.Prepare(w, w.NewData(1), backend.Config{})
	if !errors.Is(err, backend.ErrUnsupported) || errors.Is(err, backend.ErrUnsupportedShape) ||
		!strings.Contains(err.Error(), "ref 1.0 has no sparse matrices") {
		t.Errorf("Prepare(spmv) = %v; want ErrUnsupported with the hello's reason", err)
	}
	if backend.DeclaredBy(b).Has(workload.SpMV, workload.F32) {
		t.Error("spmv declared though the hello left it out")
	}
	// One dtype of a listed op, with its own reason: the harness quotes it.
	g := workload.Workload{Op: workload.GEMM, DType: workload.BF16}
	if why := b.WhyNot(g); why != "ref 1.0 multiplies no bf16" {
		t.Errorf("WhyNot(gemm bf16) = %q", why)
	}
	if why := b.WhyNot(workload.Workload{Op: workload.GEMM, DType: workload.F32}); why != "" {
		t.Errorf("WhyNot(gemm f32) = %q; want nothing: it computes it", why)
	}
}

// TestPythonMissing: with PEAKBENCH_PYTHON naming an interpreter that
// is not there, the Python backends say so and how to fix it.
func TestPythonMissing(t *testing.T) {
	t.Setenv("PEAKBENCH_PYTHON", "/nonexistent/python3")
	for _, p := range pythons {
		_, err := p.open(backend.OpenOptions{})
		if err == nil || !strings.Contains(err.Error(), "no Python with "+p.module) || !strings.Contains(err.Error(), "/nonexistent/python3") ||
			!strings.Contains(err.Error(), "PEAKBENCH_PYTHON names no interpreter that can run") {
			t.Errorf("%s: %v", p.name, err)
		}
	}
}

// plan is a two-workload plan with a made-up machine, as the harness's
// tests build it.
func plan(backends ...backend.Backend) harness.Plan {
	opt := measure.DefaultOptions()
	opt.MinTime = time.Millisecond
	opt.MaxTime = 100 * time.Millisecond
	return harness.Plan{
		Workloads: []workload.Workload{
			{Op: workload.GEMM, DType: workload.F32, Shape: workload.Shape{M: 8, N: 8, K: 8}},
			{Op: workload.AXPY, DType: workload.F64, Shape: workload.Shape{N: 1000}},
		},
		Backends: backends,
		Threads:  []int{1},
		Seed:     1,
		Measure:  opt,
		Machine:  peak.Machine{CPUs: 1, Caches: []peak.Cache{{Level: 1, Bytes: 32 << 10}}},
		Peaks: peak.Peaks{
			Compute:   []peak.ComputePeak{{DType: "f32", Threads: 1, TheoreticalGFLOPS: 100}, {DType: "f64", Threads: 1, TheoreticalGFLOPS: 50}},
			Bandwidth: []peak.BandwidthPeak{{Level: "L1", Threads: 1, GBPS: 300}, {Level: "DRAM", Threads: 1, GBPS: 20}},
		},
	}
}
