package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peakbench/peakbench/gobackend/isa"
)

// randomCSR makes a rows×cols matrix whose row i holds lens(i) entries
// (at most cols), values small integers so every sum is exact in float32.
func randomCSR[T Float](t *testing.T, rng *rand.Rand, rows, cols int, lens func(i int) int) *CSR[T] {
	t.Helper()
	rowPtr := []int32{0}
	var colIdx []int32
	var val []T
	for i := range rows {
		n := min(lens(i), cols)
		picked := map[int32]bool{}
		for len(picked) < n {
			picked[int32(rng.IntN(cols))] = true
		}
		row := make([]int32, 0, n)
		for c := range picked {
			row = append(row, c)
		}
		slices.Sort(row)
		for _, c := range row {
			colIdx = append(colIdx, c)
			val = append(val, T(rng.IntN(17)-8))
		}
		rowPtr = append(rowPtr, int32(len(colIdx)))
	}
	a, err := NewCSR(rows, cols, rowPtr, colIdx, val)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// bandCSR is the n×n band of entries with |i−j| ≤ bw, values small integers.
func bandCSR[T Float](t *testing.T, n, bw int) *CSR[T] {
	t.Helper()
	rowPtr := []int32{0}
	var colIdx []int32
	var val []T
	for i := range n {
		for j := max(i-bw, 0); j <= min(i+bw, n-1); j++ {
			colIdx = append(colIdx, int32(j))
			val = append(val, T((i+2*j)%9-4))
		}
		rowPtr = append(rowPtr, int32(len(colIdx)))
	}
	a, err := NewCSR(n, n, rowPtr, colIdx, val)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// stencilCSR is the 5-point Laplacian of a g×g grid: rows of up to five
// entries on diagonals 1 and g apart, the shape SELL runs whole from
// run's columns.
func stencilCSR[T Float](t *testing.T, g int) *CSR[T] {
	t.Helper()
	n := g * g
	rowPtr := []int32{0}
	var colIdx []int32
	var val []T
	for i := range n {
		for _, j := range []int{i - g, i - 1, i, i + 1, i + g} {
			if j < 0 || j >= n || (j == i-1 && i%g == 0) || (j == i+1 && j%g == 0) {
				continue
			}
			colIdx = append(colIdx, int32(j))
			val = append(val, T((i+3*j)%7-3))
		}
		rowPtr = append(rowPtr, int32(len(colIdx)))
	}
	a, err := NewCSR(n, n, rowPtr, colIdx, val)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func levels() []isa.Level {
	out := []isa.Level{isa.Generic}
	for _, l := range []isa.Level{isa.AVX2, isa.AVX512} {
		if l <= isa.Best {
			out = append(out, l)
		}
	}
	return out
}

// guarded returns n elements with NaN guards on either side, which a
// kernel writing outside its range would leave in the output's checks.
func guarded[T Float](n int) (inner, whole []T) {
	whole = make([]T, n+16)
	for i := range whole {
		whole[i] = T(math.NaN())
	}
	return whole[8 : 8+n], whole
}

func testMulVec[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []struct {
		name       string
		rows, cols int
		lens       func(i int) int
	}{
		{"every length 0..70", 71, 90, func(i int) int { return i }},
		{"empty rows", 50, 20, func(i int) int { return (i % 3) * 5 }},
		{"one column", 40, 1, func(int) int { return 1 }},
		{"long rows", 9, 5000, func(i int) int { return 1000 + 37*i }},
		{"many rows, split between threads", 20000, 3000, func(i int) int { return rng.IntN(8) * rng.IntN(8) }},
	}
	mats := map[string]*CSR[T]{}
	var names []string
	for _, sh := range shapes {
		mats[sh.name] = randomCSR[T](t, rng, sh.rows, sh.cols, sh.lens)
		names = append(names, sh.name)
	}
	// Runs of consecutive columns (a band of every width 0..40, clipped at
	// the edges), which the assembly loads rather than gathers, beside
	// random ones.
	for _, bw := range []int{0, 3, 7, 8, 15, 16, 40} {
		name := fmt.Sprintf("band %d", bw)
		mats[name], names = bandCSR[T](t, 200, bw), append(names, name)
	}
	for _, g := range []int{3, 9, 64} {
		name := fmt.Sprintf("stencil %d²", g)
		mats[name], names = stencilCSR[T](t, g), append(names, name)
	}
	for _, name := range names {
		a := mats[name]
		sh := struct {
			name       string
			rows, cols int
		}{name, a.Rows(), a.Cols()}
		x := make([]T, sh.cols)
		for i := range x {
			x[i] = T(rng.IntN(9) - 4)
		}
		want := make([]T, sh.rows)
		spmvGeneric(a, x, want, 0, sh.rows)
		sell, err := NewSELL(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, lvl := range levels() {
			for _, th := range []int{1, 2, 3} {
				for _, format := range []string{"CSR", "SELL"} {
					y, whole := guarded[T](sh.rows)
					if format == "SELL" {
						MulVecSELL(lvl, sell, x, y, th)
					} else {
						MulVec(lvl, a, x, y, th)
					}
					for i := range y {
						if y[i] != want[i] {
							t.Fatalf("%s, %s %s, %d threads: y[%d] = %v, want %v", sh.name, format, Kernel(lvl), th, i, y[i], want[i])
						}
					}
					if !math.IsNaN(float64(whole[7])) || !math.IsNaN(float64(whole[8+sh.rows])) {
						t.Fatalf("%s, %s %s: wrote outside y", sh.name, format, Kernel(lvl))
					}
				}
			}
		}
	}
}

func TestMulVecF32(t *testing.T) { testMulVec[float32](t) }
func TestMulVecF64(t *testing.T) { testMulVec[float64](t) }

func TestSELLPaddingNeverReadsX(t *testing.T) {
	// Rows of 1 and 9 entries in one slice: the short rows' padding lanes
	// must not gather x[0], which is infinite here (0·Inf would be NaN).
	rng := rand.New(rand.NewPCG(9, 9))
	a := randomCSR[float64](t, rng, 40, 30, func(i int) int { return 1 + 8*(i%2) })
	for p, c := range a.colIdx {
		if c == 0 {
			a.colIdx[p] = 1 // no entry reads x[0]
		}
	}
	s, err := NewSELL(a)
	if err != nil {
		t.Fatal(err)
	}
	if s.Padding() <= 0 {
		t.Fatal("no padding to test")
	}
	x := make([]float64, 30)
	x[0] = math.Inf(1)
	for _, lvl := range levels() {
		y := make([]float64, 40)
		MulVecSELL(lvl, s, x, y, 1)
		for i, v := range y {
			if v != 0 {
				t.Errorf("%s: y[%d] = %v, want 0", Kernel(lvl), i, v)
			}
		}
	}
}

func TestSELLRefusesTooMuchPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	// One row of 500 entries in each slice of short ones.
	a := randomCSR[float32](t, rng, 64, 1000, func(i int) int {
		if i%16 == 0 {
			return 500
		}
		return 3
	})
	if _, err := NewSELL(a); err == nil {
		t.Error("a slice padded 16-fold: no error")
	}
}

// testMulMat checks Y = A·X at every level against a column-by-column
// SpMV of the generic kernel, for every k from 1 to 40 (the AVX-512 and
// AVX2 tails, one pass and column blocks), k = 64 and 70 (several
// blocks), on rows of every length 0..30 and on a matrix split between
// threads; values small integers, so every order of sums is exact.
func testMulMat[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mats := []struct {
		name string
		a    *CSR[T]
	}{
		{"every length 0..30, empty rows", randomCSR[T](t, rng, 93, 120, func(i int) int { return (i % 31) * (i % 3 % 2) })},
		{"many rows, split between threads", randomCSR[T](t, rng, 6000, 700, func(i int) int { return i % 13 })},
		{"band 8", bandCSR[T](t, 300, 8)},
	}
	ks := []int{64, 70}
	for k := 1; k <= 40; k++ {
		ks = append(ks, k)
	}
	for _, m := range mats {
		a := m.a
		rows, cols := a.Rows(), a.Cols()
		for _, k := range ks {
			if m.name != mats[0].name && k > 9 && k != 33 && k != 70 {
				continue // the tails are the small matrix's to check; these check threads
			}
			x := make([]T, cols*k)
			for i := range x {
				x[i] = T(rng.IntN(9) - 4)
			}
			want := make([]T, rows*k)
			col, yc := make([]T, cols), make([]T, rows)
			for j := range k {
				for r := range cols {
					col[r] = x[r*k+j]
				}
				spmvGeneric(a, col, yc, 0, rows)
				for i := range rows {
					want[i*k+j] = yc[i]
				}
			}
			for _, lvl := range levels() {
				for _, th := range []int{1, 2, 3} {
					y, whole := guarded[T](rows * k)
					MulMat(lvl, a, x, k, y, th)
					for i := range y {
						if y[i] != want[i] {
							t.Fatalf("%s, k=%d, %s, %d threads: Y[%d][%d] = %v, want %v", m.name, k, Kernel(lvl), th, i/k, i%k, y[i], want[i])
						}
					}
					if !math.IsNaN(float64(whole[7])) || !math.IsNaN(float64(whole[8+rows*k])) {
						t.Fatalf("%s, k=%d, %s, %d threads: wrote outside Y", m.name, k, Kernel(lvl), th)
					}
				}
			}
		}
	}
}

func TestMulMatF32(t *testing.T) { testMulMat[float32](t) }
func TestMulMatF64(t *testing.T) { testMulMat[float64](t) }

func TestPartitionBalancesEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// One row in ten holds a hundred times the others' entries.
	a := randomCSR[float32](t, rng, 5000, 2000, func(i int) int {
		if i%10 == 0 {
			return 1000
		}
		return 10
	})
	for _, parts := range []int{1, 2, 3, 7} {
		b := a.Partition(parts)
		if b[0] != 0 || b[parts] != a.Rows() {
			t.Fatalf("%d parts: bounds %v", parts, b)
		}
		for i := range parts {
			got := int(a.rowPtr[b[i+1]] - a.rowPtr[b[i]])
			if want := a.NNZ() / parts; math.Abs(float64(got-want)) > 1000 {
				t.Errorf("%d parts: part %d has %d entries, want about %d", parts, i, got, want)
			}
		}
	}
}

func TestNewCSRRefuses(t *testing.T) {
	for i, c := range []struct {
		rows, cols     int
		rowPtr, colIdx []int32
	}{
		{2, 2, []int32{0, 1}, []int32{0}},       // too few row pointers
		{1, 2, []int32{0, 1}, []int32{2}},       // column outside
		{1, 2, []int32{0, 1}, []int32{-1}},      // negative column
		{2, 2, []int32{0, 2, 1}, []int32{0, 1}}, // decreasing
		{1, 2, []int32{1, 1}, []int32{0}},       // not from 0
	} {
		if _, err := NewCSR(c.rows, c.cols, c.rowPtr, c.colIdx, make([]float64, len(c.colIdx))); err == nil {
			t.Errorf("case %d: accepted", i)
		}
	}
}

func BenchmarkMulVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 1 << 18
	t := &testing.T{}
	for _, perRow := range []int{5, 16} {
		a64 := randomCSR[float64](t, rng, n, n, func(int) int { return perRow })
		a32, _ := NewCSR(n, n, a64.rowPtr, a64.colIdx, make([]float32, a64.NNZ()))
		x64, y64 := make([]float64, n), make([]float64, n)
		x32, y32 := make([]float32, n), make([]float32, n)
		for _, lvl := range levels() {
			b.Run(fmt.Sprintf("f64/%d-per-row/%s", perRow, Kernel(lvl)), func(b *testing.B) {
				for b.Loop() {
					MulVec(lvl, a64, x64, y64, 1)
				}
			})
			b.Run(fmt.Sprintf("f32/%d-per-row/%s", perRow, Kernel(lvl)), func(b *testing.B) {
				for b.Loop() {
					MulVec(lvl, a32, x32, y32, 1)
				}
			})
		}
	}
}

// BenchmarkSELLBand is the suite's banded matrix (n = 1 Mi, 17 entries a
// row), larger than L2: SELL's loads of x where the band's columns run,
// against CSR's gathers.
func BenchmarkSELLBand(b *testing.B) {
	const n, bw = 1 << 20, 8
	t := &testing.T{}
	a64 := bandCSR[float64](t, n, bw)
	a32, _ := NewCSR(n, n, a64.rowPtr, a64.colIdx, make([]float32, a64.NNZ()))
	s64, _ := NewSELL(a64)
	s32, _ := NewSELL(a32)
	x64, y64 := make([]float64, n), make([]float64, n)
	x32, y32 := make([]float32, n), make([]float32, n)
	lvl := isa.Best
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("f64/sell/%d", th), func(b *testing.B) {
			b.SetBytes(int64(a64.NNZ()) * 8)
			for b.Loop() {
				MulVecSELL(lvl, s64, x64, y64, th)
			}
		})
		b.Run(fmt.Sprintf("f64/csr/%d", th), func(b *testing.B) {
			b.SetBytes(int64(a64.NNZ()) * 8)
			for b.Loop() {
				MulVec(lvl, a64, x64, y64, th)
			}
		})
		b.Run(fmt.Sprintf("f32/sell/%d", th), func(b *testing.B) {
			b.SetBytes(int64(a32.NNZ()) * 4)
			for b.Loop() {
				MulVecSELL(lvl, s32, x32, y32, th)
			}
		})
	}
}

// TestSELLAffineSlices checks which slices take the values-only path: a
// band's inside slices, never a slice with padding or gathered columns
// (whose results testMulVec checks on every path).
func TestSELLAffineSlices(t *testing.T) {
	band, err := NewSELL(bandCSR[float64](t, 200, 8))
	if err != nil {
		t.Fatal(err)
	}
	c := band.c
	for sl, f := range band.affine {
		inside := sl*c >= 8 && (sl+1)*c <= 200-8 // every row holds 17 entries
		if want := int32(sl*c - 8); inside && f != want {
			t.Errorf("band slice %d: affine %d, want %d", sl, f, want)
		} else if !inside && f != -1 {
			t.Errorf("band slice %d (an edge's, padded): affine %d, want -1", sl, f)
		}
	}
	stencil, err := NewSELL(stencilCSR[float64](t, 64))
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for sl, f := range stencil.affine {
		switch {
		case f == sellRuns:
			runs++
		case f != -1:
			t.Errorf("stencil slice %d: affine %d: its diagonals are 1 and 64 apart, not consecutive", sl, f)
		}
	}
	if runs == 0 {
		t.Error("no slice of a 64² stencil runs whole from run's columns")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	random, err := NewSELL(randomCSR[float64](t, rng, 64, 64, func(int) int { return 6 }))
	if err != nil {
		t.Fatal(err)
	}
	for sl, f := range random.affine {
		if f != -1 {
			t.Errorf("random slice %d: affine %d, want -1 (its columns are gathered)", sl, f)
		}
	}
}
