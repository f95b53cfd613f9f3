// Package tunetest gives the kernel packages' tests the tunings that must
// not change a result: the extremes of every parameter.
package tunetest

import "github.com/peakbench/peakbench/gobackend/tune"

// Extremes returns every parameter at its least value (0: split whatever
// the length; GEMM's first micro-kernel shape) and every parameter at its
// largest (tune.MaxPieceBytes: never split; GEMM's last shape).
func Extremes() []tune.Params {
	var lo, hi tune.Params
	for _, f := range hi.Fields() {
		*f.Ptr = tune.MaxPieceBytes
	}
	hi.GEMM.Shape = tune.PerDType{F32: tune.ShapeWide, F64: tune.ShapeWide}
	return []tune.Params{lo, hi}
}

// WithExtremes runs f under each of Extremes, then puts back the
// parameters that were in force.
func WithExtremes(f func()) {
	defer tune.Save().Restore()
	for _, p := range Extremes() {
		tune.Apply(p, "test")
		f()
	}
}

// With applies the parameters in force as set changes them and returns
// what puts back those in force before: defer tunetest.With(…)().
func With(set func(p *tune.Params)) (restore func()) {
	s := tune.Save()
	p := *tune.Current()
	set(&p)
	tune.Apply(p, "test")
	return s.Restore
}
