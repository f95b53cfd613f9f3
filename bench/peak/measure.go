package peak

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/peakbench/peakbench/bench/internal/hostmem"
)

// budget is how long Measure spends on each figure.
type budget struct {
	target   time.Duration // one timed repetition
	reps     int           // timed repetitions; the best counts
	clock    time.Duration // MeasureClock's d
	dramLLCs int           // each DRAM triad array is this many last-level caches
}

func budgetFor(quick bool) budget {
	if quick {
		return budget{target: 2 * time.Millisecond, reps: 3, clock: 8 * time.Millisecond, dramLLCs: 1}
	}
	return budget{target: 10 * time.Millisecond, reps: 5, clock: 30 * time.Millisecond, dramLLCs: 4}
}

// maxTriadBytes caps the DRAM arrays of all threads together.
const maxTriadBytes = 1<<31 - 1 // ≈ 2 GiB; fits a 32-bit int

// Measure measures, for each thread count, the clock, the empirical FMA peak
// of f32 and f64 (also bf16's and f16's on the FMA unit: inputs converted
// to f32), the peak of each low-precision unit MeasureUnits found
// (lowppeaks.go), and the triad bandwidth of L1, L2, L3 and DRAM, and derives the
// theoretical compute peak: min(threads, Cores) × measured GHz × FLOPsPerCycle.
// The clock is the integer clock of that many busy threads; a CPU that slows
// down under wide vector load (AVX-512 licences) shows it in the empirical
// figure, not the theoretical one.
//
// Threads run as goroutines locked to their own OS threads, started together;
// a thread count above GOMAXPROCS time-shares and measures less. Every figure
// is the best of a few repetitions (the host may be noisy; the best is the
// least disturbed); the bandwidth ones take theirs in rounds over every
// level and pattern, spread over the whole measurement. On cancellation it
// returns what it measured so far and ctx.Err(). Options.Threads empty means {1, CPUs}.
func Measure(ctx context.Context, m Machine, opt Options) (Peaks, error) {
	threads, err := threadCounts(opt.Threads, m.CPUs)
	if err != nil {
		return Peaks{}, err
	}
	b := budgetFor(opt.Quick)
	p := Peaks{Compute: []ComputePeak{}, Bandwidth: []BandwidthPeak{}}
	bufs := make([]triadBuf, slices.Max(threads)) // per worker index, kept across thread counts
	defer func() {
		for w := range bufs {
			bufs[w].free() // hand the DRAM arrays back now
		}
		debug.FreeOSMemory() // and the heap's small ones, not at the next GCs
	}()
	for _, t := range threads {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		c := newCrew(t)
		err := measureThreads(ctx, m, opt, b, c, bufs, &p)
		c.close()
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// repSpread is the noise of a best-of figure: (median − best) / best over
// its repetitions' wall times; 0 with fewer than two.
func repSpread(walls []time.Duration) float64 {
	if len(walls) < 2 {
		return 0
	}
	w := slices.Clone(walls)
	slices.Sort(w)
	med := float64(w[len(w)/2])
	if len(w)%2 == 0 {
		med = (float64(w[len(w)/2-1]) + float64(w[len(w)/2])) / 2
	}
	return med/float64(w[0]) - 1
}

// threadCounts validates and de-duplicates the thread counts, keeping their order.
func threadCounts(ts []int, cpus int) ([]int, error) {
	if len(ts) == 0 {
		ts = []int{1, max(cpus, 1)}
	}
	var out []int
	seen := map[int]bool{}
	for _, t := range ts {
		if t < 1 {
			return nil, fmt.Errorf("peak: thread count %d: must be at least 1", t)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// measureThreads appends the peaks of one thread count to p.
func measureThreads(ctx context.Context, m Machine, opt Options, b budget, c *crew, bufs []triadBuf, p *Peaks) error {
	t := c.size()
	runtime.GC() // leave no collection running under the clock
	ck := clockKernelFor()
	intGHz := measureClock(c, ck, b.clock)
	p.Clocks = append(p.Clocks, ClockReading{Threads: t, GHz: intGHz, Kernel: ck.name})
	// The theoretical peak takes the clock the cores keep while FMAs of
	// the model's width run: a core may slow down for wide vectors (the
	// Intel Xeon VM of docs/architecture.md: 4.16 GHz with ymm, 3.87 with zmm).
	// It is read before and after the FMA kernels and the higher reading
	// kept: a busy host only ever makes the chain read low.
	ghz, clockHow := intGHz, "integer clock"
	uk, underWidth := asmClockUnderKernel(m.SIMDBits)
	if underWidth {
		ghz, clockHow = measureClock(c, uk, b.clock), fmt.Sprintf("clock under %d-bit FMAs", m.SIMDBits)
	}
	empirical := map[string]float64{}
	for _, dtype := range []string{"f32", "f64"} {
		if err := ctx.Err(); err != nil {
			return err
		}
		empirical[dtype] = empiricalGFLOPS(c, fmaKernelFor(dtype, m.SIMDBits), b, float64(m.cores(t))*ghz*m.FLOPsPerCycle(dtype))
	}
	if underWidth {
		ghz = max(ghz, measureClock(c, uk, b.clock))
	}

	var f32 ComputePeak
	for _, dtype := range []string{"f32", "f64"} {
		k := fmaKernelFor(dtype, m.SIMDBits)
		fpc := m.FLOPsPerCycle(dtype)
		cores := m.cores(t)
		cp := ComputePeak{
			DType:             dtype,
			Unit:              UnitFMA,
			Threads:           t,
			TheoreticalGFLOPS: float64(cores) * ghz * fpc,
			EmpiricalGFLOPS:   empirical[dtype],
			ClockGHz:          ghz,
			FLOPsPerCycle:     fpc,
			Kernel:            k.name,
		}
		cp.Formula = fmt.Sprintf("%s × %.2f GHz (%s) × %g FLOP/cycle (%s, %s)", coresText(cores, t), ghz, clockHow, fpc, m.flopsFormula(dtype), m.UnitsSource)
		if opt.PeakGFLOPS > 0 {
			cp.TheoreticalGFLOPS = opt.PeakGFLOPS
			cp.Formula = fmt.Sprintf("given: -peak-gflops=%g (applies to every dtype and thread count)", opt.PeakGFLOPS)
		}
		p.Compute = append(p.Compute, cp)
		if dtype == "f32" {
			f32 = cp
		}
	}
	p.Compute = append(p.Compute, convertedPeaks(f32)...)
	clocks := map[string]float64{ck.name: intGHz}
	if underWidth {
		clocks[uk.name] = ghz
	}
	lowp, err := lowpPeaks(ctx, c, m, opt, b, clocks)
	p.Compute = append(p.Compute, lowp...)
	if err != nil {
		return err
	}

	// The levels come from a working-set sweep (levels.go) over the memory
	// of the DRAM peak, which also holds every level's arrays.
	need := allocDRAM(m, b, c, bufs)
	sw, err := runSweep(ctx, c, bufs, m.SIMDBits, 24*need, opt.Quick)
	if err != nil {
		return err
	}
	plan := findLevels(m, sw)
	p.Sweeps = append(p.Sweeps, sw)
	p.Caches = append(p.Caches, plan.caches...)
	err = measureLevels(ctx, m, opt, b, c, bufs, plan, p)
	p.dropLevelsAtDRAM(c.size())
	return err
}

// allocDRAM gives each member of c the arrays of the DRAM peak, which also
// hold every level's, and returns their elements per array.
func allocDRAM(m Machine, b budget, c *crew, bufs []triadBuf) int {
	need := dramElems(m, c.size(), b.dramLLCs)
	c.run(func(w int) { // allocated and first touched by the thread that streams it
		if len(bufs[w].raw) < triadRoom(need) {
			bufs[w].free() // let the old arrays go before the new ones arrive
			bufs[w] = newTriadBuf(need)
		}
	})
	runtime.GC()
	return need
}

// measureLevels appends to p the bandwidth of every pattern at each level
// of plan (and DRAM's), on c's threads.
func measureLevels(ctx context.Context, m Machine, opt Options, b budget, c *crew, bufs []triadBuf, plan levelPlan, p *Peaks) error {
	t := c.size()
	levels := plannedLevels(plan, t, opt.PeakGBPS <= 0)
	type abc struct{ a, b, c []float64 }
	arrays := make([]abc, t)
	// Every pattern streams over the same memory per thread as the triad
	// (its three arrays: l.elems each), so all of a level's patterns
	// measure it.
	type stream struct {
		level  triadLevel
		pat    string
		kernel streamKernel
		n      int // elements per array and thread
		passes int
		wall   time.Duration   // the best repetition's
		clean  time.Duration   // the best undisturbed repetition's (runClean)
		walls  []time.Duration // every undisturbed repetition's
	}
	var streams []*stream
	for _, l := range levels {
		for _, pat := range patterns {
			private := l.name == "L1" || l.name == "L2"
			if NonTemporal(pat) && private {
				continue // non-temporal stores leave the private caches: measured past them only
			}
			if pat == PatternWiden && !private {
				continue // past them the copy bounds a widen (PatternWiden)
			}
			// The same footprint for every pattern (the triad's three
			// arrays): the level a workload is compared with is picked by
			// its footprint, and an in-place update moves 24 bytes per
			// element over 16 of memory (sized by its bytes moved, its
			// arrays fitted in L1 where the triad's spilled to L2, and its
			// "L2" peak read 532 GB/s, the L1's).
			n := patternElems(pat, l.elems)
			for i, k := range streamKernelsFor(pat, m.SIMDBits) {
				if i > 0 && l.name == "L1" {
					continue // a prefetch of what L1 holds only takes load slots
				}
				streams = append(streams, &stream{level: l, pat: pat, kernel: k, n: n, wall: time.Duration(math.MaxInt64), clean: time.Duration(math.MaxInt64)})
			}
		}
	}
	// carve lays out (and fills) a stream's arrays; the kernels of one
	// pattern at one level, measured one after the other, share them.
	var carved *stream
	carve := func(st *stream) {
		if carved != nil && carved.level == st.level && carved.pat == st.pat && carved.n == st.n {
			return
		}
		carved = st
		c.run(func(w int) { arrays[w].a, arrays[w].b, arrays[w].c = bufs[w].carve(st.pat, st.n) })
	}
	work := func(st *stream) func(w, passes int) {
		return func(w, passes int) {
			x := arrays[w]
			st.kernel.run(x.a, x.b, x.c, triadS, passes)
			consume(x.a[0])
		}
	}
	for _, st := range streams { // the calibration warms up too
		if err := ctx.Err(); err != nil {
			return err
		}
		carve(st)
		st.passes = c.calibrate(b.target, 1, work(st))
	}
	// The repetitions go round every level and pattern in turn, so that
	// each figure's best is taken over the whole measurement, not over a
	// few back-to-back runs that one busy second on a shared host spoils.
	// An untimed pass first brings the arrays back into their level.
	// record adds the figures with a timed repetition (all of them, unless
	// the measurement was cancelled in its first round).
	record := func() {
		type figure struct {
			st        *stream
			gbps      float64
			disturbed bool
		}
		var order []string // level/pattern, in the order of streams
		best := map[string][]figure{}
		for _, st := range streams {
			if st.wall == time.Duration(math.MaxInt64) {
				continue
			}
			wall, disturbed := st.clean, false
			if wall == time.Duration(math.MaxInt64) {
				wall, disturbed = st.wall, true
			}
			key := st.level.name + "/" + st.pat
			if best[key] == nil {
				order = append(order, key)
			}
			best[key] = append(best[key], figure{st, float64(t) * float64(st.passes) * float64(patternBytes[st.pat]) * float64(st.n) / wall.Seconds() / 1e9, disturbed})
		}
		// Of a pattern's kernels the fastest counts, an undisturbed
		// figure before a disturbed one.
		for _, key := range order {
			fs := best[key]
			w := fs[0]
			for _, f := range fs[1:] {
				if (w.disturbed && !f.disturbed) || (w.disturbed == f.disturbed && f.gbps > w.gbps) {
					w = f
				}
			}
			st := w.st
			src := fmt.Sprintf("measured: %s, %d B/elem (write-allocate not counted); %s", patternFormula[st.pat], patternBytes[st.pat], st.kernel.name)
			if len(fs) > 1 {
				var others []string
				for _, f := range fs {
					if f.st != st {
						others = append(others, fmt.Sprintf("%s %.3g GB/s", f.st.kernel.name, f.gbps))
					}
				}
				src += fmt.Sprintf(", the fastest of %d kernels (%s)", len(fs), strings.Join(others, "; "))
			}
			p.Bandwidth = append(p.Bandwidth, BandwidthPeak{
				Level:      st.level.name,
				Pattern:    st.pat,
				Threads:    t,
				GBPS:       w.gbps,
				WorkingSet: 2 * patternQuarters[st.pat] * st.n, // the footprint: 8 B × quarters/4
				Source:     src,
				Kernel:     st.kernel.name,
				Disturbed:  w.disturbed,
				Spread:     repSpread(st.walls),
			})
		}
	}
	// A repetition during which a thread was set aside does not count
	// (runClean); a figure with none clean after b.reps rounds gets up to
	// twice as many more, and is marked Disturbed if it still has none.
	repeat := func(st *stream) {
		carve(st)
		run := work(st)
		c.run(func(w int) { run(w, 1) })
		wall, clean := c.runClean(func(w int) { run(w, st.passes) })
		st.wall = min(st.wall, max(wall, 1))
		if clean {
			st.clean = min(st.clean, max(wall, 1))
			st.walls = append(st.walls, max(wall, 1))
		}
	}
	for round := 0; round < 3*b.reps; round++ {
		for _, st := range streams {
			if round >= b.reps && st.clean != time.Duration(math.MaxInt64) {
				continue
			}
			if err := ctx.Err(); err != nil {
				record()
				return err
			}
			repeat(st)
		}
	}
	// The sweep read each level at this working set too. A read figure
	// below the sweep's by more than sweepAgree was taken while the level
	// served less (on the Intel Xeon VM the host's L3 gave 48.6 GB/s to
	// every pattern at the start of a run and 59 to the sweep and to the
	// workloads after it): the level's patterns get more rounds, and stay
	// marked Disturbed if their read still disagrees.
	gbps := func(st *stream) float64 {
		wall := min(st.clean, st.wall)
		return float64(t) * float64(st.passes) * float64(patternBytes[st.pat]) * float64(st.n) / wall.Seconds() / 1e9
	}
	// readLow: the fastest of a level's read kernels is below the sweep.
	readLow := func(level string) bool {
		best := 0.0
		for _, st := range streams {
			if st.pat == PatternRead && st.level.name == level {
				best = max(best, gbps(st))
			}
		}
		return readsLow(best, plan.peakGBPS(level))
	}
	low := map[string]bool{}
	for _, l := range levels {
		if readLow(l.name) {
			low[l.name] = true
		}
	}
	for round := 0; round < 2*b.reps && len(low) > 0; round++ {
		for _, st := range streams {
			if !low[st.level.name] {
				continue
			}
			if err := ctx.Err(); err != nil {
				record()
				return err
			}
			repeat(st)
		}
		for level := range low {
			if !readLow(level) {
				delete(low, level)
			}
		}
	}
	record()
	for i := range p.Bandwidth {
		if bp := &p.Bandwidth[i]; bp.Threads == t && low[bp.Level] {
			bp.Disturbed = true
		}
	}
	if opt.PeakGBPS > 0 {
		// One figure, which PatternBandwidthFor returns for every pattern.
		p.Bandwidth = append(p.Bandwidth, BandwidthPeak{Level: "DRAM", Threads: t, GBPS: opt.PeakGBPS, Source: "given (-peak-bw; used for every pattern)"})
	}
	return nil
}

// sweepAgree is how far below the sweep's reading at the same working set
// a level's read figure may be before the level is measured again.
const sweepAgree = 0.1

// readsLow says whether a level's read figure is below the sweep's reading
// at its working set (0: none) by more than sweepAgree.
func readsLow(read, sweep float64) bool { return sweep > 0 && read < (1-sweepAgree)*sweep }

// triadS is the scalar of the triad; any value that keeps the data finite.
const triadS = 3.0

// triadLevel is one working set of the triad: elems float64 per array and thread.
type triadLevel struct {
	name  string
	elems int
}

// plannedLevels sizes the triad's arrays of each level the sweep found (and
// of DRAM when withDRAM) at the working set findLevels chose for its peaks,
// split between the threads.
func plannedLevels(plan levelPlan, threads int, withDRAM bool) []triadLevel {
	var ls []triadLevel
	add := func(level string, bytes, fits int) {
		// A multiple of 2·streamStep, so that the other patterns' arrays
		// (1.5 or 3 times as long, the same footprint) are whole steps too.
		// A thread's share below that still gets one where the level's
		// plateau holds it (fits): a sweep that read fastest at its first
		// point (8 KiB on two threads of the Ice Lake VM) would otherwise
		// leave L1 without peaks, and its working sets compared with the
		// DRAM ceiling. None where even that is too large (a sliver of L1
		// when many threads share a core would leave the arrays empty).
		n := bytes / threads / 24 / (2 * streamStep) * (2 * streamStep)
		if n == 0 && 24*2*streamStep*threads <= fits {
			n = 2 * streamStep
		}
		if n > 0 {
			ls = append(ls, triadLevel{level, n})
		}
	}
	for _, c := range plan.caches {
		if c.Found {
			add(c.Level, c.PeakBytes, c.EffectiveBytes)
		}
	}
	if withDRAM {
		add("DRAM", plan.dramBytes, 0)
	}
	return ls
}

// minAnchorBytes is the least working set of all threads at the sweep's
// anchor: past the caches not reported (a Neoverse's system-level cache) and
// those reported too small, up to 256 MiB, since the sweep reaches at most
// half of it.
const minAnchorBytes = 512 << 20

// dramElems sizes the triad arrays of the sweep's anchor, its largest working
// set, which must be DRAM whatever the caches: each array dramLLCs × the
// reported last-level cache (a VM's report errs large: the host's), the
// three arrays of all threads at least minAnchorBytes and at most
// maxTriadBytes. Elements per array and thread, a multiple of 32.
func dramElems(m Machine, threads, dramLLCs int) int {
	arr := max(dramLLCs*m.LastLevelCacheBytes(), minAnchorBytes/(3*threads))
	arr = min(arr, maxTriadBytes/(3*threads))
	return arr / 8 &^ 31
}

// triadBuf is one thread's memory for the triad, carved into a, b and c anew
// for each level.
type triadBuf struct {
	mem    *hostmem.Arena // behind raw when it is large
	raw    []float64      // from a page boundary
	result []float64      // where a read pattern stores its total
}

// triadSpan is the room one array of n elements takes: whole pages plus one,
// so that the next array can start at its own offset within a page.
func triadSpan(n int) int {
	const page = 4096 / 8
	return (n+page-1)/page*page + page
}

// triadRoom is the buffer a level of n triad elements per array needs: room
// for three arrays of n, or two of 1.5·n, or one of 3·n (the other patterns
// stream the same bytes), each rounded up to pages.
func triadRoom(n int) int {
	return max(3*triadSpan(n), 2*triadSpan(3*n/2), triadSpan(3*n))
}

// newTriadBuf allocates room for three arrays of n elements on the calling
// thread (which thus first touches it) and fills it with values that are not
// zero, so no hardware shortcut applies.
func newTriadBuf(n int) triadBuf { return newBuf(triadRoom(n)) }

// newBuf allocates a triadBuf of room elements from a page boundary, filled
// the same way. Large ones are mapped and advised for huge pages, as the backends'
// buffers are (hostmem), so that peaks and results stream from like memory.
func newBuf(room int) triadBuf {
	mem := new(hostmem.Arena)
	raw := hostmem.Slice[float64](mem, room, 0)
	for i := range raw {
		raw[i] = 1 + float64(i&1023)/1024
	}
	return triadBuf{mem: mem, result: make([]float64, 1), raw: raw}
}

// free releases the buffer's memory; its arrays must not be used after.
func (t *triadBuf) free() {
	if t.mem != nil {
		t.mem.Free()
	}
	*t = triadBuf{}
}

// carve returns `arrays` arrays of n elements laid out back to back (a small
// level must not be spread over the whole buffer: on Zen 4, a, b and c 128
// MiB apart halve the L1 triad, presumably through the L1's linear-address
// way predictor), a on a 64-byte boundary and b, c at +1344 and +2688 bytes
// modulo 4 KiB from it: a third of a page apart, so no load stream
// 4K-aliases the store stream (a load falsely waits for an earlier store
// whose address matches in the low 12 bits; glibc's memcpy on this project's
// machine drops to 2 GB/s when buffers are 8 or 16 bytes apart modulo 4 KiB).
// With two arrays c is nil; with one (a read) b is the only array and a is
// the buffer's one-element result slot. A widen's b is a quarter of a
// (widenSource). It refills b and c: earlier levels wrote their a over them.
func (t triadBuf) carve(pat string, n int) (a, b, c []float64) {
	span := triadSpan(n)
	at := func(i, offBytes, n int) []float64 {
		s := i*span + offBytes/8
		if s+n > len(t.raw) {
			panic(fmt.Sprintf("peak: carve(%s, %d): buffer of %d elements too small", pat, n, len(t.raw)))
		}
		return t.raw[s : s+n : s+n]
	}
	switch {
	case widen(pat):
		a, b = at(0, 0, n), at(1, 1344, widenSource(n))
	case patternArrays[pat] == 1:
		a, b = t.result, at(0, 0, n)
	case patternArrays[pat] == 2:
		a, b = at(0, 0, n), at(1, 1344, n)
	default:
		a, b, c = at(0, 0, n), at(1, 1344, n), at(2, 2688, n)
	}
	for i := range b {
		b[i] = 1 + float64(i&1023)/1024
		if c != nil {
			c[i] = 0.5 - float64(i&511)/1024
		}
	}
	return a, b, c
}

// MeasureClock measures the clock in GHz of `threads` threads running
// concurrently, each a chain of dependent one-cycle integer adds: GHz = adds /
// ns. It takes each thread's best of a few repetitions (sharing d between
// them) and returns the mean over the threads. On amd64 the chain is assembly;
// elsewhere it is Go and approximate.
func MeasureClock(threads int, d time.Duration) float64 {
	if threads < 1 {
		panic(fmt.Sprintf("peak: MeasureClock: threads = %d, want ≥ 1", threads))
	}
	c := newCrew(threads)
	defer c.close()
	return measureClock(c, clockKernelFor(), d)
}

func measureClock(c *crew, k clockKernel, d time.Duration) float64 {
	const reps = 5
	target := max(d/(reps+2), 100*time.Microsecond) // the calibration takes about two repetitions
	step := uint64(time.Now().UnixNano() | 1)       // unknown to any compiler
	work := func(_, n int) { sink.Add(k.run(n, 0, step)) }
	n := c.calibrate(target, 100, work)
	best := make([]float64, c.size())
	for range reps {
		per, _ := c.run(func(w int) { work(w, n) })
		for w, dt := range per {
			if dt > 0 {
				best[w] = max(best[w], float64(n)*float64(k.adds)/float64(dt.Nanoseconds()))
			}
		}
	}
	mean := 0.0
	for _, g := range best {
		mean += g
	}
	return mean / float64(len(best))
}

// crew is a set of goroutines, each locked to its own OS thread, that run a
// function together. One crew serves all measurements of one thread count.
type crew struct {
	jobs []chan crewJob
	done chan crewSpan
}

type crewJob struct {
	fn   func(w int)
	gate <-chan struct{}
}

type crewSpan struct {
	w      int
	t0, t1 time.Time
}

func newCrew(n int) *crew {
	c := &crew{jobs: make([]chan crewJob, n), done: make(chan crewSpan, n)}
	for w := range c.jobs {
		ch := make(chan crewJob)
		c.jobs[w] = ch
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for j := range ch {
				<-j.gate
				t0 := time.Now()
				j.fn(w)
				c.done <- crewSpan{w, t0, time.Now()}
			}
		}()
	}
	return c
}

func (c *crew) size() int { return len(c.jobs) }

func (c *crew) close() {
	for _, ch := range c.jobs {
		close(ch)
	}
}

// run runs fn on every member at once and returns each member's time and the
// wall time from the first start to the last end.
func (c *crew) run(fn func(w int)) (per []time.Duration, wall time.Duration) {
	gate := make(chan struct{})
	for _, ch := range c.jobs {
		ch <- crewJob{fn, gate} // each member has its job before any starts
	}
	close(gate)
	per = make([]time.Duration, len(c.jobs))
	var first, last time.Time
	for range c.jobs {
		s := <-c.done
		per[s.w] = s.t1.Sub(s.t0)
		if first.IsZero() || s.t0.Before(first) {
			first = s.t0
		}
		if s.t1.After(last) {
			last = s.t1
		}
	}
	return per, last.Sub(first)
}

// runClean runs fn on every member at once like run, and also reports
// whether every member ran on a CPU for at least disturbedShare of the wall
// time: a member the OS set aside (another process on its CPU, a VM's steal)
// makes a figure that says nothing of the hardware. Where the OS does not
// tell a thread's CPU time, a run counts as clean.
func (c *crew) runClean(fn func(w int)) (wall time.Duration, clean bool) {
	cpu := make([]time.Duration, c.size())
	_, wall = c.run(func(w int) {
		c0, ok := threadCPU()
		fn(w)
		c1, _ := threadCPU()
		cpu[w] = c1 - c0
		if !ok {
			cpu[w] = -1
		}
	})
	clean = true
	for _, d := range cpu {
		clean = clean && (d < 0 || float64(d) >= disturbedShare*float64(wall))
	}
	return wall, clean
}

// calibrate returns how many units of work make one run last about target,
// starting from `start` units. Its runs double as warm-up: clock ramp, page
// faults, caches, branch predictors.
func (c *crew) calibrate(target time.Duration, start int, work func(w, units int)) int {
	units := max(start, 1)
	for {
		_, wall := c.run(func(w int) { work(w, units) })
		if units >= math.MaxInt/32 {
			return units
		}
		if wall >= target/2 {
			return max(int(float64(units)*float64(target)/float64(wall)), 1)
		}
		grow := 16.0
		if wall > 0 {
			grow = min(grow, 1.2*float64(target)/float64(wall))
		}
		units = max(int(float64(units)*grow), units+1)
	}
}

// best calibrates work to about target per run, runs it reps times, and
// returns the units per member and the shortest wall time seen among the
// runs no member was set aside in (runClean): when none of the reps was
// clean it tries up to twice as many more, then takes the shortest of all.
func (c *crew) best(target time.Duration, reps, start int, work func(w, units int)) (units int, wall time.Duration) {
	units = c.calibrate(target, start, work)
	wall = time.Duration(math.MaxInt64)
	cleanWall := wall
	for r := 0; r < reps || (r < 3*reps && cleanWall == time.Duration(math.MaxInt64)); r++ {
		d, clean := c.runClean(func(w int) { work(w, units) })
		wall = min(wall, max(d, 1))
		if clean {
			cleanWall = min(cleanWall, max(d, 1))
		}
	}
	if cleanWall != time.Duration(math.MaxInt64) {
		wall = cleanWall
	}
	return units, wall
}
