package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// lowpPath is a (level, features) pair that selects one kernel.
type lowpPath struct {
	lvl   isa.Level
	feats isa.Feature
}

// lowpPaths lists the pairs that reach every kernel this CPU runs, for t:
// each level with no features, and with each feature alone.
func lowpPaths() []lowpPath {
	var ps []lowpPath
	for _, l := range isa.Levels() {
		ps = append(ps, lowpPath{l, 0})
		for _, f := range []isa.Feature{isa.AVX512BF16, isa.AVX512VNNI, isa.AVXVNNI, isa.AMXBF16, isa.AMXInt8} {
			if f.For(l) != 0 {
				ps = append(ps, lowpPath{l, f})
			}
		}
	}
	return ps
}

// lowpKernels lists every kernel of t this CPU runs: the candidates of
// every path.
func lowpKernels(t LowType) []lowpChoice {
	var ks []lowpChoice
	seen := map[string]bool{}
	for _, p := range lowpPaths() {
		for _, c := range lowpCandidates(t, p.lvl, p.feats.For(p.lvl)) {
			if !seen[c.name] {
				seen[c.name] = true
				ks = append(ks, c)
			}
		}
	}
	return ks
}

func TestLowpKernelChoice(t *testing.T) {
	units := map[string]string{
		"bf16gemm14x32AVX512BF16": unitAVX512BF16, "u8s8gemm14x32AVX512VNNI": unitAVX512VNNI,
		"u8s8gemm6x16AVXVNNI": unitAVXVNNI, "s16gemm6x16AVX2": unitAVX2Int8,
		"sgemm14x32AVX512": unitFMA, "sgemm6x16AVX2": unitFMA, "sgemm3x3Generic": unitFMA,
		"i32gemm3x3Generic": "", "bf16gemm32x32AMX": unitAMXBF16, "u8s8gemm32x32AMX": unitAMXInt8, "s8s8gemm32x32AMX": unitAMXInt8,
	}
	for _, typ := range []LowType{BF16, F16, I8, U8S8} {
		for _, p := range lowpPaths() {
			name, unit := LowpKernel(typ, p.lvl, p.feats)
			t.Logf("%v at %v with %v: %s on %q", typ, p.lvl, p.feats, name, unit)
			if w, ok := units[name]; !ok || w != unit {
				t.Errorf("%v at %v with %v: %s on %q", typ, p.lvl, p.feats, name, unit)
			}
			cands := lowpCandidates(typ, p.lvl, p.feats.For(p.lvl))
			if !slices.ContainsFunc(cands, func(c lowpChoice) bool { return c.name == name }) {
				t.Errorf("%v at %v with %v: %s is none of the candidates", typ, p.lvl, p.feats, name)
			}
			if p.lvl == isa.Generic && !strings.Contains(name, "Generic") {
				t.Errorf("%v at generic: %s", typ, name)
			}
		}
		if cs := lowpCandidates(typ, isa.Best, isa.Features); len(cs) > 1 {
			t.Logf("%v: candidates %v, rates (k·tile per ns) %.1f", typ, names(cs), lowpRates(cs))
		}
	}
}

func names(cs []lowpChoice) []string {
	var s []string
	for _, c := range cs {
		s = append(s, c.name)
	}
	return s
}

// lowpCase is one product to check.
type lowpCase struct {
	typ            LowType
	kern           lowpChoice
	transA, transB bool
	m, n, k        int
	pad            int // extra leading dimension of each operand
	threads        int
}

func (c lowpCase) String() string {
	return fmt.Sprintf("%v %s tA=%v tB=%v m=%d n=%d k=%d pad=%d threads=%d", c.typ, c.kern.name, c.transA, c.transB, c.m, c.n, c.k, c.pad, c.threads)
}

// runLowpCase computes the case and checks every element of C: exactly
// for the integer types, within the f32 accumulation bound for bf16 and
// f16 (the products are exact, each of k sums rounds once); C's padding
// must stay as it was, and C's old contents (NaN, or a marker) must not
// leak into the result.
func runLowpCase(t *testing.T, tc lowpCase, rnd *rand.Rand) {
	t.Helper()
	m, n, k := tc.m, tc.n, tc.k
	rowsA, colsA := m, k
	if tc.transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tc.transB {
		rowsB, colsB = n, k
	}
	lda, ldb, ldc := max(1, colsA)+tc.pad, max(1, colsB)+tc.pad, max(1, n)+tc.pad
	av, bv := make([]float64, rowsA*lda), make([]float64, rowsB*ldb)
	fill := func(v []float64, lo, hi int) {
		for i := range v {
			switch tc.typ {
			case BF16:
				v[i] = float64(BF16ToF32(BF16Bits(float32(2*rnd.Float64() - 1))))
			case F16:
				v[i] = float64(F16ToF32(F16Bits(float32(2*rnd.Float64() - 1))))
			default:
				v[i] = float64(lo + rnd.IntN(hi-lo+1))
			}
		}
	}
	loA := -128
	if tc.typ == U8S8 {
		loA = 0
	}
	fill(av, loA, loA+255)
	fill(bv, -128, 127)
	opA := func(i, p int) float64 {
		if tc.transA {
			return av[p*lda+i]
		}
		return av[i*lda+p]
	}
	opB := func(p, j int) float64 {
		if tc.transB {
			return bv[j*ldb+p]
		}
		return bv[p*ldb+j]
	}
	const marker = 0x5eed
	got := make([]float64, m*ldc)
	switch tc.typ {
	case BF16, F16:
		conv := BF16Bits
		if tc.typ == F16 {
			conv = F16Bits
		}
		a16, b16 := make([]uint16, len(av)), make([]uint16, len(bv))
		for i, v := range av {
			a16[i] = conv(float32(v))
		}
		for i, v := range bv {
			b16[i] = conv(float32(v))
		}
		c := make([]float32, m*ldc)
		for i := range c {
			c[i] = float32(math.NaN())
		}
		gemmLowp(tc.kern, tc.transA, tc.transB, m, n, k, a16, lda, b16, ldb, c, ldc, tc.threads)
		for i, v := range c {
			got[i] = float64(v)
		}
	default:
		b8 := make([]int8, len(bv))
		for i, v := range bv {
			b8[i] = int8(v)
		}
		c := make([]int32, m*ldc)
		for i := range c {
			c[i] = marker
		}
		if tc.typ == I8 {
			a8 := make([]int8, len(av))
			for i, v := range av {
				a8[i] = int8(v)
			}
			gemmLowp(tc.kern, tc.transA, tc.transB, m, n, k, a8, lda, b8, ldb, c, ldc, tc.threads)
		} else {
			a8 := make([]uint8, len(av))
			for i, v := range av {
				a8[i] = uint8(v)
			}
			gemmLowp(tc.kern, tc.transA, tc.transB, m, n, k, a8, lda, b8, ldb, c, ldc, tc.threads)
		}
		for i, v := range c {
			got[i] = float64(v)
		}
	}
	integer := tc.typ == I8 || tc.typ == U8S8
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			g := got[i*ldc+j]
			if j >= n {
				if integer && g != marker || !integer && !math.IsNaN(g) {
					t.Fatalf("%v: padding c[%d][%d] changed to %v", tc, i, j, g)
				}
				continue
			}
			var want, mag float64
			for p := 0; p < k; p++ {
				want += opA(i, p) * opB(p, j)
				mag += math.Abs(opA(i, p) * opB(p, j))
			}
			tol := 0.0
			if !integer {
				tol = float64(k+1)*0x1p-24*mag + 1e-300
			}
			if math.IsNaN(g) || math.Abs(g-want) > tol {
				t.Fatalf("%v: c[%d][%d] = %v, want %v (tol %g)", tc, i, j, g, want, tol)
			}
		}
	}
}

// TestLowpShapes runs every kernel this CPU runs on odd shapes,
// all transposes, padded leading dimensions and several thread counts,
// with the default blocks and with tiny ones (every loop of the nest takes
// several trips and leaves a remainder).
func TestLowpShapes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	dims := []int{1, 2, 3, 5, 7, 15, 17, 33, 70}
	if short() {
		dims = []int{1, 3, 7, 17, 33}
	}
	for _, typ := range []LowType{BF16, F16, I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			i := 0
			for _, blocks := range [][3]int{{0, 0, 0}, {12, 8, 10}} {
				withBlocks(blocks[0], blocks[1], blocks[2], 1, func() {
					for _, m := range dims {
						for _, n := range dims {
							for _, k := range dims {
								if i++; (m+n+k)%3 != i%3 { // a third of the shapes, rotating
									continue
								}
								for tr := 0; tr < 4; tr++ {
									runLowpCase(t, lowpCase{typ: typ, kern: kern, transA: tr&1 != 0, transB: tr&2 != 0,
										m: m, n: n, k: k, pad: (i + tr) % 3, threads: 1 + (i+tr)%3}, rnd)
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestLowpDeep takes k past the default depth of a slice (several pc
// phases, C added to), n past the default width of a block and the 8-bit extremes, where a saturating or
// biased kernel would go wrong: every product −128·−128 or 255·−128.
func TestLowpDeep(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []LowType{BF16, F16, I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			runLowpCase(t, lowpCase{typ: typ, kern: kern, m: 29, n: 67, k: 2*2048 + 13, threads: 2}, rnd)
			// n past the default width of a column block (nc), whole
			// panels or not.
			runLowpCase(t, lowpCase{typ: typ, kern: kern, m: 3, n: 8192 + 45, k: 9, threads: 2}, rnd)
		}
	}
	for _, typ := range []LowType{I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			const m, n, k = 15, 33, 4099
			a8, au, b8 := make([]int8, m*k), make([]uint8, m*k), make([]int8, k*n)
			for i := range a8 {
				a8[i], au[i] = -128, 255
			}
			for i := range b8 {
				b8[i] = -128
			}
			c := make([]int32, m*n)
			want := int32(k * 128 * 128)
			if typ == I8 {
				gemmLowp(kern, false, false, m, n, k, a8, k, b8, n, c, n, 2)
			} else {
				gemmLowp(kern, false, false, m, n, k, au, k, b8, n, c, n, 2)
				want = -k * 255 * 128
			}
			for i, v := range c {
				if v != want {
					t.Fatalf("%v %s: c[%d] = %d, want %d", typ, kern.name, i, v, want)
				}
			}
		}
	}
}

// TestChooseLowpOnce checks that a choice is made once per key and that a
// lone candidate is taken without measuring (its kernel would panic).
func TestChooseLowpOnce(t *testing.T) {
	calls := 0
	lone := lowpChoice{name: "lone", s32: &lowpKernel[int32]{name: "lone", fn: func(int, []uint32, []uint32, []int32, int, []int32, bool) {
		panic("measured a lone candidate")
	}}}
	key := lowpKey{t: U8S8, lvl: isa.Level(200), feats: 0} // a key no caller uses
	for range 3 {
		got := chooseLowp(key, func() []lowpChoice { calls++; return []lowpChoice{lone} })
		if got.name != "lone" {
			t.Fatalf("chose %q", got.name)
		}
	}
	if calls != 1 {
		t.Errorf("candidates listed %d times, want once", calls)
	}
}

// TestLowpJoined has every thread join every row block with panels left,
// so that several threads compute one row block and wait on each other's
// packing of B: the results must be those of one thread.
func TestLowpJoined(t *testing.T) {
	defer func(f int64) { joinFactor = f }(joinFactor)
	joinFactor = -1
	rnd := rand.New(rand.NewPCG(9, 10))
	for _, typ := range []LowType{BF16, F16, I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			for _, blocks := range [][3]int{{0, 0, 0}, {12, 8, 10}} {
				withBlocks(blocks[0], blocks[1], blocks[2], 1, func() {
					for _, s := range [][3]int{{70, 67, 33}, {129, 96, 65}, {5, 200, 17}} {
						for th := 2; th <= 3; th++ {
							runLowpCase(t, lowpCase{typ: typ, kern: kern, transB: th == 3,
								m: s[0], n: s[1], k: s[2], pad: 1, threads: th}, rnd)
						}
					}
				})
			}
		}
	}
}

// TestWordCache: a buffer handed back is handed out again (the smallest
// that holds the words asked for), aligned, and the cache keeps at most
// maxCachedWords buffers, the larger ones.
func TestWordCache(t *testing.T) {
	wordCache.Lock()
	saved := wordCache.free
	wordCache.free = nil
	wordCache.Unlock()
	defer func() {
		wordCache.Lock()
		wordCache.free = saved
		wordCache.Unlock()
	}()
	small, large := getWords(100), getWords(5000)
	putWords(large)
	putWords(small)
	if p := getWords(90); p != small || len(*p) != 90 {
		t.Errorf("getWords(90) = %p (len %d), want the 100-word buffer %p", p, len(*p), small)
	}
	if p := getWords(4000); p != large || len(*p) != 4000 {
		t.Errorf("getWords(4000) = %p (len %d), want the 5000-word buffer %p", p, len(*p), large)
	}
	if p := getWords(4000); p == large || p == small {
		t.Error("a buffer handed out twice")
	}
	var bufs []*[]uint32
	for i := range maxCachedWords + 3 {
		p := getWords(64 * (i + 1))
		if a := uintptr(unsafe.Pointer(&(*p)[0])) % 64; a != 0 {
			t.Errorf("getWords(%d) is %d bytes past a 64-byte boundary", len(*p), a)
		}
		bufs = append(bufs, p)
	}
	for _, p := range bufs {
		putWords(p)
	}
	wordCache.Lock()
	n, least := len(wordCache.free), cap(*wordCache.free[0])
	for _, p := range wordCache.free {
		least = min(least, cap(*p))
	}
	wordCache.Unlock()
	if n != maxCachedWords || least < 64*4 {
		t.Errorf("cache holds %d buffers, the least of %d words; want %d, the larger ones", n, least, maxCachedWords)
	}
}

// TestLowpStaleBuffers runs the products with every cached packing
// buffer full of garbage: nothing a previous call left (A and B blocks,
// the i8 kernels' column sums) may reach a result.
func TestLowpStaleBuffers(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, typ := range []LowType{BF16, F16, I8, U8S8} {
		for _, kern := range lowpKernels(typ) {
			for _, th := range []int{1, 2} {
				wordCache.Lock()
				for _, p := range wordCache.free {
					b := (*p)[:cap(*p)]
					for i := range b {
						b[i] = 0xa5a5a5a5
					}
				}
				wordCache.Unlock()
				runLowpCase(t, lowpCase{typ: typ, kern: kern, m: 37, n: 70, k: 99, threads: th}, rnd)
			}
		}
	}
}
