package workload

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// layerTestSpecs are small shapes with odd sizes, padding, stride,
// dilation and both layouts, for the verify tests.
var layerTestSpecs = map[Op]string{
	Conv1D:          "2x3x17:5x3:s2:p1:d2",
	Conv2D:          "2x3x9x11:5x3x2:s2x1:p1x0:d1x2:nhwc",
	Conv3D:          "1x3x5x6x7:4x3x2x3:s1x2x1:p1",
	MaxPool:         "2x3x9x10:3x3:s2:p1",
	AvgPool:         "2x3x9x10:3x2:s2x1:p1:nhwc",
	AdaptiveAvgPool: "2x3x9x10:4x3",
	BatchNorm:       "2x5x7x3",
	LayerNorm:       "3x40",
	GroupNorm:       "2x6x5x4:g3:nhwc",
}

var layerFuzzSeeds = []string{
	"1x64x56x56:64x3x3:p1", "1x3x224x224:64x7x7:s2:p3:nhwc", "2x3x17:5x3:s2:p1:d2", "1x3x5x6x7:4x3x2x3:s1x2x1:p1",
	"1x64x112x112:3x3:s2:p1", "1x2048x7x7:1x1", "512x1024", "1x256x56x56:g32", "1x2x3:4x1:p0", "1x1x1::",
	"1x1x5:1x3:d2:s1:p0:ncw", "2x2x2x2:2x2:nchw:nhwc",
}

// checkLayerRoundTrip is FuzzParseShape's check of a layer op: what parses
// is valid, sized, and round-trips through Format.
func checkLayerRoundTrip(t *testing.T, op Op, s string, sh Shape) {
	w := Workload{Op: op, DType: F32, Shape: sh}
	if err := w.Validate(); err != nil {
		t.Fatalf("ParseShape(%s, %q) = %+v, invalid: %v", op, s, sh.Layer, err)
	}
	if sh.M != 0 || sh.N != 0 || sh.K != 0 {
		t.Fatalf("ParseShape(%s, %q) set gemm fields: %+v", op, s, sh)
	}
	if w.Elements() < 2 || w.OutputLen() < 1 || !(w.FLOPs() > 0) {
		t.Fatalf("%v: elements %d, output %d, FLOPs %v", w, w.Elements(), w.OutputLen(), w.FLOPs())
	}
	again, err := ParseShape(op, sh.Format(op))
	if err != nil || again != sh {
		t.Fatalf("round trip of %q via %q: %+v, %v", s, sh.Format(op), again.Layer, err)
	}
}

func TestParseLayer(t *testing.T) {
	for _, c := range []struct {
		op  Op
		in  string
		fmt string
		chk func(l LayerShape) bool
	}{
		{Conv2D, "1x64x56x56:64x3x3:p1", "1x64x56x56:64x3x3:p1", func(l LayerShape) bool {
			return l.N == 1 && l.C == 64 && l.In == [3]int{1, 56, 56} && l.K == 64 && l.Window == [3]int{1, 3, 3} &&
				l.Pad == [3]int{0, 1, 1} && l.Stride == [3]int{1, 1, 1} && l.Rank == 2 && !l.NHWC
		}},
		{Conv2D, "1x3x224x224:64x7x7:s2:p3:NHWC", "1x3x224x224:64x7x7:s2:p3:nhwc", func(l LayerShape) bool {
			return l.NHWC && l.Stride == [3]int{1, 2, 2} && l.OutDims(Conv2D) == [3]int{1, 112, 112}
		}},
		{Conv2D, "2x3x9x11:5x3x2:d1x2:s2x1:p1x0:nchw", "2x3x9x11:5x3x2:s2x1:p1x0:d1x2", func(l LayerShape) bool {
			// P = (9+2−3)/2+1 = 5, Q = (11+0−2·1−1)/1+1 = 9
			return l.Dil == [3]int{1, 1, 2} && l.OutDims(Conv2D) == [3]int{1, 5, 9}
		}},
		{Conv1D, "4x80x3000:256x11:s2:p5", "4x80x3000:256x11:s2:p5", func(l LayerShape) bool {
			return l.Rank == 1 && l.In == [3]int{1, 1, 3000} && l.OutDims(Conv1D) == [3]int{1, 1, 1500}
		}},
		{Conv3D, "1x64x16x56x56:128x3x3x3:p1:ndhwc", "1x64x16x56x56:128x3x3x3:p1:nhwc", func(l LayerShape) bool {
			return l.Rank == 3 && l.NHWC && l.OutDims(Conv3D) == [3]int{16, 56, 56}
		}},
		{Conv2D, "1x1Ki x2x2:1x1x1", "", nil},
		{MaxPool, "1x64x112x112:3x3:s2:p1", "1x64x112x112:3x3:s2:p1", func(l LayerShape) bool {
			return l.OutDims(MaxPool) == [3]int{1, 56, 56}
		}},
		{AvgPool, "1x64x56x56:2x2", "1x64x56x56:2x2", func(l LayerShape) bool {
			return l.Stride == [3]int{1, 2, 2} && l.OutDims(AvgPool) == [3]int{1, 28, 28}
		}},
		{AvgPool, "1x4x8:3:s1", "1x4x8:3:s1", func(l LayerShape) bool { return l.OutDims(AvgPool) == [3]int{1, 1, 6} }},
		{AdaptiveAvgPool, "1x2048x7x7:1x1:nhwc", "1x2048x7x7:1x1:nhwc", func(l LayerShape) bool {
			return l.Out == [3]int{1, 1, 1} && l.NHWC
		}},
		{BatchNorm, "32x1024", "32x1024", func(l LayerShape) bool { return l.Rank == 0 && l.C == 1024 }},
		{LayerNorm, "512x1024", "512x1024", func(l LayerShape) bool { return l.N == 512 && l.C == 1024 }},
		{GroupNorm, "1x256x56x56:g32", "1x256x56x56:g32", func(l LayerShape) bool { return l.Groups == 32 }},
		{GroupNorm, "1x256x56x56", "1x256x56x56", func(l LayerShape) bool { return l.Groups == 1 }},
	} {
		sh, err := ParseShape(c.op, c.in)
		if c.chk == nil {
			if err == nil {
				t.Errorf("ParseShape(%s, %q) accepted", c.op, c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseShape(%s, %q): %v", c.op, c.in, err)
			continue
		}
		if !c.chk(sh.Layer) {
			t.Errorf("ParseShape(%s, %q) = %+v", c.op, c.in, sh.Layer)
		}
		if f := sh.Format(c.op); f != c.fmt {
			t.Errorf("Format = %q, want %q", f, c.fmt)
		}
		checkLayerRoundTrip(t, c.op, c.in, sh)
	}
	for _, c := range []struct {
		op Op
		in string
	}{
		{Conv2D, "1x64x56x56"}, {Conv2D, "1x64x56:64x3"}, {Conv2D, "1x64x56x56:64x3"}, {Conv2D, "1x64x56x56:64x3x3:p-1"},
		{Conv2D, "1x64x56x56:64x3x3:s0"}, {Conv2D, "1x64x5x5:64x7x7"}, {Conv2D, "1x64x5x5:64x3x3:d3"},
		{Conv2D, "1x64x56x56:64x3x3:p1:p1"}, {Conv2D, "1x64x56x56:64x3x3:s1x1x1"}, {Conv2D, "1x64x56x56:64x3x3:g2"},
		{Conv2D, "1x64x56x56:64x3x3::p1"}, {Conv2D, "1x64x56x56:64x3x3:nhwc:nchw"}, {Conv2D, "0x64x56x56:64x3x3"},
		{Conv1D, "1x2x3x4:5x1x1"}, {Conv3D, "1x2x3x4:5x1x1"},
		{MaxPool, "1x64x112x112"}, {MaxPool, "1x64x112x112:3x3:p2"}, {MaxPool, "1x64:3"}, {MaxPool, "1x64x112x112:3x3:d2"},
		{AdaptiveAvgPool, "1x64x7x7:1x1:s2"}, {AdaptiveAvgPool, "1x64x7x7:1"},
		{BatchNorm, "64"}, {BatchNorm, "1x64x3x3:g2"}, {LayerNorm, "4x64:nhwc"},
		{GroupNorm, "1x6x5:g4"}, {GroupNorm, "1x6x5:g0"}, {Conv2D, "1x9999999999x2x2:1x1x1"},
		{Conv2D, "99999x9999x99x99:64x3x3"},
	} {
		if _, err := ParseShape(c.op, c.in); err == nil {
			t.Errorf("ParseShape(%s, %q) accepted a bad size", c.op, c.in)
		} else if !strings.Contains(err.Error(), c.in) {
			t.Errorf("ParseShape(%s, %q): error %q does not name the value", c.op, c.in, err)
		}
	}
}

func TestLayerFLOPsAndBytes(t *testing.T) {
	ws := func(op Op, s string) Workload {
		sh, err := ParseShape(op, s)
		if err != nil {
			t.Fatal(err)
		}
		return Workload{Op: op, DType: F32, Shape: sh}
	}
	for _, c := range []struct {
		w            Workload
		flops, bytes float64
	}{
		// ResNet-50 conv2_x 3×3: 2·N·K·P·Q·C·R·S.
		{ws(Conv2D, "1x64x56x56:64x3x3:p1"), 2 * 64 * 56 * 56 * 64 * 9, 4 * (64*56*56 + 64*64*9 + 64*56*56)},
		{ws(Conv2D, "2x3x224x224:64x7x7:s2:p3:nhwc"), 2 * 2 * 64 * 112 * 112 * 3 * 49, 4 * (2*3*224*224 + 64*3*49 + 2*64*112*112)},
		{ws(Conv1D, "1x2x10:3x3"), 2 * 3 * 8 * 2 * 3, 4 * (20 + 18 + 24)},
		{ws(MaxPool, "1x64x112x112:3x3:s2:p1"), 64 * 56 * 56 * 9, 4 * (64*112*112 + 64*56*56)},
		{ws(AvgPool, "1x2x4x4:2x2"), 2 * 4 * 4, 4 * (32 + 8)},
		// Adaptive 5 → 3: windows [0,2), [1,4), [3,5): 2+3+2 = 7 per dimension.
		{ws(AdaptiveAvgPool, "1x2x5x5:3x3"), 2 * 7 * 7, 4 * (50 + 18)},
		{ws(BatchNorm, "2x3x4x5"), 4 * 120, 4 * (2*120 + 4*3)},
		{ws(LayerNorm, "4x10"), 8 * 40, 4 * (2*40 + 2*10)},
		{ws(GroupNorm, "2x6x5:g3"), 8 * 60, 4 * (2*60 + 2*6)},
	} {
		if got := c.w.FLOPs(); got != c.flops {
			t.Errorf("%v: FLOPs = %v, want %v", c.w, got, c.flops)
		}
		if got := c.w.Bytes(); got != c.bytes {
			t.Errorf("%v: Bytes = %v, want %v", c.w, got, c.bytes)
		}
	}
	// A ResNet convolution is compute-bound on any CPU: > 30 FLOP per byte.
	if i := ws(Conv2D, "1x64x56x56:64x3x3:p1").Intensity(); i < 30 {
		t.Errorf("conv intensity %v", i)
	}
}

// bruteLayer computes a layer op the obvious way, element by element in the
// workload's layout, independently of layerReference's loop nests.
func bruteLayer(w Workload, d Data) []float64 {
	l := w.Shape.Layer
	tin, tout, tf := w.layerTensors()
	x := d.Args[0]
	out := make([]float64, tout.len())
	o := l.OutDims(w.Op)
	if w.Op.layerKind() == KindConv {
		wt := d.Args[1]
		tout.each(func(n, k, p0, p1, p2 int) {
			var s float64
			for c := range l.C {
				for a := range l.Window[0] {
					for b := range l.Window[1] {
						for e := range l.Window[2] {
							i0 := p0*l.Stride[0] + a*l.Dil[0] - l.Pad[0]
							i1 := p1*l.Stride[1] + b*l.Dil[1] - l.Pad[1]
							i2 := p2*l.Stride[2] + e*l.Dil[2] - l.Pad[2]
							if i0 < 0 || i1 < 0 || i2 < 0 || i0 >= l.In[0] || i1 >= l.In[1] || i2 >= l.In[2] {
								continue
							}
							s += x[tin.at(n, c, i0, i1, i2)] * wt[tf.at(k, c, a, b, e)]
						}
					}
				}
			}
			out[tout.at(n, k, p0, p1, p2)] = s
		})
		return out
	}
	if w.Op.layerKind() == KindPool {
		tout.each(func(n, c, p0, p1, p2 int) {
			var lo, hi [3]int
			for i, p := range [3]int{p0, p1, p2} {
				if w.Op == AdaptiveAvgPool {
					lo[i], hi[i] = AdaptiveWindow(p, l.In[i], o[i])
				} else {
					lo[i] = p*l.Stride[i] - l.Pad[i]
					hi[i] = lo[i] + l.Window[i]
				}
			}
			m, s := math.Inf(-1), 0.0
			for a := lo[0]; a < hi[0]; a++ {
				for b := lo[1]; b < hi[1]; b++ {
					for e := lo[2]; e < hi[2]; e++ {
						if a < 0 || b < 0 || e < 0 || a >= l.In[0] || b >= l.In[1] || e >= l.In[2] {
							continue
						}
						v := x[tin.at(n, c, a, b, e)]
						m, s = math.Max(m, v), s+v
					}
				}
			}
			if w.Op == MaxPool {
				out[tout.at(n, c, p0, p1, p2)] = m
			} else {
				out[tout.at(n, c, p0, p1, p2)] = s / float64((hi[0]-lo[0])*(hi[1]-lo[1])*(hi[2]-lo[2]))
			}
		})
		return out
	}
	// Norms: statistics over the elements of each sample (and group).
	groups := 1
	switch w.Op {
	case GroupNorm:
		groups = l.Groups
	case BatchNorm:
		tin.each(func(n, c, a, b, e int) {
			i := tin.at(n, c, a, b, e)
			out[i] = d.Args[3][c]*(x[i]-d.Args[1][c])/math.Sqrt(d.Args[2][c]+NormEpsilon) + d.Args[4][c]
		})
		return out
	}
	cpg := l.C / groups
	for n := range l.N {
		for g := range groups {
			var idx []int
			tin.each(func(nn, c, a, b, e int) {
				if nn == n && c/cpg == g {
					idx = append(idx, tin.at(nn, c, a, b, e))
				}
			})
			var mu, vr float64
			for _, i := range idx {
				mu += x[i]
			}
			mu /= float64(len(idx))
			for _, i := range idx {
				vr += (x[i] - mu) * (x[i] - mu)
			}
			vr /= float64(len(idx))
			for _, i := range idx {
				var ga, be float64
				if w.Op == LayerNorm {
					ga, be = d.Args[1][i%(l.C*l.InSize())], d.Args[2][i%(l.C*l.InSize())]
				} else {
					c := i / l.InSize() % l.C
					if l.NHWC {
						c = i % l.C
					}
					ga, be = d.Args[1][c], d.Args[2][c]
				}
				out[i] = ga*(x[i]-mu)/math.Sqrt(vr+NormEpsilon) + be
			}
		}
	}
	return out
}

func TestLayerReferenceAgainstBruteForce(t *testing.T) {
	specs := map[Op][]string{
		Conv1D:          {"2x3x17:5x3:s2:p1:d2", "1x4x9:3x4:p2:nhwc", "1x1x1:1x1"},
		Conv2D:          {"2x3x9x11:5x3x2:s2x1:p1x0:d1x2:nhwc", "2x3x9x11:5x3x2:s2x1:p1x0:d1x2", "1x5x7x7:3x1x1:p3:s2", "1x2x5x5:3x5x5:p8:s3"},
		Conv3D:          {"1x3x5x6x7:4x3x2x3:s1x2x1:p1", "1x3x5x6x7:4x3x2x3:s1x2x1:p1:d2x1x1:nhwc"},
		MaxPool:         {"2x3x9x10:3x3:s2:p1", "1x3x9x10:3x3:s2:p1:nhwc", "1x2x5x6x7:2x3x3:s1:p1", "1x3x9:3:p1"},
		AvgPool:         {"2x3x9x10:3x2:s2x1:p1:nhwc", "1x3x9x10:3x3:s2:p1"},
		AdaptiveAvgPool: {"2x3x9x10:4x3", "1x3x5x7:7x2:nhwc", "1x2x3x5x7:2x2x3"},
		BatchNorm:       {"2x5x7x3", "2x5x7x3:nhwc", "3x4"},
		LayerNorm:       {"3x40", "2x3x4x5"},
		GroupNorm:       {"2x6x5x4:g3:nhwc", "2x6x5x4:g3", "1x4x3:g4"},
	}
	for _, op := range LayerOps {
		for _, s := range specs[op] {
			sh, err := ParseShape(op, s)
			if err != nil {
				t.Fatalf("%s %s: %v", op, s, err)
			}
			w := Workload{Op: op, DType: F64, Shape: sh}
			d := w.NewData(3)
			ref := w.Reference(d)
			want := bruteLayer(w, d)
			if len(ref) != len(want) || len(ref) != w.OutputLen() {
				t.Fatalf("%s %s: reference has %d elements, brute force %d, OutputLen %d", op, s, len(ref), len(want), w.OutputLen())
			}
			for i := range ref {
				if math.Abs(ref[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("%s %s: element %d = %v, brute force %v", op, s, i, ref[i], want[i])
				}
			}
			if c := w.Verify(d, want); !c.OK {
				t.Errorf("%s %s: brute force rejected: %s", op, s, c.Detail)
			}
		}
	}
}

// TestVerifyLargeConvByProjection: a convolution above fullConvLimit is
// checked by projection, which accepts an f32-rounded result and catches a
// wrong channel or element.
func TestVerifyLargeConvByProjection(t *testing.T) {
	if testing.Short() {
		t.Skip("computes a 118M multiply-add reference")
	}
	sh, _ := ParseShape(Conv2D, "1x64x40x40:128x3x3:p1:nhwc") // 118M multiply-adds > 2^26
	w := Workload{Op: Conv2D, DType: F32, Shape: sh}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	d := w.NewData(9)
	ref := w.Reference(d)
	out := make([]float64, len(ref))
	for i, v := range ref {
		out[i] = float64(float32(v))
	}
	c := w.Verify(d, out)
	if !c.OK || c.Method != "projection+sampled" {
		t.Fatalf("correct large conv: %+v", c)
	}
	bad := slices.Clone(out)
	for p := 0; p < len(bad); p += sh.Layer.K { // channel 5 of every pixel (NHWC)
		bad[p+5] *= 1.001
	}
	if c := w.Verify(d, bad); c.OK {
		t.Errorf("a wrong channel was not caught: %+v", c)
	}
	bad = slices.Clone(out)
	bad[len(bad)-1] += 0.01 // the last element: a sampled corner
	if c := w.Verify(d, bad); c.OK {
		t.Errorf("a wrong last element was not caught: %+v", c)
	}
}

func TestDeepbenchSuite(t *testing.T) {
	ws, err := Expand(Selection{Suite: "deepbench"})
	if err != nil {
		t.Fatal(err)
	}
	count := map[Op]int{}
	for _, w := range ws {
		count[w.Op]++
		if w.DType != F32 {
			t.Errorf("%v: deepbench runs f32 by default", w)
		}
		if w.Op.Layer() && w.Op != LayerNorm && w.Shape.Layer.N > 4 {
			t.Errorf("%v: batch over 4", w)
		}
	}
	// 55 distinct DeepBench geometries and the ResNet-50 convolutions they lack.
	if count[Conv2D] < 55 || count[Conv2D] > 55+len(resnet50Conv) || count[GEMM] < 100 {
		t.Errorf("deepbench counts %v", count)
	}
	for _, op := range []Op{AXPY, Conv1D, Softmax} {
		if count[op] != 0 {
			t.Errorf("deepbench has %s", op)
		}
	}
	has := func(op Op, spec string) bool {
		sh, _ := ParseShape(op, spec)
		return slices.ContainsFunc(ws, func(w Workload) bool { return w.Op == op && w.Shape == sh })
	}
	for _, c := range []struct {
		op   Op
		spec string
	}{
		{Conv2D, "1x1x161x700:32x5x20:s2"},    // (700, 161, 1, N, 32, 20, 5, 0, 0, 2, 2)
		{Conv2D, "1x1024x14x14:2048x1x1:s2"},  // inference_device's
		{Conv2D, "1x2048x7x7:512x1x1:s2:p3"},  // (7, 7, 2048, N, 512, 1, 1, 3, 3, 2, 2)
		{Conv2D, "1x3x224x224:64x7x7:s2:p3"},  // ResNet-50 conv1, also DeepBench's
		{Conv2D, "1x128x56x56:128x3x3:s2:p1"}, // ResNet-50 v1.5 only
		{GEMM, "1760x16x1760"}, {GEMM, "35x700x2048"}, {GEMM, "512x16x512:NT"}, {GEMM, "1x1000x2048"},
		{MaxPool, "1x64x112x112:3x3:s2:p1"},
	} {
		if !has(c.op, c.spec) {
			t.Errorf("deepbench lacks %s %s", c.op, c.spec)
		}
	}
	if has(GEMM, "7680x48000x2560") || has(GEMM, "1024x16x500000") {
		t.Error("deepbench has a GEMM over its bounds")
	}
	if _, err := Expand(Selection{Suite: "deepbench", Ops: []Op{AXPY}}); err == nil || !strings.Contains(err.Error(), "-size") {
		t.Errorf("axpy in deepbench: %v", err)
	}
	full, err := Expand(Selection{Suite: "full", Ops: []Op{Conv2D}})
	if err != nil || len(full) <= count[Conv2D] {
		t.Errorf("full conv2d: %d workloads, %v", len(full), err)
	}
	// -dtype given: layer ops run it.
	f64, err := Expand(Selection{Suite: "quick", Ops: []Op{Conv2D}, DTypes: []DType{F64}})
	if err != nil || len(f64) != 1 || f64[0].DType != F64 {
		t.Errorf("conv2d f64: %v, %v", f64, err)
	}
}

func TestAdaptiveWindowSum(t *testing.T) {
	for in := 1; in < 40; in++ {
		for out := 1; out < 40; out++ {
			sum := 0
			for i := range out {
				a, b := AdaptiveWindow(i, in, out)
				if a < 0 || b > in || b <= a {
					t.Fatalf("window %d of %d→%d: [%d, %d)", i, in, out, a, b)
				}
				sum += b - a
			}
			if sum != in+out-gcd(in, out) {
				t.Fatalf("%d→%d: windows sum to %d, formula %d", in, out, sum, in+out-gcd(in, out))
			}
		}
	}
}
