package asm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/backend/internal/gokernels"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

func open(t *testing.T) Backend {
	b, err := Open()
	if err != nil {
		t.Skip(err)
	}
	return b.(Backend)
}

func TestConformance(t *testing.T) { backendtest.Run(t, open(t)) }

// TestConformanceLevels runs the suite at every assembly level below the
// best too (an AVX-512 machine also checks its AVX2 kernels), with all the
// CPU's extensions and with none (the low-precision fallbacks).
func TestConformanceLevels(t *testing.T) {
	for l := isa.AVX2; l <= isa.Best; l++ {
		for _, f := range []isa.Feature{isa.Features, 0, isa.AVXVNNI} {
			if l == isa.Best && f == isa.Features {
				continue // TestConformance
			}
			t.Run(l.String()+"/"+f.For(l).String(), func(t *testing.T) { backendtest.Run(t, Backend{Level: l, Features: f}) })
		}
	}
}

// TestLowpUnits checks that the kernels name units bench/peak knows.
func TestLowpUnits(t *testing.T) {
	known := map[string]bool{peak.UnitFMA: true, peak.UnitAVX512BF16: true, peak.UnitAVX512VNNI: true,
		peak.UnitAVXVNNI: true, peak.UnitInt8FMA: true, peak.UnitAMXBF16: true, peak.UnitAMXInt8: true}
	b := open(t)
	for _, dt := range gokernels.LowpDTypes {
		for _, f := range []isa.Feature{isa.Features, 0, isa.AVXVNNI} {
			for l := isa.AVX2; l <= isa.Best; l++ {
				name, unit := gokernels.LowpKernel(dt, l, f)
				if !known[unit] {
					t.Errorf("%s at %v with %v: %s names unit %q", dt, l, f, name, unit)
				}
			}
		}
		w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 20, N: 40, K: 9}}
		k, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		name, unit := gokernels.LowpKernel(dt, b.Level, b.Features)
		if got := backend.ComputeUnitOf(k); got != unit {
			t.Errorf("%s: kernel says unit %q, want %q", dt, got, unit)
		}
		if got := backend.ImplementationOf(k); got != name {
			t.Errorf("%s: kernel says implementation %q, want %q", dt, got, name)
		}
		k.Close()
	}
}

func TestInfo(t *testing.T) {
	info := open(t).Info()
	if !strings.HasPrefix(info.Version, "peakbench ") {
		t.Errorf("version %q", info.Version)
	}
	for _, k := range []string{"isa", "gemm", "gemv", "axpy", "dot", "exp", "tanh", "sigmoid", "softmax"} {
		if info.Details[k] == "" || strings.Contains(info.Details[k], "generic") {
			t.Errorf("details[%q] = %q, want an assembly kernel", k, info.Details[k])
		}
	}
	if !strings.Contains(info.Details["exp"], "ulp") {
		t.Errorf("details[exp] = %q, want the max error", info.Details["exp"])
	}
	t.Log(info)
}

// TestNonTemporalStores: quantize and dequantize say they store
// non-temporally exactly when their kernels do (past each op's tune
// parameter nontemporal.*, at an assembly level), so that the harness
// takes the right ceiling; the results stay exact either way (conformance).
func TestNonTemporalStores(t *testing.T) {
	b := open(t)
	defer tune.Save().Restore()
	for _, op := range []workload.Op{workload.Quantize, workload.Dequantize} {
		w := workload.Workload{Op: op, DType: workload.I8, Shape: workload.Shape{N: 4096}}
		for _, c := range []struct {
			from int
			want bool
		}{{1, true}, {1 << 30, false}, {tune.MaxPieceBytes, false}} {
			p := tune.Defaults()
			p.NonTemporal = tune.NonTemporal{Quantize: c.from, Dequantize: c.from}
			tune.Apply(p, "test")
			checkNonTemporal(t, b, w, c.want, fmt.Sprintf("%s from %d bytes", op, c.from))
		}
	}
}

// TestNonTemporalElementWise: the element-wise ops that store past the
// caches once a call moves elem's crossover (half the last-level cache, at
// most 4 MiB a CPU) say so, and only then, so that the harness measures
// them against the non-temporal copy rather than a ceiling they can pass.
func TestNonTemporalElementWise(t *testing.T) {
	b := open(t)
	if isa.Best.Clamp() == isa.Generic {
		t.Skip("no assembly level on this CPU")
	}
	from := tune.DefaultNonTemporalBytes(runtime.NumCPU(), isa.Caches().L3)
	for _, op := range []workload.Op{workload.Add, workload.Mul, workload.ReLU, workload.Exp, workload.Tanh, workload.Sigmoid} {
		for _, c := range []struct {
			n    int
			want bool
		}{{4096, false}, {from / 4, true}} {
			w := workload.Workload{Op: op, DType: workload.F32, Shape: workload.Shape{N: c.n}}
			checkNonTemporal(t, b, w, c.want, fmt.Sprintf("%s of %d", op, c.n))
		}
	}
}

// checkNonTemporal prepares w on b at one thread, checks that its kernel
// says it stores non-temporally exactly when want, and that its output
// verifies.
func checkNonTemporal(t *testing.T, b Backend, w workload.Workload, want bool, what string) {
	t.Helper()
	data := w.NewData(1)
	k, err := b.Prepare(w, data, backend.Config{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if got := backend.NonTemporalOf(k); got != want {
		t.Errorf("%s: NonTemporalOf = %v, want %v", what, got, want)
	}
	if _, err := k.Run(1); err != nil {
		t.Fatal(err)
	}
	out, err := k.Output()
	if err != nil {
		t.Fatal(err)
	}
	if chk := w.Verify(data, out); !chk.OK {
		t.Errorf("%s: %s", what, chk.Detail)
	}
}
