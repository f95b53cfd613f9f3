package cblas_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/backend"
	"github.com/peakbench/peakbench/bench/backend/backendtest"
	"github.com/peakbench/peakbench/bench/backend/cblas"
	"github.com/peakbench/peakbench/bench/workload"
	cgocblas "github.com/peakbench/peakbench/cgo/cblas"
)

var lowPrecision = map[workload.DType]cgocblas.LowPrecision{
	workload.BF16: cgocblas.BF16, workload.F16: cgocblas.F16, workload.I8: cgocblas.I8, workload.U8S8: cgocblas.U8S8,
}

// TestLowPrecisionDeclared: each library declares gemm in exactly the
// low-precision types whose routine its file exports, and no other op in
// them; MKL has bf16, i8 and u8s8. A library without the routines (BLIS,
// the reference BLAS, Debian's OpenBLAS) declares nothing new.
func TestLowPrecisionDeclared(t *testing.T) {
	for _, name := range cgocblas.Names() {
		t.Run(name, func(t *testing.T) {
			b := backendtest.Open(t, name).(*cblas.Backend)
			decl := b.Declared()
			for _, dt := range workload.GEMMDTypes {
				lp, ok := lowPrecision[dt]
				want := ok && b.Library().HasGemm(lp)
				if got := decl.Has(workload.GEMM, dt); got != want {
					t.Errorf("gemm %s declared %v, the library has it: %v", dt, got, want)
				}
				if name == "mkl" && (dt == workload.BF16 || dt == workload.I8 || dt == workload.U8S8) && !want {
					t.Errorf("mkl lacks gemm %s", dt)
				}
				for op := range decl {
					if op != workload.GEMM && decl.Has(op, dt) {
						t.Errorf("declares %s %s", op, dt)
					}
				}
			}
		})
	}
}

// TestLowPrecisionKernel prepares MKL's low-precision gemms on an odd
// transposed shape: each verifies, names its routine (and, for i8, the
// offset), and its unit is the one its code path maps to.
func TestLowPrecisionKernel(t *testing.T) {
	b := backendtest.Open(t, "mkl").(*cblas.Backend)
	for _, dt := range []workload.DType{workload.BF16, workload.I8, workload.U8S8} {
		w := workload.Workload{Op: workload.GEMM, DType: dt, Shape: workload.Shape{M: 33, N: 17, K: 65, TransA: true, TransB: true}}
		d := w.NewData(5)
		k, err := b.Prepare(w, d, backend.Config{Threads: 1, Copies: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Run(3); err != nil {
			t.Fatal(err)
		}
		out, err := k.Output()
		if err != nil {
			t.Fatal(err)
		}
		if c := w.Verify(d, out); !c.OK {
			t.Errorf("%s: %s", dt, c.Detail)
		}
		impl, unit := backend.ImplementationOf(k), backend.ComputeUnitOf(k)
		routine := b.Library().GemmRoutine(lowPrecision[dt])
		t.Logf("%s: %s; unit %q", dt, impl, unit)
		if !strings.HasPrefix(impl, routine) {
			t.Errorf("%s: implementation %q does not start with %s", dt, impl, routine)
		}
		if dt == workload.I8 && routine == "cblas_gemm_s8u8s32" && !strings.Contains(impl, "oa=-128") {
			t.Errorf("i8: implementation %q does not say its offset", impl)
		}
		if want := os.Getenv("PEAKBENCH_WANT_UNIT_" + strings.ToUpper(string(dt))); want != "" && unit != strings.TrimPrefix(want, "none") {
			t.Errorf("%s: unit %q, want %q", dt, unit, strings.TrimPrefix(want, "none"))
		}
		k.Close()
	}
}

// TestMKLUnitsCapped runs TestLowPrecisionKernel in child processes with
// MKL capped (MKL_ENABLE_INSTRUCTIONS, read once per process) below what
// this CPU runs, where the CPU has the capped level and MKL takes a path by
// its features: the fallbacks' units and routines, end to end. "none"
// stands for no unit.
func TestMKLUnitsCapped(t *testing.T) {
	if os.Getenv("PEAKBENCH_WANT_UNIT_BF16") != "" {
		t.Skip("in a child")
	}
	b := backendtest.Open(t, "mkl").(*cblas.Backend)
	// MKL picks its path by CPU vendor as well as features: on a non-Intel
	// CPU it runs its generic path (libmkl_def.so), which a cap cannot
	// lower, so there is no fallback to observe.
	if p := b.Library().Details()["processor"]; !strings.Contains(p, "AVX") {
		t.Skipf("MKL runs its generic path on this CPU (%q): no capped path to observe", p)
	}
	for _, tc := range []struct {
		isa, flag      string
		bf16, i8, u8s8 string
	}{
		{"AVX2", "avx2", "fma", "none", "none"},
		{"AVX512_E1", "avx512_vnni", "fma", "avx512-vnni", "avx512-vnni"},
	} {
		if !cpuHas(tc.flag) {
			t.Logf("%s: the CPU lacks %s", tc.isa, tc.flag)
			continue
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestLowPrecisionKernel$", "-test.v")
		cmd.Env = append(os.Environ(), "MKL_ENABLE_INSTRUCTIONS="+tc.isa,
			"PEAKBENCH_WANT_UNIT_BF16="+tc.bf16, "PEAKBENCH_WANT_UNIT_I8="+tc.i8, "PEAKBENCH_WANT_UNIT_U8S8="+tc.u8s8)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestLowPrecisionKernel") {
			t.Errorf("MKL_ENABLE_INSTRUCTIONS=%s: %v\n%s", tc.isa, err, out)
		}
	}
}

// cpuHas reports whether /proc/cpuinfo lists flag.
func cpuHas(flag string) bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "flags") {
			return strings.Contains(line+" ", " "+flag+" ")
		}
	}
	return false
}
