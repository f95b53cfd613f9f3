package num

import "testing"

func TestWalkDown(t *testing.T) {
	const p = 1 << 20 // a page-aligned base
	for _, c := range []struct {
		out  uintptr
		ins  []uintptr
		want bool
	}{
		{p + 576, []uintptr{p}, true},                     // the store 576 bytes behind the load: down
		{p + 64, []uintptr{p}, true},                      // a line behind
		{p + AliasWindow - 8, []uintptr{p}, true},         // just inside the window
		{p + AliasWindow, []uintptr{p}, false},            // far enough behind
		{p, []uintptr{p}, false},                          // in place, or the same offset
		{p, []uintptr{p + 576}, false},                    // stores ahead of loads walking up
		{p + 4096 + 576, []uintptr{p}, true},              // only the page offset counts
		{p + 2048, []uintptr{p + 4096}, false},            // half a page either way
		{p + 1152, []uintptr{p, p + 576}, true},           // pb's placement of add: z past both
		{p + 576, []uintptr{p, p + 1024}, false},          // down would trail y by 448
		{p, []uintptr{p, p + 2048}, false},                // in place on x, y half a page off
		{p + 1728, []uintptr{p, p + 576, p + 1152}, true}, // layernorm's y past x, γ and β
		{p + 64, nil, false},                              // nothing loaded
	} {
		if got := WalkDown(c.out, c.ins...); got != c.want {
			t.Errorf("WalkDown(%#x, %#x) = %v, want %v", c.out, c.ins, got, c.want)
		}
	}
}

func TestWalkDownAllocates(t *testing.T) {
	if a := testing.AllocsPerRun(100, func() { WalkDown(p1, p1+576, p1+1152) }); a != 0 {
		t.Errorf("WalkDown allocates %v times a call", a)
	}
}

const p1 = 1 << 21
