//go:build cgo

package onednn_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/onednn"
)

// gemmInputs returns A and B holding values exact in t's operand types:
// the integers' whole ranges (s8 −128…127, u8 0…255), or quarters in
// [−4, 4], whose products and sums of up to 2^16 terms are exact in f32,
// so that every type's result is compared exactly. Without VNNI
// (narrow), oneDNN's int8 kernels add pairs of u8×s8 products in
// saturating 16-bit lanes (VPMADDUBSW; s8 A is shifted to u8 by 128):
// there the integers stay within s8 −64…63 and u8 0…127, whose pairs fit.
func gemmInputs(rng *rand.Rand, t onednn.GEMMType, m, n, k int, narrow bool) (a, b []float64) {
	draw := func(n, lo, hi int, scale float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(lo+rng.IntN(hi-lo+1)) * scale
		}
		return v
	}
	s8lo, s8hi, u8hi := -128, 127, 255
	if narrow {
		s8lo, s8hi, u8hi = -64, 63, 127
	}
	switch t {
	case onednn.GEMMS8S8:
		return draw(m*k, s8lo, s8hi, 1), draw(k*n, s8lo, s8hi, 1)
	case onednn.GEMMU8S8:
		return draw(m*k, 0, u8hi, 1), draw(k*n, s8lo, s8hi, 1)
	}
	return draw(m*k, -16, 16, 0.25), draw(k*n, -16, 16, 0.25)
}

// hasVNNI reports whether oneDNN's effective ISA has VNNI (AMX machines
// have AVX512-VNNI too).
func hasVNNI(l *onednn.Library) bool {
	isa := l.EffectiveISA()
	return strings.Contains(isa, "vnni") || strings.Contains(isa, "bf16") || strings.Contains(isa, "amx")
}

// gemmRef is C = op(A)·op(B) in float64, A stored k×m when ta, B n×k when tb.
func gemmRef(a, b []float64, ta, tb bool, m, n, k int) []float64 {
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

func runGEMM(t *testing.T, l *onednn.Library, typ onednn.GEMMType, ta, tb bool, m, n, k int, opt onednn.JobOptions, a, b []float64) (out []float64, desc, impl string) {
	t.Helper()
	j, err := l.PrepareGEMM(typ, ta, tb, m, n, k, opt)
	if err != nil {
		t.Fatalf("%s %v%v %dx%dx%d: %v", typ, ta, tb, m, n, k, err)
	}
	defer j.Close()
	if err := j.SetInput(0, a); err != nil {
		t.Fatal(err)
	}
	if err := j.SetInput(1, b); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(4); err != nil {
		t.Fatalf("%s: %v", j, err)
	}
	got, err := j.Output()
	if err != nil {
		t.Fatal(err)
	}
	return got, j.String(), onednn.Implementation(j)
}

// TestGEMM runs every type the library has, every transpose, odd sizes,
// several copies and thread counts, and compares exactly.
func TestGEMM(t *testing.T) {
	l := open(t)
	rng := rand.New(rand.NewPCG(3, 4))
	t.Logf("effective ISA %q (VNNI: %v)", l.EffectiveISA(), hasVNNI(l))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 33, 65}, {64, 64, 64}, {31, 129, 47}}
	if testing.Short() {
		shapes = shapes[:3]
	}
	for typ := onednn.GEMMF32; typ <= onednn.GEMMU8S8; typ++ {
		if !l.HasGEMM(typ) {
			t.Logf("%s: no matmul implementation here", typ)
			continue
		}
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				threads := 1 + rng.IntN(2)
				a, b := gemmInputs(rng, typ, m, n, k, !hasVNNI(l))
				got, desc, impl := runGEMM(t, l, typ, tr[0], tr[1], m, n, k, onednn.JobOptions{Copies: 3, Threads: threads}, a, b)
				want := gemmRef(a, b, tr[0], tr[1], m, n, k)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s (threads %d): C[%d] = %v; want %v", desc, threads, i, got[i], want[i])
					}
				}
				if impl == "" || impl == "unknown" {
					t.Errorf("%s: no implementation named", desc)
				}
			}
		}
	}
}

// TestGEMMConversion: SetInput rounds floats to nearest even, as
// workload.DType.Round does, and refuses an integer operand outside its
// type, or not an integer, rather than wrapping or clamping it.
func TestGEMMConversion(t *testing.T) {
	l := open(t)
	ones := []float64{1, 1, 1, 1, 1, 1}
	for _, c := range []struct {
		typ  onednn.GEMMType
		a    []float64
		want float64
	}{
		{onednn.GEMMBF16, []float64{1 + 0x1p-8, 1 + 3*0x1p-8, 0.5, 0, 0, 0}, 1 + 1 + 4*0x1p-8 + 0.5},
		{onednn.GEMMF16, []float64{1 + 0x1p-11, 1 + 3*0x1p-11, 0.5, 0, 0, 0}, 1 + 1 + 4*0x1p-11 + 0.5},
	} {
		if !l.HasGEMM(c.typ) {
			continue
		}
		got, desc, _ := runGEMM(t, l, c.typ, false, false, 1, 1, 6, onednn.JobOptions{Threads: 1}, c.a, ones)
		if got[0] != c.want {
			t.Errorf("%s: A = %v: C = %v; want %v", desc, c.a, got[0], c.want)
		}
	}
	for _, c := range []struct {
		typ  onednn.GEMMType
		arg  int
		v    float64
		want string
	}{
		{onednn.GEMMS8S8, 0, 128, "[-128, 127]"},
		{onednn.GEMMS8S8, 1, -129, "[-128, 127]"},
		{onednn.GEMMU8S8, 0, -1, "[0, 255]"},
		{onednn.GEMMU8S8, 0, 256, "[0, 255]"},
		{onednn.GEMMU8S8, 1, 200, "[-128, 127]"},
		{onednn.GEMMS8S8, 0, 2.5, "not an integer"},
	} {
		if !l.HasGEMM(c.typ) {
			continue
		}
		j, err := l.PrepareGEMM(c.typ, false, false, 1, 1, 6, onednn.JobOptions{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		in := []float64{0, 0, 0, 0, 0, c.v}
		if err := j.SetInput(c.arg, in); !errors.Is(err, onednn.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s arg %d = %v: %v; want ErrInvalid naming %s", c.typ, c.arg, c.v, err, c.want)
		}
		j.Close()
	}
}

// TestGEMMRefused: a type without an implementation, and bad arguments.
func TestGEMMRefused(t *testing.T) {
	l := open(t)
	for typ := onednn.GEMMF32; typ <= onednn.GEMMU8S8; typ++ {
		j, err := l.PrepareGEMM(typ, false, false, 4, 4, 4, onednn.JobOptions{})
		if l.HasGEMM(typ) != (err == nil) || (err != nil && (!errors.Is(err, onednn.ErrUnsupported) || !strings.Contains(err.Error(), "no matmul implementation"))) {
			t.Errorf("%s: HasGEMM %v; PrepareGEMM: %v", typ, l.HasGEMM(typ), err)
		}
		if j != nil {
			j.Close()
		}
	}
	if !l.HasGEMM(onednn.GEMMF32) {
		t.Error("no f32 matmul")
	}
	for _, bad := range []struct {
		typ     onednn.GEMMType
		m, n, k int
		opt     onednn.JobOptions
	}{
		{onednn.GEMMF32, 0, 4, 4, onednn.JobOptions{}},
		{onednn.GEMMF32, 4, 4, -1, onednn.JobOptions{}},
		{onednn.GEMMU8S8 + 1, 4, 4, 4, onednn.JobOptions{}},
		{onednn.GEMMF32, 4, 4, 4, onednn.JobOptions{Threads: 5000}},
	} {
		if j, err := l.PrepareGEMM(bad.typ, false, false, bad.m, bad.n, bad.k, bad.opt); err == nil {
			j.Close()
			t.Errorf("%+v: no error", bad)
		}
	}
	if l.HasGEMM(onednn.GEMMU8S8+1) || fmt.Sprint(onednn.GEMMType(9)) != "GEMMType(9)" {
		t.Error("an unknown type is not refused")
	}
}
