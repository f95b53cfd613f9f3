//go:build !purego

package peak

import (
	"math"
	"testing"
)

// The assembly against its Go twins, directly, whenever this CPU runs it
// (whether or not Measure would pick it here).

func TestFMAAsm(t *testing.T) {
	type kernel struct {
		name  string
		ok    bool
		lanes int
		f32   func(acc []float32, m, c float32, rounds int)
		f64   func(acc []float64, m, c float64, rounds int)
	}
	ks := []kernel{
		{name: "fmaF32AVX2", ok: haveFMA3, lanes: 8 * fmaAccs, f32: func(a []float32, m, c float32, r int) { fmaF32AVX2((*[fmaAccs * 8]float32)(a), m, c, r) }},
		{name: "fmaF64AVX2", ok: haveFMA3, lanes: 4 * fmaAccs, f64: func(a []float64, m, c float64, r int) { fmaF64AVX2((*[fmaAccs * 4]float64)(a), m, c, r) }},
		{name: "fmaF32AVX512", ok: haveAVX512, lanes: 16 * fmaAccs, f32: func(a []float32, m, c float32, r int) { fmaF32AVX512((*[fmaAccs * 16]float32)(a), m, c, r) }},
		{name: "fmaF64AVX512", ok: haveAVX512, lanes: 8 * fmaAccs, f64: func(a []float64, m, c float64, r int) { fmaF64AVX512((*[fmaAccs * 8]float64)(a), m, c, r) }},
	}
	for _, k := range ks {
		if !k.ok {
			t.Logf("%s: not supported by this CPU", k.name)
			continue
		}
		for _, rounds := range []int{0, 1, 2, 3, 50} {
			for _, mc := range [][2]float64{{fmaM, fmaC}, {-0.7, 0.3}, {1.0009765625, -1e-3}} {
				if k.f64 != nil {
					buf, acc := guarded(k.lanes)
					for i := range acc {
						acc[i] = math.Sqrt(float64(i+2)) - 1
					}
					want := append([]float64(nil), acc...)
					fmaF64Generic(want, mc[0], mc[1], rounds)
					k.f64(acc, mc[0], mc[1], rounds)
					checkGuards(t, buf, k.lanes)
					for i := range acc {
						if math.Float64bits(acc[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s rounds=%d m,c=%v: acc[%d] = %v, want %v", k.name, rounds, mc, i, acc[i], want[i])
						}
					}
					continue
				}
				buf := make([]float32, k.lanes+2*guard)
				nan := math.Float32frombits(0x7fc0beef)
				for i := range buf {
					buf[i] = nan
				}
				acc := buf[guard : guard+k.lanes]
				for i := range acc {
					acc[i] = float32(math.Sqrt(float64(i+2)) - 1)
				}
				want := append([]float32(nil), acc...)
				fmaF32Generic(want, float32(mc[0]), float32(mc[1]), rounds)
				k.f32(acc, float32(mc[0]), float32(mc[1]), rounds)
				for i := range buf {
					if (i < guard || i >= guard+k.lanes) && math.Float32bits(buf[i]) != 0x7fc0beef {
						t.Fatalf("%s: guard %d overwritten", k.name, i-guard)
					}
				}
				for i := range acc {
					// fma32 rounds twice; allow a couple of ulps.
					if d := math.Abs(float64(acc[i] - want[i])); d > 2*ulp32(want[i]) {
						t.Fatalf("%s rounds=%d m,c=%v: acc[%d] = %v, want %v", k.name, rounds, mc, i, acc[i], want[i])
					}
				}
			}
		}
	}
}

func ulp32(x float32) float64 {
	return float64(math.Nextafter32(float32(math.Abs(float64(x))), float32(math.Inf(1))) - float32(math.Abs(float64(x))))
}

func TestTriadAsm(t *testing.T) {
	for _, k := range []struct {
		name string
		ok   bool
		step int
		fn   func(a, b, c *float64, n, passes int, s float64)
	}{
		{"triadF64AVX", haveFMA3, 16, triadF64AVX},
		{"triadF64AVX512", haveAVX512, 32, triadF64AVX512},
		{"triadPFF64AVX", haveFMA3, 16, func(a, b, c *float64, n, passes int, s float64) { triadPFF64AVX(a, b, c, n, passes, streamAhead, s) }},
		{"triadPFF64AVX512", haveAVX512, 32, func(a, b, c *float64, n, passes int, s float64) { triadPFF64AVX512(a, b, c, n, passes, 64, s) }},
	} {
		if !k.ok {
			t.Logf("%s: not supported by this CPU", k.name)
			continue
		}
		for n := k.step; n <= 8*k.step; n += k.step {
			for _, passes := range []int{0, 1, 2} {
				b, c := triadInputs(n, 1)
				buf, a := guarded(n)
				want := make([]float64, n)
				copy(want, a) // passes=0 leaves a alone
				if passes > 0 {
					triadF64Generic(want, b, c, 2.5)
				}
				k.fn(&a[0], &b[0], &c[0], n, passes, 2.5)
				checkGuards(t, buf, n)
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s n=%d passes=%d: a[%d] = %v, want %v", k.name, n, passes, i, a[i], want[i])
					}
				}
			}
		}
	}
}

func TestUpdateAsm(t *testing.T) {
	for _, k := range []struct {
		name string
		ok   bool
		step int
		fn   func(a, b *float64, n, passes int, s float64)
	}{
		{"updateF64AVX", haveFMA3, 16, updateF64AVX},
		{"updateF64AVX512", haveAVX512, 32, updateF64AVX512},
		{"updatePFF64AVX", haveFMA3, 16, func(a, b *float64, n, passes int, s float64) { updatePFF64AVX(a, b, n, passes, 64, s) }},
		{"updatePFF64AVX512", haveAVX512, 32, func(a, b *float64, n, passes int, s float64) { updatePFF64AVX512(a, b, n, passes, streamAhead, s) }},
	} {
		if !k.ok {
			t.Logf("%s: not supported by this CPU", k.name)
			continue
		}
		for n := k.step; n <= 8*k.step; n += k.step {
			for _, passes := range []int{0, 1, 2} {
				b, c := triadInputs(n, 1)
				buf, a := guarded(n)
				copy(a, c)
				want := append([]float64(nil), a...)
				for range passes {
					updateF64Generic(want, b, 2.5)
				}
				k.fn(&a[0], &b[0], n, passes, 2.5)
				checkGuards(t, buf, n)
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s n=%d passes=%d: a[%d] = %v, want %v", k.name, n, passes, i, a[i], want[i])
					}
				}
			}
		}
	}
}

func TestCopyReadAsm(t *testing.T) {
	for _, k := range []struct {
		name       string
		ok         bool
		copyStep   int
		readStep   int
		copyKernel func(a, b *float64, n, passes int)
		readKernel func(b *float64, n, passes int) float64
	}{
		{"AVX", haveAVX, 16, 32, copyF64AVX, readF64AVX},
		{"AVX512", haveAVX512, 32, 128, copyF64AVX512, readF64AVX512},
		{"PFAVX", haveAVX, 16, 32,
			func(a, b *float64, n, passes int) { copyPFF64AVX(a, b, n, passes, streamAhead) },
			func(b *float64, n, passes int) float64 { return readPFF64AVX(b, n, passes, 64) }},
		{"PFAVX512", haveAVX512, 32, 128,
			func(a, b *float64, n, passes int) { copyPFF64AVX512(a, b, n, passes, 64) },
			func(b *float64, n, passes int) float64 { return readPFF64AVX512(b, n, passes, streamAhead) }},
		{"StreamsAVX", haveAVX, 16, 64, copyF64AVX, readStreamsF64AVX},
		{"StreamsAVX512", haveAVX512, 32, 128, copyF64AVX512, readStreamsF64AVX512},
	} {
		if !k.ok {
			t.Logf("%s: not supported by this CPU", k.name)
			continue
		}
		for n := k.copyStep; n <= 8*k.copyStep; n += k.copyStep {
			for _, passes := range []int{0, 1, 2} {
				b, _ := triadInputs(n, 1)
				buf, a := guarded(n)
				want := append([]float64(nil), a...) // passes=0 leaves a alone
				if passes > 0 {
					copy(want, b)
				}
				k.copyKernel(&a[0], &b[0], n, passes)
				checkGuards(t, buf, n)
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(want[i]) {
						t.Fatalf("copyF64%s n=%d passes=%d: a[%d] = %v, want %v", k.name, n, passes, i, a[i], want[i])
					}
				}
			}
		}
		for n := k.readStep; n <= 8*k.readStep; n += k.readStep {
			b := make([]float64, n)
			var s float64
			for i := range b {
				b[i] = float64(i%5) - 1.5 // exact in any order
				s += b[i]
			}
			for _, passes := range []int{0, 1, 3} {
				if got, want := k.readKernel(&b[0], n, passes), float64(passes)*s; got != want {
					t.Fatalf("readF64%s n=%d passes=%d = %v, want %v", k.name, n, passes, got, want)
				}
			}
		}
	}
}

func TestAddChainAsm(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		x, step := uint64(7), uint64(0x9e3779b97f4a7c15)
		if got, want := addChainAMD64(n, x, step), x+uint64(100*n)*step; got != want {
			t.Errorf("addChainAMD64(%d) = %#x, want %#x", n, got, want)
		}
	}
}
