//go:build !cgo

package cblas

func (l *Library) dftHas() bool { return false }

func (l *Library) jobDFT(dt DType, s DFTSpec, opt JobOptions) (jobPtr, float64, error) {
	panic(unreachable)
}
