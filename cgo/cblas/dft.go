package cblas

import (
	"fmt"
	"math"
	"time"

	"github.com/peakbench/peakbench/native"
)

// DFTKind is a discrete Fourier transform MKL's DFTI computes (the C
// layer's pb_dft_kind, shared with cuFFT's: native.FFTKind).
type DFTKind = native.FFTKind

// The transforms.
const (
	DFTForward  = native.FFTForward  // complex → complex, e^(−2πi·jk/n)
	DFTBackward = native.FFTBackward // complex → complex, e^(+2πi·jk/n), unnormalized
	DFTR2C      = native.FFTR2C      // real → the n/2+1 complex outputs of the last dimension
)

// DFTSpec describes a batch of transforms (native.FFTSpec).
type DFTSpec = native.FFTSpec

// HasDFT reports whether the library is MKL and exports the DFTI calls.
func (l *Library) HasDFT() bool {
	l.check()
	return l.dftHas()
}

// PrepareDFT prepares s's transforms in dt (F32: complex64, F64:
// complex128), out of place, through MKL's DFTI: a descriptor committed
// for opt.Threads threads. Arguments: 0 the input (interleaved complex;
// reals for DFTR2C), 1 the output (interleaved complex; DFTR2C: each row's
// n/2+1 outputs). It also returns the time DftiCommitDescriptor took. A
// library other than MKL, or a transform DFTI refuses, wraps
// ErrUnsupported.
func (l *Library) PrepareDFT(dt DType, s DFTSpec, opt JobOptions) (*Job, time.Duration, error) {
	l.check()
	if s.Kind < DFTForward || s.Kind > DFTR2C || len(s.Dims) < 1 || len(s.Dims) > 2 {
		return nil, 0, fmt.Errorf("cblas: %s: dft: bad transform %v of rank %d", l.name, s.Kind, len(s.Dims))
	}
	if err := l.checkJob("dft", dt, opt, append([]int{s.Batch}, s.Dims...)...); err != nil {
		return nil, 0, err
	}
	points := s.Batch
	for _, d := range s.Dims {
		if points > math.MaxInt64/2/d {
			return nil, 0, fmt.Errorf("cblas: %s: dft: %d transforms of %v points overflow", l.name, s.Batch, s.Dims)
		}
		points *= d
	}
	var commit time.Duration
	j, err := l.job(func() (jobPtr, error) {
		p, ns, err := l.jobDFT(dt, s, opt)
		commit = time.Duration(ns)
		return p, err
	})
	return j, commit, err
}
