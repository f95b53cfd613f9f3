// GPU libraries registered by name in the C layer (native/pb_gpu_registry.h):
// one generic path to open them and make their jobs, so that a library's Go
// package (cgo/cufft) holds no cgo of its own.

package gpurt

import (
	"fmt"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Library is a GPU library the C layer registered by name, opened on a
// device: a VendorLib whose jobs are made from a parameter array. What the
// parameters mean is the library's, documented in its C file (native/cufft.c)
// and spoken by its Go package (cgo/cufft: Spec, Kind).
type Library struct {
	*VendorLib
	h libHandle
}

// OpenLibrary opens the library registered as name ("cufft") on dev: the
// file path names, or when path is empty the one its override variable
// names (PEAKBENCH_CUFFT), else its search. A library that does not load is
// a *LoadError; built without cgo, one wrapping ErrNoCgo.
func OpenLibrary(dev *Device, name, path string) (*Library, error) {
	l := &Library{}
	v, err := OpenVendorLib(dev, name, func(gpu unsafe.Pointer) (string, error) {
		h, info, err := openLibrary(gpu, name, path)
		l.h = h
		return info, err
	}, func() { l.free() }, freeLibraryJob)
	if err != nil {
		return nil, err
	}
	l.VendorLib = v
	return l, nil
}

// NewJob makes a job of the library in dt from params, with opt, and
// returns it with the nreported values the library reports about it (cuFFT:
// its plan's time in ns), zeros where it reports nothing. An error from the
// library carries its status (errors.Is with ErrUnsupported, ...).
func (l *Library) NewJob(dt DType, params []int64, opt JobOptions, nreported int) (*Job, []int64, error) {
	if opt.Copies < 0 || opt.Copies > native.MaxCopies {
		return nil, nil, fmt.Errorf("%s: copies %d outside [1, %d]", l.name, opt.Copies, native.MaxCopies)
	}
	if nreported < 0 {
		return nil, nil, fmt.Errorf("%s: %d values reported", l.name, nreported)
	}
	reported := make([]int64, nreported)
	job, err := l.MakeJob(func() (unsafe.Pointer, error) { return l.job(dt, params, opt, reported) })
	if err != nil {
		return nil, nil, err
	}
	return job, reported, nil
}

// RegisteredLibraries returns the names the C layer's GPU libraries
// registered (none without cgo).
func RegisteredLibraries() []string { return registeredLibraries() }
