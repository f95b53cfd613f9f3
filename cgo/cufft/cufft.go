// Package cufft loads NVIDIA's cuFFT (10, 11 or 12) at run time and
// prepares its transforms as GPU jobs on a device opened with
// github.com/peakbench/peakbench/cgo/gpurt: batches of 1-D and 2-D
// transforms, complex forward and backward (unnormalized) and real to
// complex, in f32 (complex64) and f64 (complex128).
//
// Each job has one plan (cufftPlanMany, made when the job is made, on the
// device's stream); PrepareFFT returns the time the plan took.
//
//	rt, _ := gpurt.Open()
//	dev, _ := rt.OpenDevice(0)
//	lib, err := cufft.Open(dev) // PEAKBENCH_CUFFT, or libcufft.so.12/.11/.10
//	job, plan, err := lib.PrepareFFT(gpurt.F32, cufft.Spec{Kind: cufft.Forward, Dims: []int{4096}, Batch: 64}, gpurt.JobOptions{})
//	job.SetInput(0, x)
//	elapsed, err := job.Run(10)
//
// The C side is native/cufft.c, registered there as "cufft" and reached
// through gpurt's generic path (gpurt.OpenLibrary, Library.NewJob): this
// package has no cgo of its own, and only puts cuFFT's terms into the job's
// parameters. Built without cgo, Open returns an error wrapping
// gpurt.ErrNoCgo.
package cufft

import (
	"fmt"
	"math"
	"time"

	"github.com/peakbench/peakbench/cgo/gpurt"
	"github.com/peakbench/peakbench/native"
)

// Kind is a transform cuFFT computes (native/cufft.c's cufft_kind takes
// its values, MKL's DFTI too: native.FFTKind).
type Kind = native.FFTKind

// The transforms.
const (
	Forward  = native.FFTForward  // complex → complex, e^(−2πi·jk/n): C2C, Z2Z with CUFFT_FORWARD
	Backward = native.FFTBackward // complex → complex, e^(+2πi·jk/n), unnormalized: CUFFT_INVERSE
	R2C      = native.FFTR2C      // real → the n/2+1 complex outputs of the last dimension: R2C, D2Z
)

// Spec describes a batch of transforms (native.FFTSpec).
type Spec = native.FFTSpec

// Library is cuFFT on one device.
type Library struct{ *gpurt.Library }

// Open loads cuFFT (PEAKBENCH_CUFFT, when set, names the only file tried).
func Open(dev *gpurt.Device) (*Library, error) { return OpenPath(dev, "") }

// OpenPath loads cuFFT from path (the search when empty).
func OpenPath(dev *gpurt.Device, path string) (*Library, error) {
	l, err := gpurt.OpenLibrary(dev, "cufft", path)
	if err != nil {
		return nil, err
	}
	return &Library{l}, nil
}

// PrepareFFT prepares s's transforms in dt (F32 or F64), out of place.
// Arguments: 0 the input (interleaved complex; reals for R2C), 1 the output
// (interleaved complex; R2C: each row's n/2+1 outputs). It also returns
// the time cufftPlanMany took. A transform cuFFT cannot plan (a size it
// does not implement, more than 2³¹−1 elements a side) is an error
// wrapping gpurt.ErrUnsupported with the reason.
func (l *Library) PrepareFFT(dt gpurt.DType, s Spec, opt gpurt.JobOptions) (*gpurt.Job, time.Duration, error) {
	if s.Kind < Forward || s.Kind > R2C || len(s.Dims) < 1 || len(s.Dims) > 2 {
		return nil, 0, fmt.Errorf("cufft: bad transform %v of rank %d", s.Kind, len(s.Dims))
	}
	for _, d := range append([]int{s.Batch}, s.Dims...) {
		if d < 1 || d > math.MaxInt32 {
			return nil, 0, fmt.Errorf("cufft: batch %d of %v: each must lie in [1, %d]", s.Batch, s.Dims, math.MaxInt32)
		}
	}
	// native/cufft.c's parameters: kind, batch, then the dimensions.
	params := []int64{int64(s.Kind), int64(s.Batch)}
	for _, d := range s.Dims {
		params = append(params, int64(d))
	}
	job, reported, err := l.NewJob(dt, params, opt, 1)
	if err != nil {
		return nil, 0, err
	}
	return job, time.Duration(reported[0]), nil
}
