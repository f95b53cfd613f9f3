package onednn

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/peakbench/peakbench/native"
)

// Layer is the geometry of a layer job (see native.Layer).
type Layer = native.Layer

// LayerOp is a oneDNN layer primitive peakbench runs.
type LayerOp int

// The layer operations, with their job arguments (inputs first, the
// output last), f32, in the layout of the geometry.
const (
	Conv            LayerOp = iota // convolution forward, no bias: x, w, y
	MaxPool                        // pooling max: x, y
	AvgPool                        // pooling avg_include_padding: x, y
	AdaptiveAvgPool                // avg pool to Layer.Out when each input extent is a multiple of it: x, y
	BatchNorm                      // inference, global statistics, scale and shift: x, mean, variance, γ, β, y
	LayerNorm                      // over all but N, scale and shift (C·D·H·W each): x, γ, β, y
	GroupNorm                      // oneDNN 2.x has none: always ErrUnsupported
)

var layerNames = [...]string{"conv", "maxpool", "avgpool", "adaptiveavgpool", "batchnorm", "layernorm", "groupnorm"}

func (op LayerOp) String() string {
	if op >= 0 && int(op) < len(layerNames) {
		return layerNames[op]
	}
	return fmt.Sprintf("LayerOp(%d)", int(op))
}

// ConvAlgorithm is the algorithm kind a convolution asks oneDNN for.
type ConvAlgorithm int

const (
	ConvAuto     ConvAlgorithm = iota // dnnl_convolution_auto: oneDNN chooses
	ConvDirect                        // dnnl_convolution_direct
	ConvWinograd                      // dnnl_convolution_winograd
)

func (a ConvAlgorithm) String() string {
	switch a {
	case ConvAuto:
		return "auto"
	case ConvDirect:
		return "direct"
	case ConvWinograd:
		return "winograd"
	}
	return fmt.Sprintf("ConvAlgorithm(%d)", int(a))
}

// LayerOptions says how a layer job runs.
type LayerOptions struct {
	JobOptions
	Algorithm ConvAlgorithm // convolutions
	Epsilon   float32       // normalizations' ε (0: 1e-5)
}

// PrepareLayer creates a layer primitive on plain tensors in g's layout
// (include/peakbench.h, pb_dnnl_layer_job). The convolution's weights are
// reordered to the layout the primitive prefers before the clock starts
// on every Run. f64 and GroupNorm give errors wrapping ErrUnsupported, and
// so does any geometry oneDNN has no implementation for.
func (l *Library) PrepareLayer(op LayerOp, dt DType, g Layer, opt LayerOptions) (*Job, error) {
	l.check()
	if op < Conv || op > GroupNorm {
		return nil, fmt.Errorf("onednn: bad layer op %d", int(op))
	}
	if opt.Algorithm < ConvAuto || opt.Algorithm > ConvWinograd {
		return nil, fmt.Errorf("onednn: %s: bad convolution algorithm %d", op, int(opt.Algorithm))
	}
	if dt != F32 && dt != F64 {
		return nil, fmt.Errorf("onednn: %s: bad dtype %v (accepted: F32, F64)", op, dt)
	}
	if opt.Epsilon == 0 {
		opt.Epsilon = 1e-5
	}
	return l.newJob(op.String(), opt.JobOptions, func() (unsafe.Pointer, error) { return l.layerJob(op, dt, g, opt) })
}

// Implementation returns the implementation oneDNN chose for a job (its
// impl_info_str, e.g. "jit:avx512_core", "gemm:jit"), or "".
func Implementation(j *Job) string {
	_, impl, ok := strings.Cut(j.String(), "impl=")
	if !ok {
		return ""
	}
	return impl
}

// HasLayer reports whether the loaded oneDNN has the layer primitive op
// that PrepareLayer runs: every one but GroupNorm, which oneDNN 2.x lacks
// (3.3 added one; the C layer speaks 2.x and refuses it).
func (l *Library) HasLayer(op LayerOp) bool {
	l.check()
	return op >= Conv && op < GroupNorm
}
