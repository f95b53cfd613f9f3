package native

import (
	"errors"
	"fmt"
)

// Status mirrors pb_status (include/peakbench.h); native.go checks at
// compile time that the values agree.
type Status int

// The status codes.
const (
	OK          Status = 0
	NotFound    Status = 1 // no file could be loaded
	Symbol      Status = 2 // the file lacks a required symbol
	Invalid     Status = 3 // a bad argument
	Unsupported Status = 4 // the library cannot do this
	NoMem       Status = 5 // an allocation failed
	Library     Status = 6 // the library reported a failure
	Version     Status = 7 // a library version whose ABI peakbench does not encode
)

var statusNames = [...]string{"PB_OK", "PB_ERR_NOT_FOUND", "PB_ERR_SYMBOL", "PB_ERR_INVALID",
	"PB_ERR_UNSUPPORTED", "PB_ERR_NOMEM", "PB_ERR_LIBRARY", "PB_ERR_VERSION"}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Sentinel errors that *Error values match with errors.Is.
var (
	// ErrUnsupported: the library cannot do this (PB_ERR_UNSUPPORTED).
	ErrUnsupported = errors.New("not supported by the library")
	// ErrInvalid: a bad argument (PB_ERR_INVALID).
	ErrInvalid = errors.New("invalid argument")
	// ErrNoCgo is what every entry point returns in a build without cgo.
	ErrNoCgo = errors.New("peakbench was built without cgo (CGO_ENABLED=0): vendor libraries cannot be loaded")
)

// Error is a failed C call: its status and the message the C layer wrote.
type Error struct {
	Status Status
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrUnsupported) and errors.Is(err, ErrInvalid) work.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnsupported:
		return e.Status == Unsupported
	case ErrInvalid:
		return e.Status == Invalid
	}
	return false
}

// NewError returns nil for OK, else an *Error whose message is prefix+msg
// (msg defaults to the status name).
func NewError(status int, prefix, msg string) error {
	if Status(status) == OK {
		return nil
	}
	if msg == "" {
		msg = Status(status).String()
	}
	return &Error{Status: Status(status), Msg: prefix + msg}
}

// The accepted thread counts of every SetThreads, and the most copies a job
// may rotate through (PB_MIN_THREADS, PB_MAX_THREADS, PB_MAX_COPIES).
const (
	MinThreads = 1
	MaxThreads = 1024
	MaxCopies  = 65536
)

// DType is an element type, with the values of pb_dtype (its size in bytes).
type DType int

// The element types.
const (
	F32 DType = 4
	F64 DType = 8
)

func (d DType) String() string {
	switch d {
	case F32:
		return "f32"
	case F64:
		return "f64"
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// SparseConversion is a sparse format conversion of the C layer's
// conversion jobs (pb_sparse_convert: MKL's and cuSPARSE's).
type SparseConversion int

// The conversions.
const (
	CSR2COO SparseConversion = 0 // CSR's row pointers → COO's row per entry
	COO2CSR SparseConversion = 1 // row-sorted COO's rows → CSR's row pointers
	CSR2CSC SparseConversion = 2 // CSR → CSC, values and indices
)

func (c SparseConversion) String() string {
	switch c {
	case CSR2COO:
		return "csr2coo"
	case COO2CSR:
		return "coo2csr"
	case CSR2CSC:
		return "csr2csc"
	}
	return fmt.Sprintf("SparseConversion(%d)", int(c))
}

// The arguments of a conversion job, each copy's own (pb_convert_arg): the
// input's pointers (COO's rows for COO2CSR), column indices and values; the
// output's values, indices and pointers. Indices are int32, set and read in
// float64 (exact); an argument a conversion does not use holds nothing.
const (
	ConvertInPtr  = 0
	ConvertInIdx  = 1
	ConvertInVal  = 2
	ConvertOutVal = 3
	ConvertOutIdx = 4
	ConvertOutPtr = 5
)

// FFTKind is a transform of the C layer's Fourier-transform jobs: MKL's
// DFTI (pb_dft_kind) and cuFFT's take the same values.
type FFTKind int

// The transforms.
const (
	FFTForward  FFTKind = 0 // complex → complex, e^(−2πi·jk/n)
	FFTBackward FFTKind = 1 // complex → complex, e^(+2πi·jk/n), unnormalized
	FFTR2C      FFTKind = 2 // real → the n/2+1 complex outputs of the last dimension
)

func (k FFTKind) String() string {
	switch k {
	case FFTForward:
		return "forward"
	case FFTBackward:
		return "backward"
	case FFTR2C:
		return "r2c"
	}
	return fmt.Sprintf("FFTKind(%d)", int(k))
}

// FFTSpec describes a batch of transforms.
type FFTSpec struct {
	Kind FFTKind
	// Dims is one length (1-D) or rows and columns (2-D), row-major.
	Dims []int
	// Batch is the number of transforms, contiguous one after another.
	Batch int
}
