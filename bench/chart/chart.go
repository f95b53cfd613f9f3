package chart

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/peakbench/peakbench/bench/internal/units"
	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/platform"
	"github.com/peakbench/peakbench/bench/result"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Charts
//
// A roofline is drawn per device and thread count: a result is a share of the
// peaks of the cores (or the GPU) it ran on, so results at different thread
// counts, or on different devices, sit under different roofs. The ceilings of
// the host CPU come from run.Peaks at the result's thread count. A device
// without entries there (a GPU, until peak.Peaks grows device entries) gets
// the ceilings its own results carry in their "peak" field; a device with
// neither gets its points and no roof. Adding a device's peaks therefore
// needs one change, in deviceCeilings.

// Formats are the image formats WriteRoofline writes.
var Formats = []string{"svg", "png"}

const (
	rooflineWidth  = 10 * vg.Inch
	rooflineHeight = 6.5 * vg.Inch
	shareHeight    = 3.4 * vg.Inch
	pngDPI         = 144
)

// chartGroup is the results that share one roof: one device, one thread count.
type chartGroup struct {
	Device  string // as results name it
	Host    bool   // the host CPU, whose roofs are the machine's
	Threads int
	Results []*result.Result // those that ran and passed verification
}

// chartGroups returns the groups of run's correct results, the host CPU first,
// then by device name and thread count.
func chartGroups(run *result.Run) []chartGroup {
	var gs []chartGroup
	for i := range run.Results {
		r := &run.Results[i]
		if r.Error != "" || !r.Verified || r.GFLOPS <= 0 || r.Intensity <= 0 {
			continue
		}
		dev, host := deviceOf(r)
		j := slices.IndexFunc(gs, func(g chartGroup) bool { return g.Device == dev && g.Threads == r.Threads })
		if j < 0 {
			gs = append(gs, chartGroup{Device: dev, Host: host, Threads: r.Threads})
			j = len(gs) - 1
		}
		gs[j].Results = append(gs[j].Results, r)
	}
	slices.SortStableFunc(gs, func(a, b chartGroup) int {
		if a.Device != b.Device {
			if a.Host {
				return -1
			}
			if b.Host {
				return 1
			}
			return strings.Compare(a.Device, b.Device)
		}
		return a.Threads - b.Threads
	})
	return gs
}

// deviceOf names r's device and says whether it is the host CPU (whose
// name older files leave out).
func deviceOf(r *result.Result) (name string, host bool) {
	if r.OnCPU() {
		return platform.HostCPU().String(), true
	}
	return r.Device, false
}

// computeCeiling is a horizontal roof: the compute peak of one unit
// (peak.UnitFMA, peak.UnitAVX512BF16, …) for the dtypes it runs at that
// rate. Roofs are kept per unit: bf16 on the FMAs (converted to f32) and
// bf16 on VDPBF16PS are two peaks, and merging them by dtype drew the f32
// roof at the dot-product unit's twice higher one.
type computeCeiling struct {
	Unit      string // "" for the FMAs (and in older files)
	DTypes    []string
	GFLOPS    float64
	Empirical bool // measured by a kernel, else theoretical
}

func (c computeCeiling) label() string {
	name := strings.Join(c.DTypes, "/")
	kind := "peak"
	if c.Unit != "" {
		name += " " + c.Unit
		if c.Empirical {
			kind = "kernel"
		}
	} else if c.Empirical {
		kind = "FMA kernel"
	}
	return fmt.Sprintf("%s %s %s GFLOP/s", name, kind, units.Sig(c.GFLOPS))
}

// ceilingUnit is the roof key of a compute unit's name: "" for the FMAs.
func ceilingUnit(unit string) string {
	if unit == peak.UnitFMA {
		return ""
	}
	return unit
}

// bandwidthCeiling is a diagonal roof: a memory level's bandwidth, the
// fastest of the access patterns measured there (so that no result of that
// level plots above its roof), with the pattern that reached it.
type bandwidthCeiling struct {
	Level   string
	Pattern string
	GBPS    float64
}

// ceilings are the roofs of one chart group.
type ceilings struct {
	Compute   []computeCeiling
	Bandwidth []bandwidthCeiling // fastest first
	// FromResults is set when the roofs come from the results' own peak
	// references rather than from run.Peaks.
	FromResults bool
}

func (c ceilings) empty() bool { return len(c.Compute) == 0 && len(c.Bandwidth) == 0 }

// maxCompute is the highest compute roof (0 when none).
func (c ceilings) maxCompute() float64 {
	m := 0.0
	for _, cc := range c.Compute {
		m = max(m, cc.GFLOPS)
	}
	return m
}

// deviceCeilings returns the roofs of group g.
func deviceCeilings(run *result.Run, g chartGroup) ceilings {
	var c ceilings
	if g.Host {
		// The roofs of the units the group's results ran on: a machine
		// lists several for a dtype (-peak), and a roof no point is
		// compared with only crowds the chart.
		used := map[string]bool{}
		for _, r := range g.Results {
			used[ceilingUnit(r.Peak.ComputeUnit)] = true
		}
		for _, p := range run.Peaks.Compute {
			if u := ceilingUnit(p.Unit); p.Threads == g.Threads && used[u] {
				c.addCompute(u, p.DType, p.TheoreticalGFLOPS, false)
				c.addCompute(u, p.DType, p.EmpiricalGFLOPS, true)
			}
		}
		for _, b := range run.Peaks.Bandwidth {
			if b.Threads == g.Threads {
				c.addBandwidth(b.Level, b.Pattern, b.GBPS)
			}
		}
	}
	if c.empty() {
		// Another device, or peaks measured at other thread counts: use
		// the ceilings the results were computed against.
		c.FromResults = true
		for _, r := range g.Results {
			u := ceilingUnit(r.Peak.ComputeUnit)
			c.addCompute(u, r.DType, r.Peak.ComputeTheoreticalGFLOPS, false)
			c.addCompute(u, r.DType, r.Peak.ComputeEmpiricalGFLOPS, true)
			c.addBandwidth(r.Peak.BandwidthLevel, r.Peak.BandwidthPattern, r.Peak.BandwidthGBPS)
		}
	}
	slices.SortStableFunc(c.Bandwidth, func(a, b bandwidthCeiling) int { return cmp.Compare(b.GBPS, a.GBPS) })
	slices.SortStableFunc(c.Compute, func(a, b computeCeiling) int { return cmp.Compare(b.GFLOPS, a.GFLOPS) })
	return c
}

func (c *ceilings) addCompute(unit, dtype string, gflops float64, empirical bool) {
	if gflops <= 0 || math.IsInf(gflops, 0) || math.IsNaN(gflops) {
		return
	}
	for i := range c.Compute {
		cc := &c.Compute[i]
		if cc.Unit != unit || cc.Empirical != empirical {
			continue
		}
		if math.Abs(cc.GFLOPS-gflops) <= 1e-9*gflops {
			if !slices.Contains(cc.DTypes, dtype) {
				cc.DTypes = append(cc.DTypes, dtype)
			}
			return
		}
		if slices.Contains(cc.DTypes, dtype) {
			cc.GFLOPS = max(cc.GFLOPS, gflops) // several results' references: keep the highest
			return
		}
	}
	c.Compute = append(c.Compute, computeCeiling{Unit: unit, DTypes: []string{dtype}, GFLOPS: gflops, Empirical: empirical})
}

func (c *ceilings) addBandwidth(level, pattern string, gbps float64) {
	if level == "" || gbps <= 0 || math.IsInf(gbps, 0) || math.IsNaN(gbps) {
		return
	}
	for i := range c.Bandwidth {
		if b := &c.Bandwidth[i]; b.Level == level {
			if gbps > b.GBPS {
				b.GBPS, b.Pattern = gbps, pattern
			}
			return
		}
	}
	c.Bandwidth = append(c.Bandwidth, bandwidthCeiling{Level: level, Pattern: pattern, GBPS: gbps})
}

// Palette gives every backend one colour and one glyph, the same in every
// chart of a report.
type Palette struct{ names []string }

// NewPalette orders backends as the runs list them.
func NewPalette(runs ...*result.Run) *Palette {
	p := &Palette{}
	for _, run := range runs {
		for _, b := range run.Backends {
			p.add(b.Name)
		}
		for _, r := range run.Results {
			p.add(r.Series())
		}
	}
	return p
}

func (p *Palette) add(name string) {
	if !slices.Contains(p.names, name) {
		p.names = append(p.names, name)
	}
}

// Okabe–Ito colours, distinguishable with the common colour-vision deficiencies.
var backendColors = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xA8, 0x93, 0x00, 0xff}, // dark yellow
}

var backendGlyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{},
}

func (p *Palette) index(name string) int {
	p.add(name)
	return slices.Index(p.names, name)
}

func (p *Palette) color(name string) color.Color {
	return backendColors[p.index(name)%len(backendColors)]
}

// glyph cycles shapes at a different period from colours, so that more than
// eight backends still differ in one of the two.
func (p *Palette) glyph(name string) draw.GlyphStyle {
	i := p.index(name)
	return draw.GlyphStyle{Color: p.color(name), Radius: vg.Points(4), Shape: backendGlyphs[(i+i/len(backendColors))%len(backendGlyphs)]}
}

var (
	sansFont     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	ceilingColor = color.RGBA{0x44, 0x44, 0x44, 0xff}
	bwColor      = color.RGBA{0x66, 0x66, 0x88, 0xff}
	gridColor    = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
)

// newPlot is plot.New with sans-serif text throughout.
func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = font.From(sansFont, 13)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 11)
		a.Tick.Label.Font = font.From(sansFont, 10)
	}
	p.Legend.TextStyle.Font = font.From(sansFont, 10)
	return p
}

func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(sansFont, size), Handler: plot.DefaultTextHandler}
}

// rooflinePlot draws group g of run: its roofs, and a point per result at
// (intensity, GFLOP/s), shaped and coloured by backend and labelled by op.
func rooflinePlot(run *result.Run, g chartGroup, pal *Palette, title string) *plot.Plot {
	c := deviceCeilings(run, g)
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text = "arithmetic intensity (FLOP/byte)"
	p.Y.Label.Text = "GFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.Add(logGrid{})

	// Ranges: every point, every ridge (where a bandwidth roof meets the
	// highest compute roof), with room around them.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range g.Results {
		xlo, xhi = min(xlo, r.Intensity), max(xhi, r.Intensity)
		ylo, yhi = min(ylo, r.GFLOPS), max(yhi, r.GFLOPS)
	}
	top := c.maxCompute()
	for _, b := range c.Bandwidth {
		if top > 0 {
			ridge := top / b.GBPS
			xlo, xhi = min(xlo, ridge), max(xhi, ridge)
		}
	}
	for _, cc := range c.Compute {
		ylo, yhi = min(ylo, cc.GFLOPS), max(yhi, cc.GFLOPS)
	}
	xlo, xhi = xlo/4, xhi*4
	if len(c.Bandwidth) > 0 {
		ylo = min(ylo, c.Bandwidth[len(c.Bandwidth)-1].GBPS*xlo*2)
	}
	ylo, yhi = ylo/3, yhi*3
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xlo, xhi, ylo, yhi

	taken := new([]vg.Rectangle) // label areas the point labels avoid
	if !c.empty() {
		p.Add(&roofs{c: c, top: top, taken: taken})
	} else {
		p.Title.Text += " (no peaks known for this device)"
	}

	// Points, one series per backend in Palette order.
	var (
		labels []pointLabel
		dtypes []string
	)
	for _, r := range g.Results {
		if !slices.Contains(dtypes, r.DType) {
			dtypes = append(dtypes, r.DType)
		}
	}
	for _, name := range pal.names {
		var xys plotter.XYs
		for _, r := range g.Results {
			if r.Series() != name {
				continue
			}
			xys = append(xys, plotter.XY{X: r.Intensity, Y: r.GFLOPS})
			l := r.Op
			if len(dtypes) > 1 {
				l += " " + r.DType
			}
			labels = append(labels, pointLabel{X: r.Intensity, Y: r.GFLOPS, Text: l})
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			continue // unreachable: finite points
		}
		s.GlyphStyle = pal.glyph(name)
		p.Add(s)
		p.Legend.Add(name, s)
	}
	p.Add(&pointLabels{labels: labels, taken: taken})
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), vg.Points(-8)
	return p
}

// logTicks marks every 1..9 × 10^k and labels powers of ten (and 2 and 5
// when the axis spans two decades or less).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	elo, ehi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	dense := ehi-elo <= 2
	var ticks []plot.Tick
	for e := elo; e <= ehi; e++ {
		base := math.Pow(10, e)
		for i := 1; i < 10; i++ {
			v := base * float64(i)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if i == 1 || dense && (i == 2 || i == 5) {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// logGrid draws light lines at the labelled ticks of both axes.
type logGrid struct{}

func (logGrid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := draw.LineStyle{Color: gridColor, Width: vg.Points(0.5)}
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.Label != "" {
			x := trX(t.Value)
			c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
		}
	}
	for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if t.Label != "" {
			y := trY(t.Value)
			c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
		}
	}
}

// roofs draws the ceilings with their labels: a bandwidth diagonal per
// memory level up to the highest compute roof, a horizontal line per compute
// peak from the fastest diagonal on (solid: theoretical; dashed: measured).
type roofs struct {
	c     ceilings
	top   float64
	taken *[]vg.Rectangle // where the labels went
}

// takeText records the area of a text of size w × h drawn from at (its
// lower-left corner) at angle ang, as squares along its length.
func takeText(taken *[]vg.Rectangle, at vg.Point, w, h vg.Length, ang float64) {
	if taken == nil {
		return
	}
	cos, sin := vg.Length(math.Cos(ang)), vg.Length(math.Sin(ang))
	for d := vg.Length(0); d < w+h/2; d += h / 2 {
		ctr := vg.Point{X: at.X + d*cos - h/2*sin, Y: at.Y + d*sin + h/2*cos}
		*taken = append(*taken, vg.Rectangle{Min: vg.Point{X: ctr.X - h/2, Y: ctr.Y - h/2}, Max: vg.Point{X: ctr.X + h/2, Y: ctr.Y + h/2}})
	}
}

func (rf *roofs) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lw := vg.Points(1.2)
	xmin, xmax, ymin := p.X.Min, p.X.Max, p.Y.Min
	small := textStyle(9, ceilingColor)
	// Labels of lines closer than a text line to the previous one move
	// further along their line, past the previous label.
	var prevY func(x float64) vg.Length
	var prevEnd vg.Length
	for _, b := range rf.c.Bandwidth {
		x0 := max(xmin, ymin/b.GBPS)
		x1 := xmax
		if rf.top > 0 {
			x1 = min(xmax, rf.top/b.GBPS)
		}
		if x1 <= x0 {
			continue
		}
		a := vg.Point{X: trX(x0), Y: trY(b.GBPS * x0)}
		z := vg.Point{X: trX(x1), Y: trY(b.GBPS * x1)}
		c.StrokeLines(draw.LineStyle{Color: bwColor, Width: lw}, c.ClipLinesXY([]vg.Point{a, z})...)
		// The label runs along the line, above it, a little way in from
		// where the line enters the chart.
		ang := math.Atan2(float64(z.Y-a.Y), float64(z.X-a.X))
		sty := textStyle(9, bwColor)
		sty.Rotation = ang
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		label := fmt.Sprintf("%s %s GB/s", b.Level, units.Sig(b.GBPS))
		if b.Pattern != "" {
			label = fmt.Sprintf("%s %s %s GB/s", b.Level, b.Pattern, units.Sig(b.GBPS))
		}
		d := vg.Points(14)
		if prevY != nil {
			if apart := (prevY(x0) - a.Y) * vg.Length(math.Cos(ang)); apart < 1.4*sty.Height(label) {
				d = prevEnd + vg.Points(16)
			}
		}
		gbps := b.GBPS
		prevY = func(x float64) vg.Length { return trY(gbps * x) }
		prevEnd = d + sty.Width(label)
		at := vg.Point{X: a.X + d*vg.Length(math.Cos(ang)) - 2*vg.Length(math.Sin(ang)), Y: a.Y + d*vg.Length(math.Sin(ang)) + 2*vg.Length(math.Cos(ang))}
		c.FillText(sty, at, label)
		takeText(rf.taken, at, sty.Width(label), sty.Height(label), ang)
	}
	fastest := 0.0
	if len(rf.c.Bandwidth) > 0 {
		fastest = rf.c.Bandwidth[0].GBPS
	}
	// Lines first, then labels: each at the right end of its line, above a
	// theoretical peak and below a measured one, or else the first free
	// place among the other side and further left along the line.
	for _, cc := range rf.c.Compute {
		x0 := xmin
		if fastest > 0 {
			x0 = max(xmin, cc.GFLOPS/fastest)
		}
		sty := draw.LineStyle{Color: ceilingColor, Width: lw}
		if cc.Empirical {
			sty.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		y := trY(cc.GFLOPS)
		c.StrokeLine2(sty, trX(x0), y, c.Max.X, y)
	}
	// Labels avoid each other and the other compute lines.
	var labelled []vg.Rectangle
	for _, cc := range rf.c.Compute {
		x0 := xmin
		if fastest > 0 {
			x0 = max(xmin, cc.GFLOPS/fastest)
		}
		y := trY(cc.GFLOPS)
		labelled = append(labelled, vg.Rectangle{Min: vg.Point{X: trX(x0), Y: y - 0.5}, Max: vg.Point{X: c.Max.X, Y: y + 0.5}})
	}
	for _, cc := range rf.c.Compute {
		y := trY(cc.GFLOPS)
		label := cc.label()
		w, h := small.Width(label), small.Height(label)
		gap := vg.Points(2)
		above, below := y+gap, y-gap-h // lower edges
		sides := []vg.Length{above, below}
		if cc.Empirical {
			sides = []vg.Length{below, above}
		}
		var chosen vg.Rectangle
		found := false
		for shift := 0; shift < 4 && !found; shift++ {
			right := c.Max.X - vg.Points(4) - vg.Length(shift)*(w+vg.Points(24))
			for _, bottom := range sides {
				r := vg.Rectangle{Min: vg.Point{X: right - w, Y: bottom}, Max: vg.Point{X: right, Y: bottom + h}}
				if !slices.ContainsFunc(labelled, func(o vg.Rectangle) bool { return overlap(r, o) }) {
					chosen, found = r, true
					break
				}
			}
		}
		if !found {
			chosen = vg.Rectangle{Min: vg.Point{X: c.Max.X - vg.Points(4) - w, Y: sides[0]}, Max: vg.Point{X: c.Max.X - vg.Points(4), Y: sides[0] + h}}
		}
		labelled = append(labelled, chosen)
		lsty := small
		lsty.XAlign, lsty.YAlign = draw.XLeft, draw.YBottom
		c.FillText(lsty, chosen.Min, label)
		takeText(rf.taken, chosen.Min, w, h, 0)
	}
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// pointLabel is the text shown beside one point.
type pointLabel struct {
	X, Y float64
	Text string
}

// pointLabels draws each point's label beside it, trying eight positions
// around the point in turn and taking the first that overlaps no label
// or point already drawn; a label identical to that of a point a couple
// of text lines away is left out.
type pointLabels struct {
	labels []pointLabel
	taken  *[]vg.Rectangle // areas to avoid, drawn before
}

func (pl *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(8, color.RGBA{0x22, 0x22, 0x22, 0xff})
	h := sty.Height("M")
	type box struct {
		min, max vg.Point
		text     string
		at       vg.Point // the labelled point
	}
	var placed []box
	if pl.taken != nil {
		for _, r := range *pl.taken {
			placed = append(placed, box{min: r.Min, max: r.Max})
		}
	}
	// Every point is an obstacle too.
	for _, l := range pl.labels {
		pt := vg.Point{X: trX(l.X), Y: trY(l.Y)}
		r := vg.Points(4)
		placed = append(placed, box{min: vg.Point{X: pt.X - r, Y: pt.Y - r}, max: vg.Point{X: pt.X + r, Y: pt.Y + r}})
	}
	overlaps := func(b box) bool {
		for _, o := range placed {
			if b.min.X < o.max.X && o.min.X < b.max.X && b.min.Y < o.max.Y && o.min.Y < b.max.Y {
				return true
			}
		}
		return false
	}
	gap := vg.Points(6)
	for _, l := range pl.labels {
		pt := vg.Point{X: trX(l.X), Y: trY(l.Y)}
		if !c.Contains(pt) {
			continue
		}
		w := sty.Width(l.Text)
		dup := slices.ContainsFunc(placed, func(o box) bool {
			return o.text == l.Text && math.Abs(float64(o.at.X-pt.X)) < float64(2*h) && math.Abs(float64(o.at.Y-pt.Y)) < float64(2*h)
		})
		if dup {
			continue
		}
		cands := []vg.Point{ // lower-left corners
			{X: pt.X + gap, Y: pt.Y - h/2},           // right
			{X: pt.X - gap - w, Y: pt.Y - h/2},       // left
			{X: pt.X - w/2, Y: pt.Y + gap},           // above
			{X: pt.X - w/2, Y: pt.Y - gap - h},       // below
			{X: pt.X + gap, Y: pt.Y + gap/2},         // upper right
			{X: pt.X + gap, Y: pt.Y - gap/2 - h},     // lower right
			{X: pt.X - gap - w, Y: pt.Y + gap/2},     // upper left
			{X: pt.X - gap - w, Y: pt.Y - gap/2 - h}, // lower left
		}
		chosen := cands[0]
		for _, cd := range cands {
			b := box{min: cd, max: vg.Point{X: cd.X + w, Y: cd.Y + h}}
			if b.min.X >= c.Min.X && b.max.X <= c.Max.X && b.min.Y >= c.Min.Y && b.max.Y <= c.Max.Y && !overlaps(b) {
				chosen = cd
				break
			}
		}
		placed = append(placed, box{min: chosen, max: vg.Point{X: chosen.X + w, Y: chosen.Y + h}, text: l.Text, at: pt})
		s := sty
		s.XAlign, s.YAlign = draw.XLeft, draw.YBottom
		c.FillText(s, chosen, l.Text)
	}
}

// sharePlot is a bar chart of one op's results: a group of bars per workload
// (dtype, shape, threads), one bar per backend, its height the share of the
// roofline bound in percent. It returns the plot and the width it needs.
func sharePlot(op string, rs []*result.Result, pal *Palette, title string) (*plot.Plot, vg.Length) {
	type wk struct {
		dtype, shape, cache string
		threads             int
	}
	var (
		groups   []wk
		backends []string
	)
	threads := map[int]bool{}
	for _, r := range rs {
		k := wk{r.DType, r.Shape, r.Cache, r.Threads}
		if !slices.Contains(groups, k) {
			groups = append(groups, k)
		}
		threads[r.Threads] = true
	}
	for _, n := range pal.names {
		if slices.ContainsFunc(rs, func(r *result.Result) bool { return r.Series() == n }) {
			backends = append(backends, n)
		}
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.dtype + " " + g.shape
		if len(threads) > 1 {
			names[i] += fmt.Sprintf(" ×%d", g.threads)
		}
		if g.cache == "cold" {
			names[i] += " cold"
		}
	}
	barW := vg.Points(16)
	p := newPlot()
	p.Title.Text = title
	p.Y.Label.Text = "% of roofline bound"
	p.Add(&hline{y: 100, label: "100% = roofline bound"})
	top := 100.0
	var labels []barLabel
	for bi, name := range backends {
		vals := make(plotter.Values, len(groups))
		for gi, g := range groups {
			for _, r := range rs {
				if r.Series() != name || (wk{r.DType, r.Shape, r.Cache, r.Threads}) != g {
					continue
				}
				l := barLabel{group: gi, bar: bi}
				switch {
				case r.Error != "":
					l.text = "error"
				case !r.Verified:
					l.text = "wrong"
				default:
					vals[gi] = 100 * r.Share.Roofline
					top = max(top, vals[gi])
					l.y, l.text = vals[gi], fmt.Sprintf("%.0f", vals[gi])
				}
				labels = append(labels, l)
			}
		}
		b, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			continue
		}
		b.Color = pal.color(name)
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(bi) - vg.Length(len(backends)-1)/2) * barW
		p.Add(b)
		p.Legend.Add(name, b)
	}
	p.Add(&barLabels{labels: labels, barW: barW, n: len(backends)})
	p.NominalX(names...)
	p.Y.Padding = 0 // NominalX makes room for the first label, which X.Min already does
	p.Y.Min, p.Y.Max = 0, top*(1.12+0.07*float64(len(backends)))
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Legend.Top = true
	p.Legend.Left = false
	// Each group is as wide as its bars or its label; when that makes the
	// chart too wide, the labels slant instead.
	maxLabel := vg.Length(0)
	for _, n := range names {
		maxLabel = max(maxLabel, p.X.Tick.Label.Width(n))
	}
	bars := barW*vg.Length(len(backends)) + vg.Points(18)
	groupW := max(bars, maxLabel+vg.Points(12))
	if groupW*vg.Length(len(groups)) > 13*vg.Inch {
		groupW = bars
		p.X.Tick.Label.Rotation = math.Pi / 8
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	return p, max(5*vg.Inch, groupW*vg.Length(len(groups))+1.2*vg.Inch)
}

// hline is a dashed horizontal reference line with a label at its left end.
type hline struct {
	y     float64
	label string
}

func (h *hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(draw.LineStyle{Color: ceilingColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, c.Min.X, y, c.Max.X, y)
	sty := textStyle(8, ceilingColor)
	sty.YAlign = draw.YBottom
	c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(4), Y: y + vg.Points(2)}, h.label)
}

// barLabel is the text above one bar: its value, "wrong" for a failed
// verification, "error" when it could not run.
type barLabel struct {
	group, bar int
	y          float64
	text       string
}

type barLabels struct {
	labels []barLabel
	barW   vg.Length
	n      int // bars per group
}

func (bl *barLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(7, color.RGBA{0x22, 0x22, 0x22, 0xff})
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	for _, l := range bl.labels {
		x := trX(float64(l.group)) + (vg.Length(l.bar)-vg.Length(bl.n-1)/2)*bl.barW
		c.FillText(sty, vg.Point{X: x, Y: trY(l.y) + vg.Points(2)}, l.text)
	}
}

// render draws plots stacked vertically (each w × its height) into an
// image of the given format.
func render(format string, w vg.Length, plots []*plot.Plot, heights []vg.Length) (out []byte, err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("drawing the chart: %v", e)
		}
	}()
	total := vg.Length(0)
	for _, h := range heights {
		total += h
	}
	var (
		cv  vg.CanvasWriterTo
		svg *vgsvg.Canvas
	)
	switch format {
	case "svg":
		svg = vgsvg.New(w, total)
		cv = svg
	case "png":
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, total), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	default:
		return nil, fmt.Errorf("unknown chart format %q (accepted: %s)", format, strings.Join(Formats, ", "))
	}
	dc := draw.New(cv)
	y := total
	for i, p := range plots {
		y -= heights[i]
		p.Draw(draw.Crop(dc, 0, 0, y, -(total - y - heights[i])))
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == "svg" {
		return fixSVGFonts(buf.Bytes()), nil
	}
	return buf.Bytes(), nil
}

var svgFontFamily = regexp.MustCompile(`font-family:Liberation (Sans|Serif|Mono)`)

// fixSVGFonts names metric-compatible fallbacks after the Liberation fonts
// the chart was laid out with, so that a browser without them keeps the
// label widths.
func fixSVGFonts(svg []byte) []byte {
	return svgFontFamily.ReplaceAllFunc(svg, func(m []byte) []byte {
		switch {
		case bytes.HasSuffix(m, []byte("Sans")):
			return []byte(`font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif`)
		case bytes.HasSuffix(m, []byte("Serif")):
			return []byte(`font-family:'Liberation Serif',Tinos,'Times New Roman',serif`)
		}
		return []byte(`font-family:'Liberation Mono',Cousine,'Courier New',monospace`)
	})
}

// RunCharts are the charts of one run.
type RunCharts struct {
	Rooflines []Chart
	Shares    []Chart // one per op; a quantization op's accuracy chart follows its share chart
}

// Chart is one chart laid out, ready to render.
type Chart struct {
	Title string
	plot  *plot.Plot
	w, h  vg.Length
}

// ForRun lays out every chart of run; label, when set, names the run in
// the titles.
func ForRun(run *result.Run, pal *Palette, label string) RunCharts {
	var rc RunCharts
	suffix := ""
	if label != "" {
		suffix = " — " + label
	}
	for _, g := range chartGroups(run) {
		t := fmt.Sprintf("Roofline: %s, %d thread%s%s", g.Device, g.Threads, plural(g.Threads), suffix)
		if g.Host && run.Machine.Model != "" {
			t = fmt.Sprintf("Roofline: %s, %d thread%s%s", run.Machine.Model, g.Threads, plural(g.Threads), suffix)
		}
		rc.Rooflines = append(rc.Rooflines, Chart{Title: t, plot: rooflinePlot(run, g, pal, t), w: rooflineWidth, h: rooflineHeight})
	}
	var ops []string
	byOp := map[string][]*result.Result{}
	for i := range run.Results {
		r := &run.Results[i]
		if !slices.Contains(ops, r.Op) {
			ops = append(ops, r.Op)
		}
		byOp[r.Op] = append(byOp[r.Op], r)
	}
	for _, op := range ops {
		rs := byOp[op]
		if !slices.ContainsFunc(rs, func(r *result.Result) bool { return r.Error == "" && r.Verified }) {
			continue // nothing to draw
		}
		t := fmt.Sprintf("%s: share of the roofline bound%s", op, suffix)
		p, w := sharePlot(op, rs, pal, t)
		rc.Shares = append(rc.Shares, Chart{Title: t, plot: p, w: w, h: shareHeight})
		t = fmt.Sprintf("%s: accuracy against speed%s", op, suffix)
		if p := accuracyPlot(op, rs, pal, t); p != nil {
			rc.Shares = append(rc.Shares, Chart{Title: t, plot: p, w: accuracyWidth, h: accuracyHeight})
		}
	}
	return rc
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// SVG renders the chart for inlining in HTML: no XML prelude, and no fixed
// size, so that CSS scales it (the viewBox keeps its proportions).
func (c Chart) SVG() (string, error) {
	b, err := render("svg", c.w, []*plot.Plot{c.plot}, []vg.Length{c.h})
	if err != nil {
		return "", err
	}
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = svgSize.ReplaceAllString(s, `<svg class="chart" role="img" aria-label="`+htmlAttr(c.Title)+`" `)
	return s, nil
}

// WidthPx is the chart's width in CSS pixels (96 per inch).
func (c Chart) WidthPx() int { return int(c.w.Points()*96/72 + 0.5) }

var svgSize = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*" `)

func htmlAttr(s string) string {
	r := strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", `'`, "&#39;")
	return r.Replace(s)
}

// WriteRoofline draws run's roofline charts, one per device and thread count
// stacked vertically, as an SVG or PNG image.
func WriteRoofline(w io.Writer, run *result.Run, format string) error {
	rc := ForRun(run, NewPalette(run), "")
	if len(rc.Rooflines) == 0 {
		return fmt.Errorf("no result to chart: none ran and passed verification")
	}
	var (
		plots   []*plot.Plot
		heights []vg.Length
	)
	for _, c := range rc.Rooflines {
		plots = append(plots, c.plot)
		heights = append(heights, c.h)
	}
	b, err := render(format, rooflineWidth, plots, heights)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
