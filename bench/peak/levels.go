package peak

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/peakbench/peakbench/bench/internal/units"
)

// Cache levels, measured. What sysfs and CPUID report about the caches is a
// claim: a hypervisor passes on the host's 480 MiB L3 to a 2-vCPU guest, a
// victim L3 (Zen, Skylake-SP) serves more than its own size, a system-level
// cache (Neoverse) is not reported at all. So the levels a result is compared
// with come from a working-set sweep: the read bandwidth of all threads at
// once, each over its own array, at sizes growing geometrically from well
// inside L1 to where the bandwidth is DRAM's. Each plateau of that curve is a
// level; the report only names the plateaus and is checked against them.
//
// The bound of a result is the peak of its level, so the split between levels
// is placed where that stays an honest ceiling: a working set just past a
// level's knee still partly hits that level and runs faster than the next
// level's plateau, so it stays with the faster level until the sweep's
// bandwidth has come down to within boundSlack of the next level's peak (the
// end of the transition). The peaks themselves are measured near the start of
// each level's plateau, where the level is fastest (L1, which no level
// before it covers, among its fastest working sets). A working set in a
// transition is thus compared with a ceiling it cannot pass, loose at worst
// by one step between levels (×1.5–3 in the few transition sizes), never
// below what a stream of its size gets.

// Sweep is the bandwidth curve of one thread count: the probe's bandwidth of
// all threads together at each working set of all threads together.
type Sweep struct {
	Threads int          `json:"threads"`
	Pattern string       `json:"pattern"` // the probe's access pattern: "read"
	Points  []SweepPoint `json:"points"`  // by ascending Bytes; the last is the DRAM anchor
}

// DisturbedPoints counts the points of s taken while a thread waited for
// a CPU in every measurement of them.
func (s Sweep) DisturbedPoints() int {
	n := 0
	for _, pt := range s.Points {
		if pt.Disturbed {
			n++
		}
	}
	return n
}

// SweepPoint is one working set of a Sweep.
type SweepPoint struct {
	Bytes int     `json:"bytes"` // all threads together, split evenly
	GBPS  float64 `json:"gbps"`  // all threads together, the best of the sweep's rounds
	// Disturbed: in every measurement of it a thread waited for a CPU
	// (another process ran), so GBPS may be far below the level's.
	Disturbed bool `json:"disturbed,omitempty"`
}

// CacheLevel is one cache level of one thread count: what the sweep found,
// beside what sysfs/CPUID reported. All sizes are working sets of all
// Threads threads together (the unit of Workload.Footprint and LevelFor).
// A reported level the sweep did not find has Found false and only the
// reported sizes and Note; so does, with the sweep's sizes, a level past
// the reported ones taken as DRAM (dropLevelsAtDRAM).
type CacheLevel struct {
	Level   string `json:"level"` // "L1", "L2", ...: named after the reported level it matches, else after the one before
	Threads int    `json:"threads"`
	Found   bool   `json:"found"`
	// EffectiveBytes is where the level's plateau ends, at its knee: the
	// largest working set before the bandwidth falls by more than
	// plateauSlack within an octave.
	EffectiveBytes int `json:"effective_bytes"`
	// BoundBytes ends the working sets compared with this level's peaks
	// (those below it): the end of the transition to the next level, the
	// first working set of the sweep past the knee whose bandwidth is
	// within boundSlack of the next level's peak.
	BoundBytes int `json:"bound_bytes"`
	// PeakBytes is the working set the level's bandwidth peaks were measured
	// at, PeakGBPS the sweep's bandwidth there and TopGBPS at the plateau's
	// start.
	PeakBytes int     `json:"peak_bytes"`
	PeakGBPS  float64 `json:"peak_gbps"`
	TopGBPS   float64 `json:"top_gbps"`
	// ReportedBytes is the size of one instance as sysfs/CPUID report it
	// (0 when not reported), ReportedInstances how many instances the
	// threads use (threads spread over cores and cache domains first):
	// together, the capacity the report promises these threads.
	ReportedBytes     int    `json:"reported_bytes"`
	ReportedInstances int    `json:"reported_instances"`
	Note              string `json:"note,omitempty"` // a disagreement with the report, in one line
}

// The analysis's thresholds, as ratios of bandwidths.
const (
	// plateauSlack: a plateau goes on while the bandwidth falls by less
	// than 1+plateauSlack per octave, and the next one starts where the
	// drop over the following octave is below it.
	plateauSlack = 0.10
	// stepRatio: a plateau is a level of its own only when its bandwidth
	// (median) is at least this much below that of the plateau before, and
	// this much above DRAM; a smaller step is a slope within one level
	// (merged into the faster one, whose peak is the honest ceiling of both).
	stepRatio = 1.2
	// dramSlack: the curve has reached DRAM where it is within this of
	// DRAM's bandwidth (findLevels, step 2).
	dramSlack = 0.10
	// boundSlack: a working set is compared with the next level once the
	// sweep's bandwidth at it is within this of that level's peak. It leaves
	// room for the noise of the peaks under the roofline check's 5%.
	boundSlack = 0.04
	// boundMargin: a level's working sets reach this factor past where the
	// sweep came within boundSlack of the next level. A stream past a knee
	// still keeps part of its data in the faster level, and how much
	// depends on the access order and, in a VM, on its neighbours: on the
	// Intel VM a 2-thread GEMV over 8.4 MB read 86 GB/s where the sweep,
	// at the start of the run, read 58 there and put the bound at 7 MB.
	// The margin keeps such a result under the faster level's ceiling. It
	// does not apply before DRAM: there the sweep already waits for the
	// slow fade of a shared last level (on the Intel VM, from 30 GB/s at
	// 8 MiB to DRAM's 20 past 256 MiB), and half an octave more compared
	// DRAM-sized streams with the L3's bandwidth.
	boundMargin = math.Sqrt2
	// mismatchFactor: an effective size off the reported one by more than
	// this factor is a disagreement worth a note.
	mismatchFactor = 2
)

// sweepConfig is how densely and how often the sweep measures.
type sweepConfig struct {
	minBytes  int           // per thread: the smallest working set
	perOctave int           // working sets per doubling
	rounds    int           // the best of this many measurements per working set
	target    time.Duration // one timed measurement
}

func sweepConfigFor(quick bool) sweepConfig {
	if quick {
		return sweepConfig{minBytes: 4 << 10, perOctave: 2, rounds: 2, target: time.Millisecond}
	}
	return sweepConfig{minBytes: 4 << 10, perOctave: 4, rounds: 3, target: 2 * time.Millisecond}
}

// sweepStep is the granularity of the sweep's working sets per thread, in
// bytes: a multiple of every read kernel's step (streamStep float64).
const sweepStep = 8 * streamStep

// sweepSizes returns the working sets per thread from cfg.minBytes up by
// 2^(1/perOctave), rounded down to sweepStep, below limit.
func sweepSizes(cfg sweepConfig, limit int) []int {
	var out []int
	for i := 0; ; i++ {
		s := int(float64(cfg.minBytes)*math.Exp2(float64(i)/float64(max(cfg.perOctave, 1)))) / sweepStep * sweepStep
		if s >= limit {
			return out
		}
		if len(out) == 0 || s > out[len(out)-1] {
			out = append(out, max(s, sweepStep))
		}
	}
}

// sweepCurve runs the sweep of `threads` threads: probe(perThread) measures
// once the bandwidth of all threads together (GB/s), each thread over
// perThread bytes, and whether no thread waited for a CPU meanwhile. It measures the anchor (anchor bytes per thread, the DRAM
// working set) first, then the working sets from cfg.minBytes up, until an
// octave of them has been within dramSlack of the anchor, or up to half the
// anchor (findLevels counts those as DRAM too); then it takes
// cfg.rounds−1 more rounds over all of them, so that each figure's best is
// picked over the whole sweep, not over one busy second of a shared host.
// Should the best figures no longer show DRAM at the top, it goes on up. The
// points are the best of the rounds, the anchor last; on cancellation it
// returns what it has with ctx.Err().
func sweepCurve(ctx context.Context, cfg sweepConfig, threads, anchor int, probe func(perThread int) (gbps float64, clean bool)) ([]SweepPoint, error) {
	sizes := sweepSizes(cfg, min(anchor/2+sweepStep, anchor))
	best := map[int]float64{}
	clean := map[int]bool{}
	measure := func(s int) {
		g, ok := probe(s)
		best[s] = max(best[s], g)
		clean[s] = clean[s] || ok
	}
	points := func(upTo int) []SweepPoint {
		var ps []SweepPoint
		for _, s := range sizes[:upTo] {
			ps = append(ps, SweepPoint{Bytes: threads * s, GBPS: best[s], Disturbed: !clean[s]})
		}
		if _, ok := best[anchor]; ok {
			ps = append(ps, SweepPoint{Bytes: threads * anchor, GBPS: best[anchor], Disturbed: !clean[anchor]})
		}
		return ps
	}
	// atDRAM: the last octave measured, up to sizes[i], ran within dramSlack
	// of the anchor.
	atDRAM := func(i int) bool {
		if sizes[i] < 2*sizes[0] {
			return false
		}
		for j := i; j >= 0 && sizes[j] >= sizes[i]/2; j-- {
			if best[sizes[j]] > (1+dramSlack)*best[anchor] {
				return false
			}
		}
		return true
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	measure(anchor)
	n := 0 // sizes measured
	extend := func(reps int) error {
		for n < len(sizes) && (n == 0 || !atDRAM(n-1)) {
			if err := ctx.Err(); err != nil {
				return err
			}
			for range reps {
				measure(sizes[n])
			}
			n++
		}
		return nil
	}
	if err := extend(1); err != nil {
		return points(n), err
	}
	for range cfg.rounds - 1 {
		if err := ctx.Err(); err != nil {
			return points(n), err
		}
		measure(anchor)
		for _, s := range sizes[:n] {
			measure(s)
		}
	}
	err := extend(cfg.rounds)
	return points(n), err
}

// runSweep sweeps the read bandwidth of crew c, each thread over its own
// buffer in bufs, which holds at least anchor bytes.
func runSweep(ctx context.Context, c *crew, bufs []triadBuf, simdBits, anchor int, quick bool) (Sweep, error) {
	cfg := sweepConfigFor(quick)
	pr := &sweepProbe{c: c, bufs: bufs, k: streamKernelFor(PatternRead, simdBits), target: cfg.target, passes: map[int]int{}}
	pts, err := sweepCurve(ctx, cfg, c.size(), anchor/sweepStep*sweepStep, pr.probe)
	return Sweep{Threads: c.size(), Pattern: PatternRead, Points: pts}, err
}

// sweepProbe measures the read bandwidth of a crew, each thread over the
// start of its own buffer (all reads, so the buffers keep their contents).
// A figure during which a thread ran for less than disturbedShare of the
// run, waiting for a CPU another process held, is taken again, up to
// sweepRetries times: on a 2-vCPU VM a neighbour's burst halves a
// 2-thread figure, and a run of such figures would look like a cache's end.
type sweepProbe struct {
	c      *crew
	bufs   []triadBuf
	k      streamKernel
	target time.Duration
	passes map[int]int // per working set, from its first calibration
}

const (
	disturbedShare = 0.8
	sweepRetries   = 2
)

func (p *sweepProbe) probe(perThread int) (gbps float64, clean bool) {
	n := perThread / 8
	work := func(w, passes int) { p.k.run(p.bufs[w].result, p.bufs[w].raw[:n], nil, 0, passes) }
	passes, ok := p.passes[perThread]
	if ok {
		p.c.run(func(w int) { work(w, 1) }) // back into its level
	} else {
		passes = p.c.calibrate(p.target, 1, work) // warms up too
		p.passes[perThread] = passes
	}
	for range sweepRetries + 1 {
		var wall time.Duration
		wall, clean = p.c.runClean(func(w int) { work(w, passes) })
		gbps = max(gbps, float64(p.c.size())*float64(passes)*float64(8*n)/max(wall, 1).Seconds()/1e9)
		if clean {
			break
		}
	}
	return gbps, clean
}

// levelPlan is what the analysis of one sweep gives: the cache levels (found
// ones by size, then reported ones not found) and where DRAM's peaks are
// measured.
type levelPlan struct {
	caches    []CacheLevel
	dramBytes int // all threads' working set for the DRAM peaks
}

// peakGBPS is the sweep's read bandwidth where level's peaks are measured
// (its PeakBytes), 0 for a level the sweep did not find (DRAM).
func (p levelPlan) peakGBPS(level string) float64 {
	for _, c := range p.caches {
		if c.Level == level && c.Found {
			return c.PeakGBPS
		}
	}
	return 0
}

// findLevels finds the cache levels in sweep s of a machine whose caches m
// reports: a pure function of the curve and the report.
//
//  1. The curve is made non-increasing from the right (each point the best
//     of itself and every larger working set): a stream never speeds up by
//     growing, so a lower point is noise, and the lift is on the safe side.
//  2. The anchor, the largest working set, and those within an octave of it
//     are DRAM, and so is the sweep's last octave when it stopped there for
//     running within dramSlack of the anchor; the caches end where the
//     curve comes within dramSlack of the best of the anchor's and the
//     median of that octave.
//  3. Walking up: a plateau goes on while the bandwidth has lost less than
//     plateauSlack over the last octave (a shared L3 may slope gently
//     over several octaves: its knee is where the drop steepens); the next
//     starts at the first point whose following octave is that flat. A
//     plateau whose median is less than stepRatio below that of the last
//     plateau of the level before joins that level (a slope); one less than
//     stepRatio above DRAM is DRAM's approach, covered by the bound of the
//     level before (step 5) without extending its plateau.
//  4. Each level's peaks are measured ½ octave into its plateau, or
//     further on at a point of it faster by more than boundSlack than
//     every one before (the Zen 5 VM's L2, fastest at its end); the
//     first level's, which has no level before it to cover its fastest
//     working sets, at the largest within boundSlack of its top and at most
//     half its knee; DRAM's an octave past where the curve reached it
//     (capped at the anchor).
//  5. A level's working sets reach up to (not including) the first point
//     within boundSlack of the next level's peak, times boundMargin when
//     the next level is a cache; a next level whose peak working set that
//     leaves below moves it up (1/8 octave at a time).
//  6. The levels are named by the reported levels they match (nearest size,
//     in order), the rest after the level before; a disagreement of more
//     than mismatchFactor in size, a level not reported and a reported one
//     not found each get a note.
func findLevels(m Machine, s Sweep) levelPlan {
	pts := slices.Clone(s.Points)
	slices.SortFunc(pts, func(a, b SweepPoint) int { return a.Bytes - b.Bytes })
	n := len(pts)
	if n < 2 {
		return levelPlan{caches: notFound(m, s.Threads, nil)}
	}
	e := newEnvelope(pts)
	size, env, at := e.size, e.gbps, e.at
	// DRAM's bandwidth: the best of the anchor and the points within an
	// octave of it, all far past any cache. One long stream is the figure
	// most exposed to another process streaming memory at the same time,
	// and an anchor measured low would make DRAM of nothing and a cache of
	// the tail of the curve.
	dram := env[n-1]
	for i := n - 1; i >= 0 && size[i] >= size[n-1]/2; i-- {
		dram = env[i]
	}
	// When the sweep stopped because its last octave ran at DRAM speed
	// (within dramSlack of the anchor), that octave is DRAM too: its median
	// is a second opinion on a long anchor measured at a busy moment.
	if last := n - 2; last >= 0 && size[last] < size[n-1]/2 {
		var oct []float64
		for i := last; i >= 0 && size[i] >= size[last]/2; i-- {
			oct = append(oct, pts[i].GBPS)
		}
		if len(oct) > 1 && slices.Max(oct) <= (1+dramSlack)*pts[n-1].GBPS {
			slices.Sort(oct)
			dram = max(dram, (oct[(len(oct)-1)/2]+oct[len(oct)/2])/2)
		}
	}
	dramAt := n - 1 // the first point at DRAM speed
	for i, e := range env {
		if e <= (1+dramSlack)*dram {
			dramAt = i
			break
		}
	}

	// A plateau's bandwidth, for the steps between them, is the median over
	// its points: its first point may still be in the transition before it.
	median := func(i, e int) float64 {
		v := slices.Clone(env[i : e+1])
		slices.Sort(v)
		return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	type plateau struct {
		start, end int     // indices into pts
		top        float64 // the bandwidth at its start
		tail       float64 // the median bandwidth of its last plateau
	}
	var levels []plateau
	for i := 0; i < dramAt; {
		e := i
		for e+1 < dramAt && env[e+1] >= at(max(size[e+1]/2, size[i]))/(1+plateauSlack) {
			e++
		}
		bw := median(i, e)
		k := len(levels) - 1
		switch {
		case k >= 0 && bw < stepRatio*dram:
			// DRAM's approach, a little faster than DRAM: the level
			// before covers it (by its bound) but does not end there.
		case k >= 0 && levels[k].tail < stepRatio*bw:
			levels[k].end, levels[k].tail = e, bw
		default:
			levels = append(levels, plateau{start: i, end: e, top: env[i], tail: bw})
		}
		i = e + 1
		for i < dramAt && env[i] > (1+plateauSlack)*at(2*size[i]) {
			i++ // still falling
		}
	}

	// The peaks' working sets (the last is DRAM's), and the bounds between
	// them. A peak's working set must lie above the bound of the level
	// before, or the level's own peak would count as the level before: where
	// the plateau falls fast enough for that, it moves up.
	peakAt := make([]float64, len(levels)+1)
	limitAt := make([]float64, len(levels)+1) // how far each may move
	for k, l := range levels {
		if k == 0 {
			// The first level has no level before it to cover its
			// fastest working sets (here the smallest L1 ones read 3–5%
			// faster than half L1): the largest within boundSlack of its
			// top, at most half its knee (the triad's three arrays must
			// fit with room to spare).
			i := l.start
			for i < l.end && env[i+1] >= l.top/(1+boundSlack) && size[i+1] <= size[l.end]/2 {
				i++
			}
			peakAt[k] = size[i]
		} else {
			// Half an octave in, or further where the plateau's raw
			// curve is faster still: a level need not be fastest at its
			// start (on the Zen 5 VM one thread read L2 at 190–210 GB/s
			// up to 448 KiB and at 240–260 over 512–608 KiB).
			peakAt[k] = min(size[l.start]*math.Sqrt2, size[l.end])
			top := 0.0 // the fastest point up to the peak's working set
			for i := l.start; i <= l.end; i++ {
				switch {
				case size[i] <= peakAt[k]:
					top = max(top, pts[i].GBPS)
				case pts[i].GBPS > (1+boundSlack)*top:
					peakAt[k], top = size[i], pts[i].GBPS
				}
			}
		}
		limitAt[k] = size[l.end]
	}
	peakAt[len(levels)] = min(2*size[dramAt], size[n-1])
	if len(levels) == 0 {
		// A flat sweep (a kernel too slow to feel any cache: the pure-Go
		// loops on a core with fast caches) tells no level from DRAM, so
		// DRAM's peak is taken where it surely is: the sweep's anchor.
		peakAt[0] = size[n-1]
	}
	limitAt[len(levels)] = size[n-1]
	bound := make([]float64, len(levels))
	for k := len(levels) - 1; k >= 0; k-- {
		for range 64 {
			limit := (1 + boundSlack) * at(peakAt[k+1])
			i := levels[k].start
			for i < n-1 && env[i] > limit {
				i++
			}
			margin := boundMargin
			if k == len(levels)-1 {
				margin = 1 // DRAM next: the last cache's fade is the sweep's own measure
			}
			bound[k] = min(margin*size[i], size[n-1])
			if bound[k] <= peakAt[k+1] || peakAt[k+1] >= limitAt[k+1] {
				break
			}
			peakAt[k+1] = min(bound[k]*math.Exp2(1.0/8), limitAt[k+1])
		}
	}

	plan := levelPlan{dramBytes: int(peakAt[len(levels)])}
	found := make([]CacheLevel, len(levels))
	for k, l := range levels {
		found[k] = CacheLevel{
			Threads: s.Threads, Found: true,
			EffectiveBytes: int(size[l.end]), BoundBytes: int(bound[k]),
			PeakBytes: int(peakAt[k]), PeakGBPS: at(peakAt[k]), TopGBPS: l.top,
		}
	}
	plan.caches = nameLevels(m, s.Threads, found)
	return plan
}

// envelope is a sweep's curve made non-increasing from the right (each
// point the best of itself and every larger working set: a stream never
// speeds up by growing, so a lower point is noise), by ascending size.
type envelope struct{ size, gbps []float64 }

// newEnvelope is the envelope of pts, sorted by ascending Bytes.
func newEnvelope(pts []SweepPoint) envelope {
	n := len(pts)
	e := envelope{size: make([]float64, n), gbps: make([]float64, n)}
	for i := n - 1; i >= 0; i-- {
		e.size[i] = float64(pts[i].Bytes)
		e.gbps[i] = pts[i].GBPS
		if i < n-1 {
			e.gbps[i] = max(e.gbps[i], e.gbps[i+1])
		}
	}
	return e
}

// at interpolates the envelope at x bytes, linearly in log-log; the ends
// hold beyond the curve.
func (e envelope) at(x float64) float64 {
	size, env, n := e.size, e.gbps, len(e.size)
	switch {
	case x <= size[0]:
		return env[0]
	case x >= size[n-1]:
		return env[n-1]
	}
	i, _ := slices.BinarySearch(size, x)
	if size[i] == x {
		return env[i]
	}
	f := math.Log(x/size[i-1]) / math.Log(size[i]/size[i-1])
	return math.Exp(math.Log(env[i-1]) + f*(math.Log(env[i])-math.Log(env[i-1])))
}

// SweepGBPS is what the level sweep of threads threads read over a working
// set of bytes (all threads together): its envelope, interpolated between
// the sizes it measured. False without a sweep of that thread count.
func (p Peaks) SweepGBPS(threads int, bytes float64) (float64, bool) {
	for _, s := range p.Sweeps {
		if s.Threads != threads || len(s.Points) == 0 {
			continue
		}
		pts := slices.Clone(s.Points)
		slices.SortFunc(pts, func(a, b SweepPoint) int { return a.Bytes - b.Bytes })
		return newEnvelope(pts).at(bytes), true
	}
	return 0, false
}

// reportedLevel is one reported cache level as the threads of a sweep see it.
type reportedLevel struct {
	level, bytes, instances int
}

func (r reportedLevel) total() int { return r.bytes * r.instances }

// reported lists the caches m reports, by level, with the instances
// `threads` threads use.
func reported(m Machine, threads int) []reportedLevel {
	var out []reportedLevel
	for _, c := range m.sortedCaches() {
		if c.Bytes > 0 && (len(out) == 0 || out[len(out)-1].level != c.Level) {
			out = append(out, reportedLevel{c.Level, c.Bytes, m.instancesUsed(c, threads)})
		}
	}
	return out
}

// nameLevels names the found levels (by ascending size) after the reported
// levels: each takes the remaining reported level whose capacity for these
// threads is nearest its effective size (in octaves), skipping reported
// levels only to a nearer one; a level past the reported ones is named after
// the one before. It adds the notes, and an entry for each reported level
// left unmatched.
func nameLevels(m Machine, threads int, found []CacheLevel) []CacheLevel {
	rep := reported(m, threads)
	used := make([]bool, len(rep))
	octaves := func(a, b int) float64 { return math.Abs(math.Log2(float64(a) / float64(b))) }
	next, prev := 0, 0 // the first reported level still free; the last level number given
	for k := range found {
		c := &found[k]
		pick := -1
		for j := next; j < len(rep); j++ {
			if pick < 0 || octaves(c.EffectiveBytes, rep[j].total()) < octaves(c.EffectiveBytes, rep[pick].total()) {
				pick = j
			}
		}
		who := ThreadsText(threads)
		if pick < 0 {
			prev++
			c.Level = levelName(prev)
			c.Note = fmt.Sprintf("%s: not reported (sysfs/CPUID), found: serves up to ~%s here at %.3g GB/s (%s)", c.Level, units.Bytes(c.EffectiveBytes), c.TopGBPS, who)
			continue
		}
		r := rep[pick]
		used[pick], next, prev = true, pick+1, r.level
		c.Level = levelName(r.level)
		c.ReportedBytes, c.ReportedInstances = r.bytes, r.instances
		if f := float64(c.EffectiveBytes) / float64(r.total()); f > mismatchFactor || f < 1/float64(mismatchFactor) {
			c.Note = fmt.Sprintf("%s: reported %s, serves up to ~%s here (%s)", c.Level, reportedText(r), units.Bytes(c.EffectiveBytes), who)
		}
	}
	return append(found, notFound(m, threads, used)...)
}

// notFound lists the reported levels not in used (nil: none used) as
// levels the sweep did not find.
func notFound(m Machine, threads int, used []bool) []CacheLevel {
	var out []CacheLevel
	for j, r := range reported(m, threads) {
		if used != nil && used[j] {
			continue
		}
		out = append(out, CacheLevel{
			Level: levelName(r.level), Threads: threads, ReportedBytes: r.bytes, ReportedInstances: r.instances,
			Note: fmt.Sprintf("%s: reported %s, not found: no plateau of its own in the sweep (%s)", levelName(r.level), reportedText(r), ThreadsText(threads)),
		})
	}
	return out
}

// reportedText is "480 MiB", or "2 MiB × 2" for several instances.
func reportedText(r reportedLevel) string {
	if r.instances > 1 {
		return fmt.Sprintf("%s × %d", units.Bytes(r.bytes), r.instances)
	}
	return units.Bytes(r.bytes)
}

// LevelFor names the level a hot working set of `bytes` (all threads
// together) is compared with on `threads` threads: the found cache level
// with the smallest BoundBytes above it, else "DRAM". Peaks without a
// sweep of that thread count (read from older files, built by hand) fall
// back on the sizes m reports (Machine.LevelFor).
func (p Peaks) LevelFor(m Machine, bytes float64, threads int) string {
	level, best, swept := "DRAM", 0, false
	for _, s := range p.Sweeps {
		swept = swept || s.Threads == threads
	}
	for _, c := range p.Caches {
		if c.Threads != threads {
			continue
		}
		swept = true
		if c.Found && bytes < float64(c.BoundBytes) && (best == 0 || c.BoundBytes < best) {
			level, best = c.Level, c.BoundBytes
		}
	}
	if !swept {
		return m.LevelFor(bytes, threads)
	}
	return level
}

// CeilingFor returns the bandwidth of pattern (PatternBandwidthFor) at
// level on threads, or, where that level has none on that thread count (its
// peaks were not planned, or a peaks file predates them), that of the
// nearest larger level that has one, DRAM last; note says so then, naming
// both levels. A larger level's figure is the closest one measured, and a
// result that passes it shows the missing peak as a model error; DRAM's,
// the old fallback, had left 1 Ki vectors from L1 at 154–571% of it when
// the first level went without peaks (docs/architecture.md).
func (p Peaks) CeilingFor(level, pattern string, threads int) (bw BandwidthPeak, note string, ok bool) {
	if bw, ok := p.PatternBandwidthFor(level, pattern, threads); ok {
		return bw, "", true
	}
	own := -1 // level's BoundBytes; DRAM's is past every cache's
	if level != "DRAM" {
		for _, c := range p.Caches {
			if c.Threads == threads && c.Level == level && c.Found {
				own = c.BoundBytes
			}
		}
	}
	var larger []CacheLevel
	for _, c := range p.Caches {
		if c.Threads == threads && c.Found && own >= 0 && c.BoundBytes > own {
			larger = append(larger, c)
		}
	}
	slices.SortFunc(larger, func(a, b CacheLevel) int { return a.BoundBytes - b.BoundBytes })
	for _, c := range append(larger, CacheLevel{Level: "DRAM"}) {
		if c.Level == level {
			continue
		}
		if bw, ok := p.PatternBandwidthFor(c.Level, pattern, threads); ok {
			return bw, fmt.Sprintf("%s has no %s bandwidth peak on %d thread(s): the ceiling is %s's, the nearest larger level measured", level, pattern, threads, c.Level), true
		}
	}
	return BandwidthPeak{}, "", false
}

// LastLevelBytes is where some thread count's sweep found every larger
// working set at DRAM speed (the largest BoundBytes): buffer sets larger
// than it together stream from DRAM. Without a sweep (or a cache found), the
// last-level cache m reports.
func (p Peaks) LastLevelBytes(m Machine) int {
	last := 0
	for _, c := range p.Caches {
		if c.Found {
			last = max(last, c.BoundBytes)
		}
	}
	if last == 0 {
		return m.LastLevelCacheBytes()
	}
	return last
}

// dropLevelsAtDRAM makes DRAM of each level of `threads` threads that the
// sweep found, sysfs/CPUID do not report, and whose read bandwidth (its
// peak, else the sweep's at its plateau's start) is not stepRatio above
// DRAM's read peak: the sweep tells a level from DRAM by its own DRAM
// figure, one long stream that another process streaming memory at the
// same time can halve, and its peak is measured after it. On the Zen 5
// Turin VM one -peak found an "L4" serving up to 362 MiB at 62.2 GB/s
// beside a DRAM read peak of 81.7. Such a level keeps its entry, not
// found, with a note; its bandwidth figures go. The working sets it held
// are DRAM's (LevelFor) where it read slower than DRAM's peak; where it
// read faster (by less than stepRatio), the level before covers them, its
// bound extended to the dropped one's, as findLevels does with DRAM's
// approach: so no working set is compared with a ceiling below what it
// streams.
func (p *Peaks) dropLevelsAtDRAM(threads int) {
	dram, ok := p.PatternBandwidthFor("DRAM", PatternRead, threads)
	if !ok || dram.PatternName() != PatternRead || dram.GBPS <= 0 {
		return
	}
	var dropped []string
	for i := range p.Caches {
		c := &p.Caches[i]
		if c.Threads != threads || !c.Found || c.ReportedBytes > 0 {
			continue
		}
		gbps := c.TopGBPS
		if bw, ok := p.PatternBandwidthFor(c.Level, PatternRead, threads); ok && bw.PatternName() == PatternRead {
			gbps = bw.GBPS
		}
		if gbps >= stepRatio*dram.GBPS {
			continue
		}
		if gbps > dram.GBPS {
			if before := p.foundBefore(i); before != nil {
				before.BoundBytes = max(before.BoundBytes, c.BoundBytes)
			}
		}
		c.Found = false
		c.Note = fmt.Sprintf("%s: not reported (sysfs/CPUID), a plateau of the sweep up to ~%s at %.3g GB/s, taken as DRAM: not %g× DRAM's read peak, %.3g GB/s (%s)",
			c.Level, units.Bytes(c.EffectiveBytes), gbps, stepRatio, dram.GBPS, ThreadsText(threads))
		dropped = append(dropped, c.Level)
	}
	if len(dropped) == 0 {
		return
	}
	p.Bandwidth = slices.DeleteFunc(p.Bandwidth, func(b BandwidthPeak) bool {
		return b.Threads == threads && slices.Contains(dropped, b.Level)
	})
}

// foundBefore is the found level of p.Caches[i]'s threads with the largest
// bound below its own, nil if none.
func (p *Peaks) foundBefore(i int) *CacheLevel {
	var before *CacheLevel
	for j := range p.Caches {
		c := &p.Caches[j]
		if j != i && c.Threads == p.Caches[i].Threads && c.Found && c.BoundBytes < p.Caches[i].BoundBytes && (before == nil || c.BoundBytes > before.BoundBytes) {
			before = c
		}
	}
	return before
}

// CachesFor returns the cache levels of `threads` threads: found ones by
// size, then reported ones not found.
func (p Peaks) CachesFor(threads int) []CacheLevel {
	var out []CacheLevel
	for _, c := range p.Caches {
		if c.Threads == threads {
			out = append(out, c)
		}
	}
	return out
}

// EffectiveBytes is where the sweep at threads found level's plateau end
// (CacheLevel.EffectiveBytes), and whether it found that level.
func (p Peaks) EffectiveBytes(level string, threads int) (int, bool) {
	for _, c := range p.Caches {
		if c.Threads == threads && c.Level == level && c.Found {
			return c.EffectiveBytes, true
		}
	}
	return 0, false
}
