package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// The deep-learning layer operations (forward, inference). Tensors are
// N×C×spatial in the layout LayerShape.NHWC selects; see LayerShape.
const (
	Conv1D          Op = "conv1d"          // y = x ⋆ w over 1 spatial dimension (no bias)
	Conv2D          Op = "conv2d"          // y = x ⋆ w over 2 spatial dimensions (no bias)
	Conv3D          Op = "conv3d"          // y = x ⋆ w over 3 spatial dimensions (no bias)
	MaxPool         Op = "maxpool"         // y = max over each window (padding never wins)
	AvgPool         Op = "avgpool"         // y = Σ window / window size (padding counts as 0)
	AdaptiveAvgPool Op = "adaptiveavgpool" // avgpool to a given output size (PyTorch's windows)
	BatchNorm       Op = "batchnorm"       // y = γ·(x−μ)/√(σ²+ε)+β per channel, μ and σ² given
	LayerNorm       Op = "layernorm"       // y = γ·(x−μ)/√(σ²+ε)+β, μ and σ² over each sample
	GroupNorm       Op = "groupnorm"       // as layernorm over each group of C/G channels, γ and β per channel
)

// LayerOps lists the layer operations in the order reports show them.
var LayerOps = []Op{Conv1D, Conv2D, Conv3D, MaxPool, AvgPool, AdaptiveAvgPool, BatchNorm, LayerNorm, GroupNorm}

// The kinds of the layer operations.
const (
	KindConv Kind = iota + 100 // conv1d, conv2d, conv3d: input, filter, stride, padding, dilation
	KindPool                   // maxpool, avgpool, adaptiveavgpool: input, window or output size
	KindNorm                   // batchnorm, layernorm, groupnorm: input (and groups)
)

// NormEpsilon is the ε of every normalization: 1e-5, PyTorch's default.
const NormEpsilon = 1e-5

// Layer reports whether op is a layer operation (its shape is Shape.Layer).
func (op Op) Layer() bool {
	switch op {
	case Conv1D, Conv2D, Conv3D, MaxPool, AvgPool, AdaptiveAvgPool, BatchNorm, LayerNorm, GroupNorm:
		return true
	}
	return false
}

// layerKind is op's Kind when op.Layer().
func (op Op) layerKind() Kind {
	switch op {
	case Conv1D, Conv2D, Conv3D:
		return KindConv
	case MaxPool, AvgPool, AdaptiveAvgPool:
		return KindPool
	}
	return KindNorm
}

// ConvRank is the number of spatial dimensions of a convolution op (0 for
// other ops).
func (op Op) ConvRank() int {
	switch op {
	case Conv1D:
		return 1
	case Conv2D:
		return 2
	case Conv3D:
		return 3
	}
	return 0
}

// LayerShape is the geometry of a layer op. Spatial extents are kept as
// three dimensions D, H, W (index 0, 1, 2); an op of Rank r uses the last r
// and keeps the others at extent 1, window 1, stride 1, padding 0,
// dilation 1, so that one loop nest over three dimensions serves every rank.
//
// Layouts (NHWC false / true), for tensors and, for convolutions, filters:
//
//	input  x  N×C×D×H×W  / N×D×H×W×C
//	filter w  K×C×T×R×S  / K×T×R×S×C   (T, R, S: the window over D, H, W)
//	output y  N×K×P₀×P₁×P₂ / N×P₀×P₁×P₂×K  (C instead of K for pools and norms)
//
// The zero value is the shape of every non-layer op, so Shape stays
// comparable with ==.
type LayerShape struct {
	N, C   int    // batch and (input) channels
	Rank   int    // spatial dimensions: 1–3 (conv, pool), 0–3 (norms)
	In     [3]int // input extents D, H, W
	K      int    // convolutions: output channels
	Window [3]int // convolution filter or pooling window T, R, S
	Stride [3]int // convolution and pooling stride
	Pad    [3]int // zero padding on both sides of each dimension
	Dil    [3]int // convolution dilation
	Out    [3]int // adaptiveavgpool: output extents
	Groups int    // groupnorm: groups (divides C)
	NHWC   bool   // channels last
}

// OutDims returns the output's spatial extents: for a convolution or a pool
// ⌊(in + 2·pad − dil·(window−1) − 1)/stride⌋ + 1 per dimension (floor mode,
// as PyTorch, cuDNN and oneDNN), the given sizes for adaptiveavgpool, and
// the input's for norms.
func (l LayerShape) OutDims(op Op) [3]int {
	var o [3]int
	for i := range 3 {
		switch op.layerKind() {
		case KindConv:
			o[i] = (l.In[i]+2*l.Pad[i]-l.Dil[i]*(l.Window[i]-1)-1)/l.Stride[i] + 1
		case KindPool:
			if op == AdaptiveAvgPool {
				o[i] = l.Out[i]
			} else {
				o[i] = (l.In[i]+2*l.Pad[i]-(l.Window[i]-1)-1)/l.Stride[i] + 1
			}
		default:
			o[i] = l.In[i]
		}
	}
	return o
}

// InSize is the number of input elements per channel of one sample: D·H·W.
func (l LayerShape) InSize() int { return l.In[0] * l.In[1] * l.In[2] }

// OutSize is the number of output elements per channel of one sample.
func (l LayerShape) OutSize(op Op) int {
	o := l.OutDims(op)
	return o[0] * o[1] * o[2]
}

// WindowSize is T·R·S.
func (l LayerShape) WindowSize() int { return l.Window[0] * l.Window[1] * l.Window[2] }

// OutChannels is K for convolutions, C otherwise.
func (l LayerShape) OutChannels(op Op) int {
	if op.layerKind() == KindConv {
		return l.K
	}
	return l.C
}

// AdaptiveWindow returns the input range [start, end) that output i of n
// averages over an input extent of in: PyTorch's ⌊i·in/n⌋ to ⌈(i+1)·in/n⌉.
func AdaptiveWindow(i, in, n int) (start, end int) {
	return i * in / n, ((i+1)*in + n - 1) / n
}

// layerElements counts the elements of all operands, as float64 so that
// absurd shapes cannot overflow before Validate rejects them.
func (w Workload) layerElements() float64 {
	l := w.Shape.Layer
	n, c := float64(l.N), float64(l.C)
	in := n * c * float64(l.In[0]) * float64(l.In[1]) * float64(l.In[2])
	o := l.OutDims(w.Op)
	out := n * float64(l.OutChannels(w.Op)) * float64(o[0]) * float64(o[1]) * float64(o[2])
	switch w.Op {
	case Conv1D, Conv2D, Conv3D:
		filter := float64(l.K) * c * float64(l.Window[0]) * float64(l.Window[1]) * float64(l.Window[2])
		return in + filter + out
	case BatchNorm:
		return in + 4*c + out // x, μ, σ², γ, β, y
	case LayerNorm:
		return in + 2*in/n + out // x, γ and β over one sample, y
	case GroupNorm:
		return in + 2*c + out // x, γ and β per channel, y
	}
	return in + out
}

// layerFLOPs is the work of one run, by these conventions:
//
//	conv     2·N·K·P·C·W        P output positions, W = T·R·S window terms
//	maxpool, avgpool   N·C·P·W  (one compare or add per window element)
//	adaptiveavgpool    N·C·Σ window sizes
//	batchnorm          4 per element (subtract μ, divide by √(σ²+ε), ·γ, +β)
//	layernorm, groupnorm   8 per element (mean 1; variance 3: subtract,
//	                   square, add; normalize 2; affine 2)
//
// Per-channel or per-group work (square roots, divisions by counts) is not
// counted. An implementation that reorganizes the arithmetic (one-pass
// variance, γ/σ folded into one factor) does different work; the report
// compares everyone in the same unit.
func (w Workload) layerFLOPs() float64 {
	l := w.Shape.Layer
	n, c := float64(l.N), float64(l.C)
	out := float64(l.OutSize(w.Op))
	win := float64(l.WindowSize())
	elems := n * c * float64(l.InSize())
	switch w.Op {
	case Conv1D, Conv2D, Conv3D:
		return 2 * n * float64(l.K) * out * c * win
	case MaxPool, AvgPool:
		return n * c * out * win
	case AdaptiveAvgPool:
		// Σᵢ (⌈(i+1)·in/out⌉ − ⌊i·in/out⌋) = in + out − gcd(in, out): the
		// floors telescope to in, and the ceilings exceed them except at the
		// gcd(in, out) multiples of out/gcd.
		sum := 1.0
		for i := range 3 {
			sum *= float64(l.In[i] + l.Out[i] - gcd(l.In[i], l.Out[i]))
		}
		return n * c * sum
	case BatchNorm:
		return 4 * elems
	}
	return 8 * elems
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// layerOutputLen is the element count of the output.
func (w Workload) layerOutputLen() int {
	l := w.Shape.Layer
	return l.N * l.OutChannels(w.Op) * l.OutSize(w.Op)
}

// validateLayer checks the geometry (ParseShape's results always pass).
func (w Workload) validateLayer() error {
	l, op := w.Shape.Layer, w.Op
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: shape %s: %s", op, l.Format(op), fmt.Sprintf(format, args...))
	}
	if l.N < 1 || l.C < 1 {
		return bad("batch and channels must be at least 1")
	}
	lo := 0
	if op.layerKind() != KindNorm {
		lo = 1
	}
	if r := op.ConvRank(); r > 0 && l.Rank != r {
		return bad("%s has %d spatial dimensions, not %d", op, r, l.Rank)
	}
	if l.Rank < lo || l.Rank > 3 {
		return bad("%d spatial dimensions (accepted: %d to 3)", l.Rank, lo)
	}
	for i := range 3 {
		used := i >= 3-l.Rank
		if l.In[i] < 1 || l.Window[i] < 1 || l.Stride[i] < 1 || l.Dil[i] < 1 || l.Pad[i] < 0 || l.Out[i] < 1 {
			return bad("extents, windows, strides, dilations and output sizes must be at least 1, padding at least 0")
		}
		if !used && (l.In[i] != 1 || l.Window[i] != 1 || l.Stride[i] != 1 || l.Dil[i] != 1 || l.Pad[i] != 0 || l.Out[i] != 1) {
			return bad("unused dimension %d is not neutral", i)
		}
	}
	switch op.layerKind() {
	case KindConv:
		if l.K < 1 {
			return bad("output channels must be at least 1")
		}
		for i := range 3 {
			if l.In[i]+2*l.Pad[i] < l.Dil[i]*(l.Window[i]-1)+1 {
				return bad("the dilated filter is larger than the padded input")
			}
		}
	case KindPool:
		for i := range 3 {
			if op == AdaptiveAvgPool {
				continue
			}
			if 2*l.Pad[i] > l.Window[i] {
				return bad("padding may be at most half the window (as in PyTorch), so no window lies in the padding alone")
			}
			if l.In[i]+2*l.Pad[i] < l.Window[i] {
				return bad("the window is larger than the padded input")
			}
		}
	case KindNorm:
		if op == GroupNorm && (l.Groups < 1 || l.C%l.Groups != 0) {
			return bad("groups %d must divide the %d channels", l.Groups, l.C)
		}
		if op == LayerNorm && l.NHWC {
			return bad("layernorm normalizes each sample whole: it has no layout")
		}
	}
	if op != GroupNorm && l.Groups != 0 && l.Groups != 1 {
		return bad("only groupnorm has groups")
	}
	if op.layerKind() != KindConv && (l.K != 0 || l.Dil != [3]int{1, 1, 1}) {
		return bad("only convolutions have output channels and dilation")
	}
	if w.layerElements() > maxElements {
		return bad("%s", tooManyElements(w.layerElements()))
	}
	return nil
}

// neutral returns a LayerShape with every dimension at its neutral value.
func neutral() LayerShape {
	return LayerShape{In: [3]int{1, 1, 1}, Window: [3]int{1, 1, 1}, Stride: [3]int{1, 1, 1},
		Dil: [3]int{1, 1, 1}, Out: [3]int{1, 1, 1}}
}

// maxLayerDim bounds every parsed extent (larger ones cannot fit the
// element limit anyway), so that no arithmetic on them overflows.
const maxLayerDim = 1 << 31

// parseLayer reads one -size value of a layer op. The grammar: tokens
// separated by ':', the first the input's dimensions N×C×spatial, the
// second (conv: K×window; pools: the window; adaptiveavgpool: the output
// size), then options in any order:
//
//	sA[xB[xC]]   stride (one value for every dimension, or one per dimension)
//	pA[xB[xC]]   zero padding on both sides
//	dA[xB[xC]]   dilation (convolutions)
//	gG           groups (groupnorm)
//	nhwc / nchw  channels last / first (also nwc, ndhwc, ncw, ncdhw); nchw is the default
//
// Defaults: stride 1 (pools: the window, as PyTorch), padding 0, dilation
// 1, groups 1. Examples: conv2d 1x64x56x56:64x3x3:p1, conv2d
// 1x3x224x224:64x7x7:s2:p3:nhwc, conv1d 4x80x3000:256x5:p2, maxpool
// 1x64x112x112:3x3:s2:p1, adaptiveavgpool 1x2048x7x7:1x1, batchnorm
// 1x64x56x56, layernorm 512x1024, groupnorm 1x256x56x56:g32.
func parseLayer(op Op, s string) (Shape, error) {
	fail := func(format string, args ...any) (Shape, error) {
		return Shape{}, fmt.Errorf("size %q: %s", s, fmt.Sprintf(format, args...))
	}
	toks := strings.Split(s, ":")
	in, err := parseDims(toks[0], false)
	if err != nil {
		return fail("%v", err)
	}
	l := neutral()
	kind := op.layerKind()
	minRank, maxRank := 1, 3
	if kind == KindNorm {
		minRank = 0
	}
	if r := op.ConvRank(); r > 0 {
		minRank, maxRank = r, r
	}
	rank := len(in) - 2
	if rank < minRank || rank > maxRank {
		return fail("%s takes %s", op, layerSyntax(op))
	}
	l.N, l.C, l.Rank = in[0], in[1], rank
	copy(l.In[3-rank:], in[2:])
	rest := toks[1:]
	if kind != KindNorm {
		if len(rest) == 0 {
			return fail("%s takes %s", op, layerSyntax(op))
		}
		second, err := parseDims(rest[0], false)
		if err != nil {
			return fail("%v", err)
		}
		rest = rest[1:]
		switch {
		case kind == KindConv:
			if len(second) != rank+1 {
				return fail("%s's filter is K×%s (%d values)", op, windowNames(rank), rank+1)
			}
			l.K = second[0]
			copy(l.Window[3-rank:], second[1:])
		case len(second) != rank:
			return fail("%s's %s has %d values, one per spatial dimension", op, secondName(op), rank)
		case op == AdaptiveAvgPool:
			copy(l.Out[3-rank:], second)
		default:
			copy(l.Window[3-rank:], second)
			copy(l.Stride[3-rank:], second) // PyTorch's default stride is the window
		}
	}
	seen := map[byte]bool{}
	for _, t := range rest {
		switch strings.ToLower(t) {
		case "nhwc", "nwc", "ndhwc", "nchw", "ncw", "ncdhw":
			if seen['l'] {
				return fail("layout given twice")
			}
			seen['l'] = true
			l.NHWC = strings.ToLower(t)[1] != 'c'
			continue
		}
		if t == "" {
			return fail("empty option (options are separated by a single ':')")
		}
		key := t[0]
		ok := false
		switch key {
		case 's', 'p':
			ok = kind == KindConv || op == MaxPool || op == AvgPool
		case 'd':
			ok = kind == KindConv
		case 'g':
			ok = op == GroupNorm
		}
		if !ok {
			return fail("option %q does not apply to %s (%s takes %s)", t, op, op, layerSyntax(op))
		}
		if seen[key] {
			return fail("option %c given twice", key)
		}
		seen[key] = true
		vals, err := parseDims(t[1:], key == 'p')
		if err != nil {
			return fail("option %q: %v", t, err)
		}
		if key == 'g' {
			if len(vals) != 1 {
				return fail("groups take one value")
			}
			l.Groups = vals[0]
			continue
		}
		var dst *[3]int
		switch key {
		case 's':
			dst = &l.Stride
		case 'p':
			dst = &l.Pad
		default:
			dst = &l.Dil
		}
		switch len(vals) {
		case 1:
			for i := 3 - rank; i < 3; i++ {
				dst[i] = vals[0]
			}
		case rank:
			copy(dst[3-rank:], vals)
		default:
			return fail("option %q: give one value or %d (one per spatial dimension)", t, rank)
		}
	}
	if op == GroupNorm && l.Groups == 0 {
		l.Groups = 1
	}
	sh := Shape{Layer: l}
	if err := (Workload{Op: op, DType: F32, Shape: sh}).validateLayer(); err != nil {
		return fail("%v", strings.TrimPrefix(err.Error(), fmt.Sprintf("%s: shape %s: ", op, l.Format(op))))
	}
	return sh, nil
}

// parseDims reads "AxBxC": counts as ParseCount reads them (zero allowed
// when zeroOK, for padding).
func parseDims(s string, zeroOK bool) ([]int, error) {
	parts := strings.Split(s, "x")
	out := make([]int, len(parts))
	for i, p := range parts {
		if zeroOK && p == "0" {
			continue
		}
		v, err := ParseCount(p)
		if err != nil {
			return nil, err
		}
		if v > maxLayerDim {
			return nil, fmt.Errorf("%q is too large", p)
		}
		out[i] = v
	}
	return out, nil
}

func windowNames(rank int) string {
	return []string{"", "S", "R×S", "T×R×S"}[rank]
}

func secondName(op Op) string {
	if op == AdaptiveAvgPool {
		return "output size"
	}
	return "window"
}

// layerSyntax describes the size syntax of op, for errors and help.
func layerSyntax(op Op) string {
	switch op {
	case Conv1D:
		return "NxCxW:KxS[:sA][:pA][:dA][:nhwc]"
	case Conv2D:
		return "NxCxHxW:KxRxS[:sA[xB]][:pA[xB]][:dA[xB]][:nhwc]"
	case Conv3D:
		return "NxCxDxHxW:KxTxRxS[:sA[xBxC]][:pA[xBxC]][:dA[xBxC]][:nhwc]"
	case MaxPool, AvgPool:
		return "NxCx[[D]xH]xW:WINDOW[:sSTRIDE][:pPAD][:nhwc] (window one value per spatial dimension)"
	case AdaptiveAvgPool:
		return "NxCx[[D]xH]xW:OUTPUT[:nhwc] (output size one value per spatial dimension)"
	case BatchNorm:
		return "NxC[x[[D]xH]xW][:nhwc]"
	case LayerNorm:
		return "NxF or NxCx[[D]xH]xW (normalized over all but N)"
	case GroupNorm:
		return "NxC[x[[D]xH]xW][:gGROUPS][:nhwc]"
	}
	return "?"
}

// LayerSyntax is the -size help for the layer ops.
func LayerSyntax() string {
	return "conv2d NxCxHxW:KxRxS[:sSTRIDE][:pPAD][:dDIL][:nhwc] (conv1d, conv3d: 1 or 3 spatial dims), " +
		"maxpool/avgpool NxCxHxW:RxS[:sSTRIDE][:pPAD], adaptiveavgpool NxCxHxW:PxQ, " +
		"batchnorm/groupnorm NxCxHxW[:gG], layernorm NxF"
}

// Format writes l as parseLayer reads it, in the shortest form: defaults
// left out, a per-dimension value written once when all dimensions agree.
func (l LayerShape) Format(op Op) string {
	r := l.Rank
	if r < 0 || r > 3 {
		r = 0
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(l.N) + "x" + strconv.Itoa(l.C))
	for _, v := range l.In[3-r:] {
		b.WriteString("x" + strconv.Itoa(v))
	}
	dims := func(v [3]int) string {
		d := v[3-r:]
		same := true
		for _, x := range d {
			same = same && x == d[0]
		}
		if same && len(d) > 0 {
			return strconv.Itoa(d[0])
		}
		s := make([]string, len(d))
		for i, x := range d {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, "x")
	}
	all := func(v [3]int, x int) bool {
		for _, e := range v[3-r:] {
			if e != x {
				return false
			}
		}
		return true
	}
	full := func(v [3]int) string {
		s := make([]string, r)
		for i, x := range v[3-r:] {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, "x")
	}
	switch op.layerKind() {
	case KindConv:
		b.WriteString(":" + strconv.Itoa(l.K))
		if r > 0 {
			b.WriteString("x" + full(l.Window))
		}
		if !all(l.Stride, 1) {
			b.WriteString(":s" + dims(l.Stride))
		}
		if !all(l.Pad, 0) {
			b.WriteString(":p" + dims(l.Pad))
		}
		if !all(l.Dil, 1) {
			b.WriteString(":d" + dims(l.Dil))
		}
	case KindPool:
		if op == AdaptiveAvgPool {
			b.WriteString(":" + full(l.Out))
			break
		}
		b.WriteString(":" + full(l.Window))
		if l.Stride != l.Window {
			b.WriteString(":s" + dims(l.Stride))
		}
		if !all(l.Pad, 0) {
			b.WriteString(":p" + dims(l.Pad))
		}
	case KindNorm:
		if op == GroupNorm && l.Groups != 1 {
			b.WriteString(":g" + strconv.Itoa(l.Groups))
		}
	}
	if l.NHWC {
		b.WriteString(":nhwc")
	}
	return b.String()
}
