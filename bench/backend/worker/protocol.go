package worker

import (
	"github.com/peakbench/peakbench/bench/workload"
)

// Protocol is the version of the worker protocol this package speaks
// (docs/workers.md). A worker whose hello names another is refused.
const Protocol = 1

// request is one line peakbench writes to a worker's standard input. Cmd
// says which; the other fields belong to the commands that use them.
type request struct {
	Cmd      string `json:"cmd"`                // hello, prepare, run, output, free, close; info (serve.go)
	Protocol int    `json:"protocol,omitempty"` // hello
	Device   string `json:"device,omitempty"`   // hello: "cpu", or "cuda:N" for a GPU worker
	ID       int    `json:"id,omitempty"`       // prepare, run, output, free: the kernel

	// prepare
	Op      string   `json:"op,omitempty"`
	DType   string   `json:"dtype,omitempty"`
	Shape   string   `json:"shape,omitempty"` // as -size writes it (workload.ParseShape reads it)
	Dims    *dims    `json:"dims,omitempty"`
	Alpha   float64  `json:"alpha,omitempty"`
	Threads int      `json:"threads,omitempty"`
	Copies  int      `json:"copies,omitempty"`
	File    string   `json:"file,omitempty"` // the shared file the inputs and output live in
	Inputs  []region `json:"inputs,omitempty"`
	Output  *region  `json:"output,omitempty"`
	// Index holds a sparse workload's CSR pattern as int32 regions in the
	// same file: the row pointers (rows+1), then the column indices (nnz).
	// Left out for peakbench's own workers, which make the matrix again
	// from the shape.
	Index []region `json:"index,omitempty"`
	// Algorithm is one of those the hello's algorithms lists for the op;
	// "" is the worker's one way.
	Algorithm string `json:"algorithm,omitempty"`
	Iters     int    `json:"iters,omitempty"` // run
}

// dims is a workload's shape as numbers, for workers that would rather
// not parse Shape. Fields an op does not use are left out.
type dims struct {
	M      int    `json:"m,omitempty"`
	N      int    `json:"n,omitempty"`
	K      int    `json:"k,omitempty"`
	TransA bool   `json:"trans_a,omitempty"`
	TransB bool   `json:"trans_b,omitempty"`
	Layer  *layer `json:"layer,omitempty"`
	Sparse *csr   `json:"sparse,omitempty"`
}

// csr is a sparse workload's matrix in the protocol's names: rows×cols
// with nnz entries; k is X's columns (spmm; 1 for spmv).
type csr struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	NNZ  int `json:"nnz"`
	K    int `json:"k"`
}

// layer is workload.LayerShape in the protocol's names.
type layer struct {
	N      int     `json:"n"`
	C      int     `json:"c"`
	K      int     `json:"k,omitempty"`
	Rank   int     `json:"rank"`
	In     [3]int  `json:"in"`
	Window [3]int  `json:"window"`
	Stride [3]int  `json:"stride"`
	Pad    [3]int  `json:"pad"`
	Dil    [3]int  `json:"dil"`
	Out    [3]int  `json:"out"`
	Groups int     `json:"groups,omitempty"`
	NHWC   bool    `json:"nhwc,omitempty"`
	Eps    float64 `json:"eps,omitempty"`
}

// region is one buffer in the shared file: count elements of the
// workload's dtype, little-endian, starting offset bytes in.
type region struct {
	Offset int64 `json:"offset"`
	Count  int   `json:"count"`
}

// reply is one line a worker writes to its standard output for each
// request, in order. OK is required; a reply without it is malformed.
type reply struct {
	OK          *bool  `json:"ok"`
	Error       string `json:"error,omitempty"`
	Unsupported bool   `json:"unsupported,omitempty"` // prepare: the worker has no such op or dtype
	Missing     bool   `json:"missing,omitempty"`     // hello: the framework cannot be imported here

	// hello
	Protocol int                 `json:"protocol,omitempty"`
	Name     string              `json:"name,omitempty"`
	Version  string              `json:"version,omitempty"`
	Device   string              `json:"device,omitempty"`
	Ops      map[string][]string `json:"ops,omitempty"`
	Threads  bool                `json:"threads,omitempty"` // honours prepare's threads
	Details  map[string]string   `json:"details,omitempty"`
	// Algorithms lists, per op, the ways the worker computes it that
	// results tell apart (backend.BackendAlgorithms); absent: one way.
	Algorithms map[string][]string `json:"algorithms,omitempty"`
	// Unavailable says, per op the worker knows but does not list in Ops
	// (key "fft"), or per op and dtype it lists the op without (key
	// "gemm bf16"), why the framework at hand cannot compute it ("SciPy 1.3
	// has no scipy.fft"): the refusal of that workload says so.
	Unavailable map[string]string `json:"unavailable,omitempty"`

	// info (peakbench's own workers): what makes the numbers suspect,
	// e.g. a GPU that throttled
	Warnings []string `json:"warnings,omitempty"`

	// prepare
	Implementation string `json:"implementation,omitempty"` // the call timed, e.g. "torch.mm(a, b, out=c)"
	Algorithm      string `json:"algorithm,omitempty"`      // the algorithm the kernel runs, when it names one
	ComputeUnit    string `json:"compute_unit,omitempty"`   // the unit its arithmetic runs on (backend.KernelComputeUnit)
	PlanNS         int64  `json:"plan_ns,omitempty"`        // the library's planning time (backend.KernelPlanTime)

	// run
	NS *int64 `json:"ns,omitempty"` // the iterations' total time by the worker's clock
}

// dimsOf writes w's shape as numbers.
func dimsOf(w workload.Workload) *dims {
	s := w.Shape
	if w.Op.Layer() {
		l := s.Layer
		return &dims{Layer: &layer{N: l.N, C: l.C, K: l.K, Rank: l.Rank, In: l.In, Window: l.Window,
			Stride: l.Stride, Pad: l.Pad, Dil: l.Dil, Out: l.Out, Groups: l.Groups, NHWC: l.NHWC,
			Eps: workload.NormEpsilon}}
	}
	if w.Op.Sparse() {
		m := s.Sparse
		k := 1
		if w.Op == workload.SpMM {
			k = m.K
		}
		return &dims{Sparse: &csr{Rows: m.Rows, Cols: m.Cols, NNZ: m.NNZ, K: k}}
	}
	// The Fourier transforms: m the batch, n the length (a 2-D
	// transform's columns), k a 2-D transform's rows (0: 1-D).
	return &dims{M: s.M, N: s.N, K: s.K, TransA: s.TransA, TransB: s.TransB}
}
