package gemm

import (
	"unsafe"

	"github.com/peakbench/peakbench/gobackend/internal/num"
	"github.com/peakbench/peakbench/gobackend/isa"
	"github.com/peakbench/peakbench/gobackend/tune"
)

// The direct path: a small product reads A and B where they lie. Packing
// copies every element of A and B once per call, which pays when the
// kernel then reads each many times from a cache closer than the original,
// and costs as much as the arithmetic when A and B are a few KiB already in
// the caches (a 64³ SGEMM spent a third of its time packing). Which sizes
// take this path is tune.GEMM.Direct (by the bytes of A and B), measured
// by `peakbench -tune`.

// useDirect says whether Gemm runs this product unpacked: the kernel has an
// unpacked twin, neither operand is transposed (the twin reads rows of A
// and of B), and either A and B together are at most the tuned bytes, or
// A is small enough to stay in L2 while B streams past it once
// (directColsOuter), or the product runs the narrow kernel
// (microKernel.narrow).
//
// A narrow product is one panel of B wide: each element of A meets its
// panel once, so a packed copy of A is read as often as A itself would
// be, and the copy is the cost. f32 at AVX512 on the Zen 5 VM, packed
// against unpacked, two runs: 4096×16×256 298–455 µs against 195–198 on
// one thread, 161–185 against 97–118 on two; 1024×16×1024 314–344
// against 273–415 and 187–215 against 150–222; 4096×16×64 49–56 against
// 52–56.
func useDirect[T Float](kern *microKernel[T], narrow, transA, transB bool, m, n, k int) bool {
	if kern.direct == nil || transA || transB {
		return false
	}
	var z T
	size := int(unsafe.Sizeof(z))
	limit := tune.PerDTypeOf(tune.Current().GEMM.Direct, size)
	// A limit of 0 (-tune found packing ahead from the smallest size)
	// keeps every product packed.
	return (m*k+k*n)*size <= limit || limit > 0 && (narrow || colsOuterPays(m*k*size, size) && fitsColsOuter(m, k, kern.nr, size))
}

// colsOuterPays says whether a product above gemm.direct whose A is
// aBytes runs unpacked, columns outer (where it fits, fitsColsOuter): up to
// the tune parameter gemm.cols_outer. By default not on Intel's cores,
// whose prefetchers do not follow B's rows there, a few KiB apart, each a
// stream of two lines (isa.PrefetchesShortStreams; tune's defaultGEMM has
// the figures); packing reads B in long runs.
func colsOuterPays(aBytes, size int) bool {
	return aBytes <= tune.PerDTypeOf(tune.Current().GEMM.ColsOuter, size)
}

// fitsColsOuter says whether rows of A (m×k) and a column panel of B
// (k×nr) fit the core's L2 for the columns-outer sweep of gemmDirect: A
// in half of it (the share the nest gives its packed A block, doubled, as
// A is not copied), the panel in a quarter, the rest for C's lines.
//
// Such a product (few rows: a convolution's output channels × positions)
// read unpacked this way reads B once, where it lies, and A from L2 once
// per column panel; the streaming path (stream.go) copies B into panels
// first, which costs a load and a store per element of B for no reuse the
// kernel does not already get from L1. On the Zen 5 VM (48 KiB L1d, 1 MiB
// L2), one thread, f32, columns outer over streaming: 64×3136×256 and
// 64×3136×576 8–12% faster, 128×3136×576 and 192×3136×576 4–10%,
// 16×6272×432 1.55×; f64 64×3136×256 10% (10–15 rounds interleaved, as
// BenchmarkStream's stream4 and directcols).
func fitsColsOuter(m, k, nr, size int) bool {
	l2 := isa.Caches().L2
	return m*k*size <= l2/2 && k*nr*size <= l2/4
}

// gemmDirect computes C = alpha·A·B + beta·C, A m×k and B k×n row-major,
// with kern.direct over every mr×nr tile: row tiles shared between
// threads in ranges, each sweeping all of B's column panels (A's mr
// rows stay in L1, B streams from L2). The ⌈m/mr⌉ row tiles are of
// balanced heights (m = 16 with the 14-row AVX-512 kernels: two of 8
// rows), each run by the unpacked kernel of its height
// (rowsDirectKernel), A read in place. Computed as mr-row tiles with the
// last one zero-padded, m = 16 did 28 rows' work; with the last m mod mr
// rows on a kernel of their height, that tile (2 rows) loads two B
// vectors per 4 multiply-adds, and ran slower than the 14-row one (the
// filters of few-channel convolutions: conv's column tiles). Where there
// is no kernel of a height the rows are tiles of mr, the last copied with
// zero padding. The last columns of B, when short of a tile, are copied
// with zero padding first and their tiles computed aside and clipped, as
// the packed path does.
func gemmDirect[T Float](m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, kern *microKernel[T], threads int) {
	mr, nr := kern.mr, kern.nr
	d := directJob[T]{
		kern: kern, m: m, n: n, k: k, alpha: alpha, beta: beta,
		a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc,
		rowTiles: ceilDiv(m, mr), colsOuter: directColsOuter(m, k, nr, num.Size[T]()),
	}
	d.rt = balancedRows(kern, m, d.rowTiles)
	if d.rt.padded {
		buf := getBuf[T](mr * k)
		defer putBuf(buf)
		d.aEdge = *buf
		last := (d.rowTiles - 1) * mr
		for i := 0; i < mr; i++ {
			if r := last + i; r < m {
				copy(d.aEdge[i*k:(i+1)*k], a[r*lda:r*lda+k])
			} else {
				clear(d.aEdge[i*k : (i+1)*k])
			}
		}
	}
	if fullCols := n / nr * nr; fullCols < n {
		buf := getBuf[T](k * nr)
		defer putBuf(buf)
		d.bEdge = *buf
		for p := 0; p < k; p++ {
			row := d.bEdge[p*nr : (p+1)*nr]
			copy(row, b[p*ldb+fullCols:p*ldb+n])
			clear(row[n-fullCols:])
		}
	}
	// The tiles are shared out as a grid of blocks, one per thread, by
	// internal/num's pool of workers, which stay awake between calls: a
	// fresh goroutine took tens of microseconds to start on the VMs, as
	// long as a whole small product. One block a thread, not pieces that a
	// thread done first takes from the other's: four a thread, taken so,
	// ran f32 128³ 1.1–1.7× and f64 128³ 1.7–1.9× as long on two threads
	// on the Zen 5 Turin VM (three alternated runs), whose two vCPUs read
	// L3s of their own: each piece taken is read from the other's caches.
	d.colTiles = ceilDiv(n, nr)
	d.tr, d.tc = directGrid(d.rowTiles, d.colTiles, threads)
	if d.tr*d.tc == 1 {
		// On the caller, with d on its stack: a 16³ SGEMM took 1.4–1.9
		// µs when its closures and tile buffer were allocated at each
		// call, the garbage collector's work included.
		d.block(0)
		return
	}
	shared := new(directJob[T]) // what the runners' closure holds, so d stays on the stack
	*shared = d
	forThreads(d.tr*d.tc, shared.block)
}

// directJob is one gemmDirect call: its operands, its cut into row tiles
// (rt) and column tiles, and the grid of blocks (tr×tc) the threads run.
type directJob[T Float] struct {
	kern               *microKernel[T]
	m, n, k            int
	alpha, beta        T
	a, b, c            []T
	lda, ldb, ldc      int
	rt                 rowCut[T]
	aEdge, bEdge       []T // the last row tile and column tile, zero-padded (nil: none)
	rowTiles, colTiles int
	tr, tc             int
	colsOuter          bool
}

// block computes block t of the grid: its row tiles over its columns.
func (d *directJob[T]) block(t int) {
	r, q := t/d.tc, t%d.tc
	nr := d.kern.nr
	t0, t1 := d.rowTiles*r/d.tr, d.rowTiles*(r+1)/d.tr
	j0, j1 := d.colTiles*q/d.tc*nr, min(d.n, d.colTiles*(q+1)/d.tc*nr)
	// The scratch tile of the edge tiles, from the buffer cache: an array here
	// would be allocated at each call, as the kernels it is passed to are
	// function values.
	var tile []T
	if d.aEdge != nil || d.bEdge != nil {
		buf := getBuf[T](d.kern.mr * nr)
		defer putBuf(buf)
		tile = *buf
	}
	if d.colsOuter {
		for j := j0; j < j1; j += nr {
			for it := t0; it < t1; it++ {
				d.tile(it, j, tile)
			}
		}
		return
	}
	for it := t0; it < t1; it++ {
		for j := j0; j < j1; j += nr {
			d.tile(it, j, tile)
		}
	}
}

// tile computes the tile of row tile it and columns from j.
func (d *directJob[T]) tile(it, j int, tile []T) {
	nr := d.kern.nr
	i, rows, fn := d.rt.tile(it)
	ap, la := d.a[i*d.lda:], d.lda
	padded := d.rt.padded && it == d.rowTiles-1
	if padded {
		ap, la, rows = d.aEdge, d.k, d.m-i
	}
	cols := min(nr, d.n-j)
	bp, lb := d.b[j:], d.ldb
	if cols < nr {
		bp, lb = d.bEdge, nr
	}
	ct := d.c[i*d.ldc+j:]
	if cols == nr && !padded {
		fn(d.k, ap, la, bp, lb, d.alpha, d.beta, ct, d.ldc)
		return
	}
	fn(d.k, ap, la, bp, lb, 1, 0, tile, nr)
	clipTile(tile, nr, d.alpha, d.beta, ct, d.ldc, rows, cols)
}

// rowCut is how gemmDirect cuts m rows into row tiles: the first extra
// tiles base+1 rows high (kernel tall), the rest base (kernel short);
// padded: tiles of mr rows (base = mr, extra = 0), the last one short of
// rows and computed from a zero-padded copy, where the kernels of the
// balanced heights are missing.
type rowCut[T Float] struct {
	base, extra int
	short, tall directFunc[T]
	padded      bool
}

// balancedRows returns the cut of m rows into tiles row tiles.
func balancedRows[T Float](kern *microKernel[T], m, tiles int) rowCut[T] {
	ofHeight := func(h int) directFunc[T] {
		if h == kern.mr {
			return kern.direct
		}
		if h >= 1 && h <= len(kern.directRows) {
			return kern.directRows[h-1]
		}
		return nil
	}
	rt := rowCut[T]{base: m / tiles, extra: m % tiles}
	rt.short = ofHeight(rt.base)
	if rt.extra > 0 {
		rt.tall = ofHeight(rt.base + 1)
	}
	if rt.short == nil || (rt.extra > 0 && rt.tall == nil) {
		rt = rowCut[T]{base: kern.mr, short: kern.direct, padded: m%kern.mr != 0}
	}
	return rt
}

// tile returns row tile it's first row, height and kernel (padded: the
// last tile's real rows, its kernel the mr-row one).
func (rt *rowCut[T]) tile(it int) (first, rows int, fn directFunc[T]) {
	if it < rt.extra {
		return it * (rt.base + 1), rt.base + 1, rt.tall
	}
	return it*rt.base + rt.extra, rt.base, rt.short
}

// directGrid returns the grid (rows × columns of blocks of tiles) that
// gives the thread with most tiles the fewest (near ties: more columns),
// at most threads blocks. Rows alone split 19 row tiles (a 256² SGEMM) 10
// and 9 between two threads, where the 8 column panels split 4 and 4;
// unpacked, a column split costs no extra packing.
func directGrid(rowTiles, colTiles, threads int) (tr, tc int) {
	best := -1
	tr, tc = 1, 1
	for t := threads; t >= 1; t-- { // fewer blocks when threads do not fit
		for r := 1; r <= t; r++ {
			c := t / r
			if r*c != t || r > rowTiles || c > colTiles {
				continue
			}
			most := ceilDiv(rowTiles, r) * ceilDiv(colTiles, c)
			if best < 0 || most < best {
				best, tr, tc = most, r, c
			}
		}
	}
	return tr, tc
}

// directOrder forces gemmDirect's loop order (tests and benchmarks): 0
// chooses (directColsOuter), 1 rows outer, 2 columns outer.
var directOrder int

// directColsOuter says whether gemmDirect sweeps each column panel of B
// over every row tile (columns outer: B read once, A from L2 once per
// panel) rather than each row tile over every column panel (rows outer:
// an mr-row tile of A in L1, all of B read once per row tile): columns
// outer where A and a panel fit L2 (fitsColsOuter).
func directColsOuter(m, k, nr, size int) bool {
	switch directOrder {
	case 1:
		return false
	case 2:
		return true
	}
	return fitsColsOuter(m, k, nr, size)
}
