//go:build cgo

package cblas_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cblas"
	"gonum.org/v1/gonum/blas"
)

// TestMKLThreadingLayers opens MKL in a child process per layer (MKL picks
// its layer once per process): each runs or fails with an error, never by
// MKL exiting the process.
func TestMKLThreadingLayers(t *testing.T) {
	if os.Getenv("PEAKBENCH_MKL_CHILD") != "" {
		mklChild()
		return
	}
	openLib(t, "mkl") // skip where MKL is absent
	for _, tc := range []struct{ env, want string }{
		{"", "threading=intel"},
		{"GNU", "threading=gnu"},
		{"sequential", "threading=sequential"},
		{"TBB", ""}, // runs where libtbb is installed, else a clear error
		{"bogus", "is not a layer"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMKLThreadingLayers$")
		cmd.Env = append(os.Environ(), "PEAKBENCH_MKL_CHILD=1", "MKL_THREADING_LAYER="+tc.env)
		out, err := cmd.CombinedOutput()
		s := string(out)
		t.Logf("MKL_THREADING_LAYER=%s: %s", tc.env, strings.TrimSpace(strings.SplitN(s, "\n", 2)[0]))
		if err != nil {
			t.Errorf("MKL_THREADING_LAYER=%s: the child died: %v\n%s", tc.env, err, s)
			continue
		}
		if tc.env == "TBB" {
			if !strings.Contains(s, "threading=tbb") && !strings.Contains(s, "MKL_THREADING_LAYER=TBB cannot run") {
				t.Errorf("TBB: %s", s)
			}
			continue
		}
		if !strings.Contains(s, tc.want) {
			t.Errorf("MKL_THREADING_LAYER=%s: output lacks %q:\n%s", tc.env, tc.want, s)
		}
	}
}

// mklChild opens MKL, prints its layer, multiplies, and tries 2 threads.
func mklChild() {
	l, err := cblas.Open("mkl")
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	d := l.Details()
	c := make([]float64, 4)
	l.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, []float64{1, 2, 3, 4}, 2, []float64{5, 6, 7, 8}, 2, 0, c, 2)
	err = l.SetThreads(2)
	fmt.Printf("threading=%s (%s) c=%v threads2=%v unsupported=%v\n", d["threading"], d["threading_reason"], c, err, errors.Is(err, cblas.ErrUnsupported))
	if c[0] != 19 || c[3] != 50 {
		fmt.Println("WRONG PRODUCT")
	}
}

// TestBindings checks, in a child process traced with LD_DEBUG=bindings,
// that libraries loaded after MKL bind to their own code, not to what MKL
// put in the global scope: BLIS's OpenMP calls to its libgomp (MKL's
// libiomp5 exports the same GOMP_* symbol versions, and took BLIS's thread
// count), and the reference CBLAS's sgemm_ to the reference BLAS (MKL's
// parts export sgemm_ too, and ran "netlib" at MKL's speed).
func TestBindings(t *testing.T) {
	if os.Getenv("PEAKBENCH_OMP_CHILD") != "" {
		for _, name := range []string{"mkl", "blis", "netlib"} {
			l, err := cblas.Open(name)
			if err != nil {
				fmt.Println("open:", err)
				return
			}
			c := make([]float64, 1)
			l.Dgemm(blas.NoTrans, blas.NoTrans, 1, 1, 1, 1, []float64{2}, 1, []float64{3}, 1, 0, c, 1)
			fmt.Println(name, l.Details()["threading"], c)
		}
		return
	}
	openLib(t, "blis")
	openLib(t, "netlib")
	if d := openLib(t, "mkl").Details(); d["threading"] != "intel" {
		t.Skipf("MKL runs its %s layer here: no libiomp5 in the global scope", d["threading"])
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBindings$")
	cmd.Env = append(os.Environ(), "PEAKBENCH_OMP_CHILD=1", "LD_DEBUG=bindings", "LD_DEBUG_OUTPUT="+dir+"/ld")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	files, _ := os.ReadDir(dir)
	checks := []struct{ from, sym, to string }{
		{"libblis", "`GOMP_parallel'", "libgomp"},
		{"blas/libblas.so", "`sgemm_'", "blas/libblas.so"},
	}
	found := make([]bool, len(checks))
	for _, f := range files {
		data, _ := os.ReadFile(dir + "/" + f.Name())
		for _, line := range strings.Split(string(data), "\n") {
			from, to, ok := strings.Cut(line, " to ")
			if !ok {
				continue
			}
			for i, c := range checks {
				if !strings.Contains(from, c.from) || !strings.Contains(to, c.sym) {
					continue
				}
				found[i] = true
				if !strings.Contains(to, c.to) {
					t.Errorf("%s binds %s elsewhere than %s: %s", c.from, c.sym, c.to, strings.TrimSpace(line))
				}
			}
		}
	}
	for i, c := range checks {
		if !found[i] {
			t.Errorf("no binding of %s's %s traced; child said:\n%s", c.from, c.sym, out)
		}
	}
}
