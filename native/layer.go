package native

import "fmt"

// Layer is the geometry of a layer job, pb_layer of include/peakbench.h:
// spatial extents are three dimensions D, H, W, of which a job of rank r
// uses the last r (the others: extent 1, window 1, stride 1, padding 0,
// dilation 1, output 1). Tensors are N×C×D×H×W, or N×D×H×W×C when NHWC;
// convolution filters K×C×T×R×S, or K×T×R×S×C.
type Layer struct {
	N, C, K int    // batch, input channels, convolution output channels
	In      [3]int // input extents D, H, W
	Window  [3]int // convolution filter or pooling window T, R, S
	Stride  [3]int
	Pad     [3]int // zero padding on both sides
	Dil     [3]int // convolution dilation (1: none)
	Out     [3]int // adaptive pooling: the output extents
	Rank    int    // spatial dimensions used: 1–3 (normalizations 0–3)
	NHWC    bool
	Groups  int // group normalization
}

// OutDims returns the output extents of a convolution (conv) or a pooling:
// ⌊(in + 2·pad − span)/stride⌋ + 1, span the (dilated) window.
func (l Layer) OutDims(conv bool) [3]int {
	var o [3]int
	for i := range 3 {
		span := l.Window[i]
		if conv {
			span = l.Dil[i]*(l.Window[i]-1) + 1
		}
		o[i] = (l.In[i]+2*l.Pad[i]-span)/l.Stride[i] + 1
	}
	return o
}

func (l Layer) String() string {
	return fmt.Sprintf("n=%d c=%d k=%d in=%v window=%v stride=%v pad=%v dil=%v out=%v rank=%d nhwc=%v groups=%d",
		l.N, l.C, l.K, l.In, l.Window, l.Stride, l.Pad, l.Dil, l.Out, l.Rank, l.NHWC, l.Groups)
}
