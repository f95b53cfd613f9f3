//go:build !purego

package conv

import (
	"fmt"
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
)

// The tile kernels of conv_amd64.s (../_asm/conv_direct.go), by width and
// height: index h−1 runs h rows.
type (
	sconvFunc func(c, taps int, a *float32, lda int, x *float32, ldx int, offs *int, y *float32, ldy int)
	dconvFunc func(c, taps int, a *float64, lda int, x *float64, ldx int, offs *int, y *float64, ldy int)
)

var (
	sconvAVX512 = [...]sconvFunc{sconv1x48AVX512, sconv2x48AVX512, sconv3x48AVX512, sconv4x48AVX512,
		sconv5x48AVX512, sconv6x48AVX512, sconv7x48AVX512, sconv8x48AVX512}
	dconvAVX512 = [...]dconvFunc{dconv1x24AVX512, dconv2x24AVX512, dconv3x24AVX512, dconv4x24AVX512,
		dconv5x24AVX512, dconv6x24AVX512, dconv7x24AVX512, dconv8x24AVX512}
	sconvAVX2 = [...]sconvFunc{sconv1x24AVX2, sconv2x24AVX2, sconv3x24AVX2, sconv4x24AVX2}
	dconvAVX2 = [...]dconvFunc{dconv1x12AVX2, dconv2x12AVX2, dconv3x12AVX2, dconv4x12AVX2}
)

// tileCall runs g's tile kernel of height h: y[i·ldy + j] for i < h, j <
// g.nr is Σ over c channels and taps of a[i·lda + ch·taps + s] ·
// x[ch·g.ldx + g.offs[s] + j]. It panics unless every element read and
// written lies inside a, x and y.
func tileCall[T Float](g *tileGeom, h, c, taps int, a []T, lda int, x, y []T, ldy int) {
	if h < 1 || h > g.mr || c < 1 || taps != len(g.offs) ||
		len(a) < (h-1)*lda+c*taps || len(x) < (c-1)*g.ldx+g.maxOff+g.nr || len(y) < (h-1)*ldy+g.nr {
		panic(fmt.Sprintf("conv: tile call h=%d c=%d taps=%d outside its slices", h, c, taps))
	}
	if num.Size[T]() == 4 {
		pa, px, py := (*float32)(unsafe.Pointer(&a[0])), (*float32)(unsafe.Pointer(&x[0])), (*float32)(unsafe.Pointer(&y[0]))
		f := sconvAVX2[:]
		if g.k == vecAVX512 {
			f = sconvAVX512[:]
		}
		f[h-1](c, taps, pa, lda, px, g.ldx, &g.offs[0], py, ldy)
		return
	}
	pa, px, py := (*float64)(unsafe.Pointer(&a[0])), (*float64)(unsafe.Pointer(&x[0])), (*float64)(unsafe.Pointer(&y[0]))
	f := dconvAVX2[:]
	if g.k == vecAVX512 {
		f = dconvAVX512[:]
	}
	f[h-1](c, taps, pa, lda, px, g.ldx, &g.offs[0], py, ldy)
}
