package gemm

import (
	"runtime"
	"sync/atomic"
	"time"
)

// lowpPhase is how the threads of gemmLowp share one phase: row blocks to
// own, from a counter; per row block, a counter of B's panels left to
// compute it against; per panel, whether it is packed.
type lowpPhase struct {
	nextRow atomic.Int64
	rows    []lowpRowShare
	panels  []atomic.Int32 // panelUnpacked, panelPacking or panelPacked
}

// The states of a panel of B in a phase.
const (
	panelUnpacked = iota
	panelPacking
	panelPacked
)

// lowpRowShare is one row block of a phase: a cache line of its own, as
// its counter is taken from by every thread computing it.
type lowpRowShare struct {
	next   atomic.Int64 // panels taken: the i-th is panel (first+i) mod panels
	packNs atomic.Int64 // what packing A's block took its owner
	start  atomic.Int64 // nanotime when its owner began computing; 0 before
	first  int
	_      [32]byte
}

// init shares out rowBlocks row blocks and panels panels among threads:
// the owners of the first row blocks, one per thread, begin at panels
// evenly apart, so that each packs its own share of B.
func (ph *lowpPhase) init(rowBlocks, panels, threads int) {
	ph.rows = make([]lowpRowShare, rowBlocks)
	ph.panels = make([]atomic.Int32, panels)
	for r := range ph.rows {
		ph.rows[r].first = r % threads * panels / threads
	}
}

// joinFactor: a thread joins a row block if its panels left would take
// longer than joinFactor times packing its A block. Joining pays off when
// they would take longer than the packing (the two threads then share what
// is left after it); twice, as the joining thread's packing also slows the
// owner, which shares the caches and memory. Tests set it negative to join
// every row block with panels left.
var joinFactor int64 = 2

// rowBlockTimes is what a thread's last owned row block took it: packing
// its A block, and computing it against one panel of B. Zero: none yet.
type rowBlockTimes struct{ packNs, panelNs int64 }

// steal returns the row block a thread with none left to own should join,
// or −1 for none: the one whose panels left would take longest, if that is
// more than joinFactor times packing its A block (a joining thread packs
// it again). The time left is estimated at the rate its threads have gone
// since its owner began computing, and what packing took its owner; where
// the owner has not yet begun, from the joining thread's own rates. A
// thread without rates of its own waits until every row block left is
// measured by its owner.
func (ph *lowpPhase) steal(own rowBlockTimes) int {
	panels := int64(len(ph.panels))
	for {
		best, bestNs, unmeasured := -1, int64(0), false
		now := nanotime()
		for r := range ph.rows {
			rb := &ph.rows[r]
			taken := min(rb.next.Load(), panels)
			if taken == panels {
				continue
			}
			var left, packNs int64
			if start := rb.start.Load(); start != 0 && taken > 0 {
				left, packNs = (panels-taken)*(now-start)/taken, rb.packNs.Load()
			} else if own.panelNs > 0 {
				left, packNs = (panels-taken)*own.panelNs, own.packNs
			} else {
				unmeasured = true
				continue
			}
			if left > joinFactor*packNs && (best < 0 || left > bestNs) {
				best, bestNs = r, left
			}
		}
		if best >= 0 || !unmeasured {
			return best
		}
		runtime.Gosched()
	}
}

// epoch makes nanotime monotonic and never 0.
var epoch = time.Now().Add(-time.Nanosecond)

// nanotime is the monotonic clock in nanoseconds.
func nanotime() int64 { return int64(time.Since(epoch)) }
