//go:build !cgo

package fftw

import (
	"errors"
	"fmt"
	"time"

	"github.com/peakbench/peakbench/native"
)

// ErrCannotPlan marks a transform FFTW made no plan for.
var ErrCannotPlan = errors.New("fftw cannot plan this transform")

var errNoCgo = fmt.Errorf("fftw: %w", native.ErrNoCgo)

// Library is FFTW in one precision; without cgo it never opens.
type Library struct{ F64 bool }

func Open(bool) (*Library, error)                            { return nil, errNoCgo }
func (*Library) Version() string                             { return "" }
func (*Library) Path() string                                { return "" }
func (*Library) Threads() bool                               { return false }
func (*Library) ImportWisdom(string) bool                    { return false }
func (*Library) ExportWisdom(string) bool                    { return false }
func (*Library) Close()                                      {}
func (*Library) NewPlan(Spec, []float64, int) (*Plan, error) { return nil, errNoCgo }

// Plan is a planned batch of transforms.
type Plan struct{ Took time.Duration }

func (*Plan) Run(int) (time.Duration, error) { return 0, errNoCgo }
func (*Plan) Output() []float64              { return nil }
func (*Plan) Close()                         {}
