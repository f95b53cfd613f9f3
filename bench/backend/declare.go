package backend

import (
	"errors"
	"fmt"
	"slices"

	"github.com/peakbench/peakbench/bench/workload"
)

// Declarer is implemented by every backend peakbench ships: it says which
// ops, in which dtypes, the backend computes, as loaded (MKL's VML
// functions, oneDNN's primitives, a worker's hello). Prepare of a declared
// pair may refuse a shape or a configuration only with an error wrapping
// ErrUnsupportedShape; of a pair not declared it returns ErrUnsupported.
// The conformance suite (backendtest.Run) holds a backend to both, so a
// backend that stops computing an op it declares fails its tests.
type Declarer interface {
	Declared() Support
}

// Explainer is implemented by a backend that can say why it does not
// compute a workload it does not declare (a worker's hello gives reasons):
// the harness quotes it when it skips the workload.
type Explainer interface {
	WhyNot(w workload.Workload) string
}

// Support is a set of op × dtype pairs: each op with the dtypes it is
// computed in.
type Support map[workload.Op][]workload.DType

// Has reports whether s holds op in dt.
func (s Support) Has(op workload.Op, dt workload.DType) bool {
	return slices.Contains(s[op], dt)
}

// Add puts op in each of dts into s, and returns s.
func (s Support) Add(dts []workload.DType, ops ...workload.Op) Support {
	for _, op := range ops {
		for _, dt := range dts {
			if !s.Has(op, dt) {
				s[op] = append(s[op], dt)
			}
		}
	}
	return s
}

// ErrUnsupportedShape is returned (wrapped) by Prepare for a shape or a
// configuration of a declared op × dtype that the library cannot run (a
// tensor too large for its index type, a thread count its runtime does
// not control, a pooling it has no primitive for). It wraps
// ErrUnsupported: the harness skips such workloads like any other.
var ErrUnsupportedShape = fmt.Errorf("this shape or configuration is %w", ErrUnsupported)

// UnsupportedShape returns err, a library's refusal of one workload of a
// declared op, marked as wrapping ErrUnsupportedShape.
func UnsupportedShape(err error) error {
	if errors.Is(err, ErrUnsupportedShape) {
		return err
	}
	return &shapeError{err}
}

type shapeError struct{ err error }

func (e *shapeError) Error() string { return e.err.Error() }
func (e *shapeError) Unwrap() []error {
	return []error{e.err, ErrUnsupportedShape}
}

// DeclaredBy returns what b declares (Declarer), or nil.
func DeclaredBy(b Backend) Support {
	if d, ok := b.(Declarer); ok {
		return d.Declared()
	}
	return nil
}
