package chart

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/peakbench/peakbench/bench/result"
)

// accuracyPlot draws the verified results of one quantization op that
// carry their error (result.QuantSQNRdB): speed across, SQNR up, one point
// per result, shaped and coloured by backend and labelled by dtype and
// shape — what a lower-precision type costs in accuracy against what it
// buys in speed. It returns nil when no result of op has an SQNR.
func accuracyPlot(op string, rs []*result.Result, pal *Palette, title string) *plot.Plot {
	var pts []*result.Result
	for _, r := range rs {
		if r.Error == "" && r.Verified && r.QuantSQNRdB != nil && r.MedianNS > 0 {
			pts = append(pts, r)
		}
	}
	if len(pts) == 0 {
		return nil
	}
	// qlinear is arithmetic (an integer gemm); the element-wise ops move bytes.
	speed, unit := func(r *result.Result) float64 { return r.GBPS }, "GB/s"
	if op == "qlinear" {
		speed, unit = func(r *result.Result) float64 { return r.GFLOPS }, "GFLOP/s"
	}
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text = unit
	p.Y.Label.Text = "SQNR (dB, higher is more accurate)"
	var labels []pointLabel
	for _, name := range pal.names {
		var xys plotter.XYs
		for _, r := range pts {
			if r.Series() != name {
				continue
			}
			xys = append(xys, plotter.XY{X: speed(r), Y: *r.QuantSQNRdB})
			labels = append(labels, pointLabel{X: speed(r), Y: *r.QuantSQNRdB, Text: fmt.Sprintf("%s %s", result.DTypeName(r), r.Shape)})
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		s.GlyphStyle = pal.glyph(name)
		p.Add(s)
		p.Legend.Add(name, s)
	}
	xs := make([]float64, len(labels))
	for i, l := range labels {
		xs[i] = l.X
	}
	p.X.Min, p.X.Max = 0, slices.Max(xs)*1.25
	p.Add(&pointLabels{labels: labels})
	p.Legend.Top = true
	return p
}

// accuracyWidth and accuracyHeight size an accuracy chart.
const (
	accuracyWidth  = 7 * vg.Inch
	accuracyHeight = 4.5 * vg.Inch
)
