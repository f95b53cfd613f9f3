package onednn_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/backend/onednn"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/workload"
)

// TestGEMMUnits: every gemm dtype declared runs, verifies exactly (the
// integer types) or within its bound, and names oneDNN's implementation
// and a unit; on this machine's oneDNN every name is one the table knows.
func TestGEMMUnits(t *testing.T) {
	b := backendtest.Open(t, "onednn")
	decl := backend.DeclaredBy(b)
	if !decl.Has(workload.GEMM, workload.F32) {
		t.Fatalf("gemm f32 not declared: %v", decl[workload.GEMM])
	}
	for _, dt := range decl[workload.GEMM] {
		w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 33, N: 17, K: 129, TransB: true}}
		data := w.NewData(7)
		k, err := b.Prepare(w, data, backend.Config{Threads: 1, Copies: 1})
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		if _, err := k.Run(1); err != nil {
			t.Fatal(err)
		}
		out, err := k.Output()
		if err != nil {
			t.Fatal(err)
		}
		if c := w.Verify(data, out); !c.OK || (dt.Integer() && c.MaxRelErr != 0) {
			t.Errorf("%s: %s (max error %g)", dt, c.Detail, c.MaxRelErr)
		}
		impl, unit := backend.ImplementationOf(k), backend.ComputeUnitOf(k)
		t.Logf("%s: %s on %q", dt, impl, unit)
		if impl == "" || unit == "" {
			t.Errorf("%s: implementation %q, unit %q; want both", dt, impl, unit)
		}
		k.Close()
	}
}

// TestGEMMRefused: a dtype oneDNN 2.x has no matmul for is not declared
// and is refused with ErrUnsupported, naming why.
func TestGEMMRefused(t *testing.T) {
	b := backendtest.Open(t, "onednn")
	for _, dt := range []workload.DType{workload.F64, workload.TF32, workload.E4M3, workload.E5M2, workload.F16} {
		if backend.DeclaredBy(b).Has(workload.GEMM, dt) {
			continue // a newer oneDNN, or f16 where it has one
		}
		w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 4, N: 4, K: 4}}
		_, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
		if !errors.Is(err, backend.ErrUnsupported) || errors.Is(err, backend.ErrUnsupportedShape) || !strings.Contains(err.Error(), string(dt)) {
			t.Errorf("gemm %s: err = %v; want ErrUnsupported naming %s", dt, err, dt)
		}
	}
}

// unitChildEnv marks the child process of TestUnitFollowsISA.
const unitChildEnv = "PEAKBENCH_ONEDNN_UNIT_CHILD"

// TestUnitFollowsISA runs the gemm types in child processes under
// oneDNN's ISA cap, ONEDNN_MAX_CPU_ISA, which oneDNN reads once, at its
// first dispatch (so only a fresh process can change it): the unit each
// result is a share of follows the implementation oneDNN picks. A cap the
// CPU does not reach (the effective ISA stays below it) is skipped.
func TestUnitFollowsISA(t *testing.T) {
	if os.Getenv(unitChildEnv) != "" {
		t.Skip("in the child")
	}
	backendtest.Open(t, "onednn") // skips where oneDNN is not installed
	type want map[workload.DType]string
	for _, c := range []struct {
		cap, isa string
		units    want   // "-": not declared
		refusal  string // in the refusal of an integer type not declared, if any
	}{
		{"AVX512_CORE_AMX", "avx512_core_amx", want{workload.F32: peak.UnitFMA, workload.BF16: peak.UnitAMXBF16, workload.I8: peak.UnitAMXInt8, workload.U8S8: peak.UnitAMXInt8}, ""},
		{"AVX512_CORE_BF16", "avx512_core_bf16", want{workload.F32: peak.UnitFMA, workload.BF16: peak.UnitAVX512BF16, workload.I8: peak.UnitAVX512VNNI, workload.U8S8: peak.UnitAVX512VNNI}, ""},
		{"AVX512_CORE_VNNI", "avx512_core_vnni", want{workload.F32: peak.UnitFMA, workload.BF16: peak.UnitFMA, workload.I8: peak.UnitAVX512VNNI, workload.U8S8: peak.UnitAVX512VNNI}, ""},
		{"AVX2_VNNI", "avx2_vnni", want{workload.F32: peak.UnitFMA, workload.BF16: "-", workload.I8: peak.UnitAVXVNNI, workload.U8S8: peak.UnitAVXVNNI}, ""},
		// Without VNNI oneDNN's int8 gemm saturates: not declared.
		{"AVX512_CORE", "avx512_core", want{workload.F32: peak.UnitFMA, workload.BF16: peak.UnitFMA, workload.I8: "-", workload.U8S8: "-"}, "saturating 16-bit"},
		{"AVX2", "avx2", want{workload.F32: peak.UnitFMA, workload.BF16: "-", workload.I8: "-", workload.U8S8: "-"}, "saturating 16-bit"},
	} {
		t.Run(c.cap, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestUnitChild$", "-test.v")
			cmd.Env = append(os.Environ(), unitChildEnv+"=1", "ONEDNN_MAX_CPU_ISA="+c.cap)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			got, isa, refusals := want{}, "", 0
			for _, line := range strings.Split(string(out), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) == 2 && f[0] == "ISA":
					isa = f[1]
				case len(f) >= 3 && f[0] == "UNIT":
					got[workload.DType(f[1])] = f[len(f)-1]
				case len(f) >= 3 && f[0] == "REFUSED" && c.refusal != "":
					refusals++
					if !strings.Contains(line, c.refusal) {
						t.Errorf("refusal %q; want it to say %q", line, c.refusal)
					}
				}
			}
			if isa != c.isa {
				t.Skipf("this CPU's oneDNN runs %q under the cap %s", isa, c.cap)
			}
			for dt, u := range c.units {
				g, ok := got[dt]
				if !ok {
					g = "-"
				}
				if g != u {
					t.Errorf("%s: unit %q; want %q\n%s", dt, g, u, out)
				}
			}
			if c.refusal != "" && refusals != 2 {
				t.Errorf("%d integer gemm refusals; want 2\n%s", refusals, out)
			}
		})
	}
}

// TestUnitChild prints, in TestUnitFollowsISA's child, the effective ISA
// and each declared gemm type's implementation and unit.
func TestUnitChild(t *testing.T) {
	if os.Getenv(unitChildEnv) == "" {
		t.Skip("run by TestUnitFollowsISA")
	}
	b, err := onednn.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	os.Stdout.WriteString("ISA " + b.Library().EffectiveISA() + "\n")
	decl := backend.DeclaredBy(b)
	for _, dt := range []workload.DType{workload.I8, workload.U8S8} {
		if !decl.Has(workload.GEMM, dt) {
			w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 4, N: 4, K: 4}}
			_, err := b.Prepare(w, w.NewData(1), backend.Config{Threads: 1, Copies: 1})
			os.Stdout.WriteString("REFUSED " + string(dt) + " " + fmt.Sprint(err) + "\n")
		}
	}
	for _, dt := range decl[workload.GEMM] {
		w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 64, N: 64, K: 64}}
		data := w.NewData(1)
		k, err := b.Prepare(w, data, backend.Config{Threads: 1, Copies: 1})
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		if _, err := k.Run(1); err != nil {
			t.Fatal(err)
		}
		if out, err := k.Output(); err != nil || !w.Verify(data, out).OK {
			t.Fatalf("%s: wrong result (%v)", dt, err)
		}
		os.Stdout.WriteString("UNIT " + string(dt) + " " + backend.ImplementationOf(k) + " " + backend.ComputeUnitOf(k) + "\n")
		k.Close()
	}
}
