package elem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
	"github.com/peakbench/peakbench/gobackend/tune/tunetest"
)

// TestBackwardKernels places x, y and z in one buffer at page offsets that
// make Add, Mul, ReLU and Axpy walk down (and, mirrored, up), over every
// length 0..300 and a few longer, and checks each against the generic
// level: Add, Mul and ReLU bit for bit, Axpy (one rounding against two)
// within its bound; nothing outside z (or y) written.
func TestBackwardKernels(t *testing.T) {
	testBackward[float32](t)
	testBackward[float64](t)
}

func testBackward[T Float](t *testing.T) {
	// The offsets decide at every size (tune.Walk), so that both
	// directions run at every length.
	defer tunetest.With(func(p *tune.Params) {
		p.Walk = tune.Walk{UpAbove: tune.MaxPieceBytes, UpTo: tune.MaxPieceBytes}
	})()
	var zero T
	size := int(unsafe.Sizeof(zero))
	rnd := rand.New(rand.NewPCG(7, 8))
	buf := make([]T, 3*16384/size+4096)
	base := (4096 - int(uintptr(unsafe.Pointer(&buf[0]))%4096)) % 4096 / size
	lens := []int{1000, 4099}
	for n := 0; n <= 300; n++ {
		lens = append(lens, n)
	}
	// Byte offsets of y and z past x (each operand in its own 16 KiB).
	placements := [][2]int{{576, 1152}, {64, 128}, {0, 512}, {1152, 576}, {4096 - 576, 4096 - 1152}}
	seen := map[bool]bool{} // the directions the placements chose
	for _, lvl := range levels() {
		if lvl == isa.Generic {
			continue
		}
		for _, pl := range placements {
			for _, n := range lens {
				if n*size > 12288 {
					continue
				}
				at := func(slot, off int) []T { s := base + slot*16384/size + off/size; return buf[s : s+n] }
				x, y, z := at(0, 0), at(1, pl[0]), at(2, pl[1])
				if n > 0 {
					p := func(s []T) uintptr { return uintptr(unsafe.Pointer(&s[0])) }
					seen[walkDown(3*n*size, p(z), p(x), p(y))] = true
					seen[walkDown(2*n*size, p(y), p(x))] = true
				}
				for i := range buf {
					buf[i] = T(math.NaN())
				}
				for i := range n {
					x[i], y[i] = T(rnd.NormFloat64()), T(rnd.NormFloat64())
				}
				name := fmt.Sprintf("%T %v n=%d y+%d z+%d", zero, lvl, n, pl[0], pl[1])
				for _, o := range []struct {
					name string
					run  func(l isa.Level, x, y, z []T)
				}{{"add", func(l isa.Level, x, y, z []T) { Add(l, x, y, z, 1) }}, {"mul", func(l isa.Level, x, y, z []T) { Mul(l, x, y, z, 1) }}, {"relu", func(l isa.Level, x, _, z []T) { ReLU(l, x, z, 1) }}} {
					want := make([]T, n)
					o.run(isa.Generic, x, y, want)
					o.run(lvl, x, y, z)
					for i := range n {
						if z[i] != want[i] {
							t.Fatalf("%s %s: z[%d] = %v, want %v", o.name, name, i, z[i], want[i])
						}
					}
				}
				// Axpy on y, 576 or 64 bytes past x: down; with y before x: up.
				y0 := append([]T(nil), y...)
				want := append([]T(nil), y...)
				Axpy(isa.Generic, 0.75, x, want, 1)
				Axpy(lvl, 0.75, x, y, 1)
				for i := range n {
					tol := 4 * numtest.Eps[T]() * (math.Abs(float64(y0[i])) + math.Abs(0.75*float64(x[i])))
					if math.Abs(float64(y[i]-want[i])) > tol {
						t.Fatalf("axpy %s: y[%d] = %v, want %v", name, i, y[i], want[i])
					}
				}
				// Nothing written past the operands.
				for i, v := range buf {
					in := func(s []T) bool {
						lo := int(uintptr(unsafe.Pointer(unsafe.SliceData(s)))-uintptr(unsafe.Pointer(&buf[0]))) / size
						return i >= lo && i < lo+n
					}
					if !in(x) && !in(y) && !in(z) && !math.IsNaN(float64(v)) {
						t.Fatalf("%s: buf[%d] written (%v)", name, i, v)
					}
				}
			}
		}
	}
	if len(levels()) > 1 && !(seen[true] && seen[false]) {
		t.Errorf("the placements walked down %v, up %v: want both", seen[true], seen[false])
	}
}

// TestWalkKernel: the kernels' name says which way they walk, with the
// walk range where there is one.
func TestWalkKernel(t *testing.T) {
	const never = tune.MaxPieceBytes
	for _, c := range []struct {
		twins bool
		w     tune.Walk
		want  string
	}{
		{false, tune.Walk{UpAbove: 32 << 10, UpTo: 1 << 20}, "K"},
		{true, tune.Walk{UpAbove: never, UpTo: never}, "K, walking down where walking up would alias (4K)"},
		{true, tune.Walk{UpAbove: 32 << 10, UpTo: 512 << 10}, "K, walking down where walking up would alias (4K) but up over 32 KiB–512 KiB of operands"},
		{true, tune.Walk{UpAbove: 48000, UpTo: never}, "K, walking down where walking up would alias (4K) but up above 48000 B of operands"},
	} {
		if got := walkKernel("K", c.twins, c.w); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}
