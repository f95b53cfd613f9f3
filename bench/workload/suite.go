package workload

import (
	"fmt"
	"slices"
	"strings"
)

// Suites names the predefined problem sets. deepbench holds DeepBench's
// GEMM and convolution shapes and ResNet-50's layers (deepbench.go); full
// includes them.
var Suites = []string{"quick", "default", "standard", "full", "deepbench"}

// DefaultSuite is the suite a run without -suite takes: every op, with
// sizes enough for each op's per-call overhead to be fitted (three vector
// sizes, from L1 to DRAM on most machines; 16Mi, the standard suite's,
// took 40% of a 6-minute run on 2 cores, the pure-Go transcendental
// functions a quarter of a second a call) and one shape of each layer
// kind, to finish in a few minutes on 2 cores with every CPU library.
// standard and full are the long runs.
const DefaultSuite = "default"

// suiteSizes lists each suite's shapes per op kind. Vector sizes are chosen
// so that f32 working sets land in L1, L2, L3 and DRAM of a typical core
// (4 KiB … 256 MiB for an add of 2 inputs and 1 output of 4 B elements).
var suiteSizes = map[string]map[Kind][]string{
	"quick": {
		KindMatMul: {"256", "512"},
		KindMatVec: {"1024"},
		KindVector: {"256Ki"},
		KindRows:   {"256x1024"},
		KindFFT:    {"4Ki"},
		KindSparse: {"banded:n=64Ki:bw=8"},
	},
	"default": {
		KindMatMul: {"256", "1024"},
		KindMatVec: {"1024", "4096"},
		KindVector: {"1Ki", "256Ki", "4Mi"}, // 12 KiB, 3 MiB, 48 MiB for an f32 add: L1, L2, beyond most L3s
		KindRows:   {"256x1024", "4096x1024"},
		KindFFT:    {"1Ki", "64Ki", "1Mi"},
		KindSparse: {"banded:n=256Ki:bw=8", "uniform:n=256Ki:nnz=4Mi"},
	},
	"standard": {
		KindMatMul: {"256", "512", "1024", "2048"},
		KindMatVec: {"1024", "4096"},
		KindVector: {"1Ki", "16Ki", "256Ki", "16Mi"},
		KindRows:   {"256x1024", "4096x1024"},
		KindFFT:    {"1Ki", "3Ki", "5Ki", "4099", "64Ki", "1Mi", "1Kix1Ki:2d"},
		KindSparse: {"banded:n=256Ki:bw=8", "uniform:n=256Ki:nnz=4Mi", "powerlaw:n=256Ki:nnz=4Mi"},
	},
	"full": {
		KindMatMul: {"128", "256", "512", "1024", "2048", "4096", "1024x1024x64", "64x4096x1024", "1024:NT", "1024:TN", "1024:TT"},
		KindMatVec: {"256", "1024", "4096", "8192x512"},
		KindVector: {"1Ki", "4Ki", "16Ki", "64Ki", "256Ki", "1Mi", "16Mi", "64Mi"},
		KindRows:   {"128x128", "256x1024", "4096x1024", "1024x32768"},
		KindFFT:    {"256", "1Ki", "3Ki", "5Ki", "4099", "16Ki", "64Ki", "1Mi", "16Mi", "64x1Ki", "256x256:2d", "1Kix1Ki:2d"},
		KindSparse: {"banded:n=16Ki:bw=4", "banded:n=1Mi:bw=16", "uniform:n=16Ki:nnz=256Ki", "uniform:n=1Mi:nnz=16Mi", "powerlaw:n=1Mi:nnz=16Mi"},
	},
}

// Selection narrows a suite: nil fields keep the suite's choice.
type Selection struct {
	Suite  string   // quick, default (DefaultSuite, when empty), standard, full, deepbench
	Ops    []Op     // all when empty
	DTypes []DType  // when empty: f32 and f64 (layer ops and the deepbench suite: f32)
	Sizes  []string // -size values, overriding the suite's shapes for every selected op
	// Matrices are -matrix's Matrix Market files: more sizes of the sparse
	// ops alone (with no Sizes, their only ones); the other ops keep theirs.
	Matrices []string
}

// Expand lists the workloads of a selection in report order: by op, then
// dtype, then size.
func Expand(sel Selection) ([]Workload, error) {
	ws, _, err := ExpandSkipping(sel)
	return ws, err
}

// ExpandSkipping is Expand that, of several ops and dtypes named together,
// leaves out each op's dtypes it is not defined in, and says so in
// skipped ("quantize f32: quantize takes dtype i8 or u8"): a list such
// as -op=gemm,quantize -dtype=f32,i8 runs the three pairs that exist. A
// named op defined in none of the dtypes, or a dtype no named op is
// defined in, is still an error.
func ExpandSkipping(sel Selection) (_ []Workload, skipped []string, _ error) {
	if err := checkPairs(sel); err != nil {
		return nil, nil, err
	}
	suite := sel.Suite
	if suite == "" {
		suite = DefaultSuite
	}
	if !slices.Contains(Suites, suite) {
		return nil, nil, fmt.Errorf("unknown suite %q (accepted: %s)", suite, strings.Join(Suites, ", "))
	}
	ops := sel.Ops
	if len(ops) == 0 {
		ops = Ops
	}
	var out []Workload
	for _, op := range ops {
		specs, matrices := sel.Sizes, []string(nil)
		if op.Sparse() {
			matrices = sel.Matrices
		}
		if len(specs) == 0 && len(matrices) == 0 {
			specs = suiteSpecs(suite, op) // deepbench.go
		}
		if len(specs) == 0 && len(matrices) == 0 {
			if len(sel.Ops) > 0 {
				return nil, nil, noShapesError(suite, op)
			}
			continue // -op=all: the ops this suite has shapes for
		}
		if op.Quant() && len(sel.Ops) == 0 && len(sel.DTypes) == 0 {
			continue // the quantization ops run when named, or asked for by a dtype of theirs
		}
		dtypes := sel.DTypes
		if len(dtypes) == 0 {
			dtypes = defaultDTypes(suite, op)
		}
		// Each shape with the flag that gave it, "" for the suite's own:
		// a shape that parses but is refused (too large) is named by it.
		var shapes []Shape
		var from []string
		sizeFlag := ""
		if len(sel.Sizes) > 0 {
			sizeFlag = "-size: "
		}
		for _, spec := range specs {
			sh, err := ParseShape(op, spec)
			if err != nil {
				return nil, nil, fmt.Errorf("-size: %s: %v", op, err)
			}
			// One workload per shape, however written (4Ki and 4096): a
			// second would be measured again and then dropped from the
			// results, which key on the shape.
			if !slices.Contains(shapes, sh) {
				shapes = append(shapes, sh)
				from = append(from, sizeFlag)
			}
		}
		for _, f := range matrices {
			sh, err := ParseShape(op, MatrixFile+":"+f)
			if err != nil {
				return nil, nil, fmt.Errorf("-matrix: %v", err)
			}
			if !slices.Contains(shapes, sh) {
				shapes = append(shapes, sh)
				from = append(from, "-matrix: ")
			}
		}
		for _, dt := range dtypes {
			if !op.Accepts(dt) {
				// -op=all with -dtype=bf16: the ops defined in bf16 alone;
				// a named op: checkPairs found another of the dtypes for it.
				if len(sel.Ops) > 0 {
					skipped = append(skipped, fmt.Sprintf("%s %s: %v", op, dt, Workload{Op: op, DType: dt}.validateDType()))
				}
				continue
			}
			for i, sh := range shapes {
				w := Workload{Op: op, DType: dt, Shape: sh}
				if err := w.Validate(); err != nil {
					return nil, nil, fmt.Errorf("%s%v", from[i], err)
				}
				out = append(out, w)
			}
		}
	}
	if len(sel.Matrices) > 0 && !slices.ContainsFunc(out, func(w Workload) bool { return w.Op.Sparse() }) {
		return nil, nil, fmt.Errorf("-matrix: matrix files are sizes of the sparse ops (%s), and this -op and -dtype select none of them", joinOps(SparseOps))
	}
	return out, skipped, nil
}

// checkPairs refuses named ops and named dtypes that have no pair between
// them: an op defined in none of the dtypes (-op=quantize -dtype=f32), or
// a dtype none of the ops is defined in (-op=relu,exp -dtype=f32,i8).
func checkPairs(sel Selection) error {
	if len(sel.Ops) == 0 || len(sel.DTypes) == 0 {
		return nil
	}
	fitsNone := func(op Op) bool { return !slices.ContainsFunc(sel.DTypes, op.Accepts) }
	// A quantization op's own short list is the useful answer even when
	// the dtype fits no other op (-op=quantize -dtype=f32) ...
	for _, op := range sel.Ops {
		if op.Quant() && fitsNone(op) {
			return opDTypeError(op, sel.DTypes)
		}
	}
	// ... for the others, a dtype no named op takes (-op=exp -dtype=i8) ...
	for _, dt := range sel.DTypes {
		if !slices.ContainsFunc(sel.Ops, func(op Op) bool { return op.Accepts(dt) }) {
			return dtypeError(dt)
		}
	}
	// ... else the op the dtypes leave out (-op=gemm,axpy -dtype=i8).
	for _, op := range sel.Ops {
		if fitsNone(op) {
			return opDTypeError(op, sel.DTypes)
		}
	}
	return nil
}
