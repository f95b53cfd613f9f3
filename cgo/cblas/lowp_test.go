//go:build cgo

package cblas_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cblas"
)

// operandRange is the values TestGemmLowPrecision draws for dt: integers
// over the whole range of the integer types, and small integers for bf16
// and f16, whose f32 sums of them are exact, so every element must match.
func operandRange(dt cblas.LowPrecision) (alo, ahi, blo, bhi int) {
	switch dt {
	case cblas.I8:
		return -128, 127, -128, 127
	case cblas.U8S8:
		return 0, 255, -128, 127
	}
	return -16, 16, -16, 16
}

// TestGemmLowPrecision runs every low-precision gemm each library has in
// every transpose on odd shapes, exactly against a float64 product, and
// checks that a library refuses what it lacks. MKL has bf16, i8 and u8s8
// (2018 and later); OpenBLAS has bf16 only when built with bfloat16 (the
// Debian build is not: nothing new is declared for it).
func TestGemmLowPrecision(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {64, 65, 127}}
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, dt := range cblas.LowPrecisions {
			if !l.HasGemm(dt) {
				if l.Name() == "mkl" && dt != cblas.F16 {
					t.Errorf("mkl lacks %s", dt)
				}
				_, err := l.PrepareGemmLowPrecision(dt, false, false, 2, 2, 2, cblas.JobOptions{})
				if !errors.Is(err, cblas.ErrUnsupported) {
					t.Errorf("%s without a routine: %v, want ErrUnsupported", dt, err)
				}
				if r := l.GemmRoutine(dt); r != "" {
					t.Errorf("%s: routine %q of an absent type", dt, r)
				}
				continue
			}
			t.Logf("%s by %s", dt, l.GemmRoutine(dt))
			alo, ahi, blo, bhi := operandRange(dt)
			for _, s := range shapes {
				m, n, k := s[0], s[1], s[2]
				a, b := ints(rng, m*k, alo, ahi), ints(rng, k*n, blo, bhi)
				for _, ta := range []bool{false, true} {
					for _, tb := range []bool{false, true} {
						j, err := l.PrepareGemmLowPrecision(dt, ta, tb, m, n, k, cblas.JobOptions{Copies: 2, Threads: 1})
						if err != nil {
							t.Fatalf("%s %v: %v", dt, s, err)
						}
						if !strings.Contains(j.String(), l.GemmRoutine(dt)) {
							t.Errorf("job %q does not name %s", j, l.GemmRoutine(dt))
						}
						got := runGemm(t, j, a, b)
						want := exactGemm(ta, tb, m, n, k, a, b)
						for i := range want {
							if got[i] != want[i] {
								t.Fatalf("%s %s ta=%v tb=%v %v: C[%d] = %v, want %v", l.Name(), dt, ta, tb, s, i, got[i], want[i])
							}
						}
						j.Close()
					}
				}
			}
		}
	})
}

// TestGemmLowPrecisionRefusesInexactInputs: an integer operand outside its
// type, or not an integer, is an error rather than a wrapped value.
func TestGemmLowPrecisionRefusesInexactInputs(t *testing.T) {
	l := openLib(t, "mkl")
	for _, tc := range []struct {
		dt   cblas.LowPrecision
		arg  int
		v    float64
		want string
	}{
		{cblas.I8, 0, 128, "[-128, 127]"},
		{cblas.I8, 1, -129, "[-128, 127]"},
		{cblas.U8S8, 0, -1, "[0, 255]"},
		{cblas.U8S8, 1, 200, "[-128, 127]"},
		{cblas.I8, 0, 0.5, "not an integer"},
	} {
		j, err := l.PrepareGemmLowPrecision(tc.dt, false, false, 1, 1, 2, cblas.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		err = j.SetInput(tc.arg, []float64{tc.v, 0})
		if !errors.Is(err, cblas.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s arg %d = %v: %v, want ErrInvalid naming %s", tc.dt, tc.arg, tc.v, err, tc.want)
		}
		j.Close()
	}
}

// TestMKLIntegerGemmWithoutVNNI caps MKL at AVX2 in a child process (MKL
// reads MKL_ENABLE_INSTRUCTIONS once): there cblas_gemm_s8u8s32 saturates,
// so i8 and u8s8 must run cblas_gemm_s16s16s32 and stay exact.
func TestMKLIntegerGemmWithoutVNNI(t *testing.T) {
	if os.Getenv("PEAKBENCH_MKL_AVX2_CHILD") != "" {
		l := openLib(t, "mkl")
		for _, dt := range []cblas.LowPrecision{cblas.I8, cblas.U8S8} {
			if r := l.GemmRoutine(dt); r != "cblas_gemm_s16s16s32" {
				t.Errorf("%s runs %q under MKL_ENABLE_INSTRUCTIONS=AVX2", dt, r)
			}
		}
		return
	}
	// On a non-Intel CPU MKL runs its generic path (libmkl_def.so), whose
	// s8u8s32 is exact and which a cap cannot lower: nothing to observe.
	if p := openLib(t, "mkl").Details()["processor"]; !strings.Contains(p, "AVX") {
		t.Skipf("MKL runs its generic path on this CPU (%q): no capped path to observe", p)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestMKLIntegerGemmWithoutVNNI|TestGemmLowPrecision)$", "-test.v")
	cmd.Env = append(os.Environ(), "PEAKBENCH_MKL_AVX2_CHILD=1", "MKL_ENABLE_INSTRUCTIONS=AVX2")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "i8 by cblas_gemm_s16s16s32") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func ints(rng *rand.Rand, n, lo, hi int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(lo + rng.IntN(hi-lo+1))
	}
	v[0] = float64(lo) // the extremes, where a wrong signedness or offset shows
	if n > 1 {
		v[n-1] = float64(hi)
	}
	return v
}

func runGemm(t *testing.T, j *cblas.Job, a, b []float64) []float64 {
	t.Helper()
	if err := j.SetInput(0, a); err != nil {
		t.Fatal(err)
	}
	if err := j.SetInput(1, b); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(3); err != nil {
		t.Fatal(err)
	}
	out, err := j.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// exactGemm is op(A)·op(B) row-major in float64, exact for these inputs.
func exactGemm(ta, tb bool, m, n, k int, a, b []float64) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				x, y := a[i*k+p], b[p*n+j]
				if ta {
					x = a[p*m+i]
				}
				if tb {
					y = b[j*k+p]
				}
				s += x * y
			}
			c[i*n+j] = s
		}
	}
	return c
}
