//go:build cgo

package cblas_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/cgo/cblas"
	"github.com/peakbench/peakbench/native"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

func TestInfo(t *testing.T) {
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		d := l.Details()
		t.Logf("%v %v", l, d)
		// A library that picks no kernels at run time says why instead of a code path.
		if l.Version() == "" || l.Path() == "" || d["threading"] == "" || d["code_path"]+d["code_path_unknown"] == "" {
			t.Errorf("%s: version %q, path %q, details %v: want all set", l.Name(), l.Version(), l.Path(), d)
		}
		if !filepath.IsAbs(l.Path()) {
			t.Errorf("Path() = %q; want an absolute path", l.Path())
		}
	})
}

func TestNotFound(t *testing.T) {
	_, err := cblas.OpenPath("openblas", "/nonexistent/libopenblas.so.0")
	var le *cblas.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v (%T); want *LoadError", err, err)
	}
	if len(le.Tried) != 1 || !strings.HasPrefix(le.Tried[0], "/nonexistent/libopenblas.so.0: ") {
		t.Errorf("Tried = %q; want the one path with dlerror's reason", le.Tried)
	}
	var ce *cblas.Error
	if !errors.As(err, &ce) || ce.Status != native.NotFound {
		t.Errorf("err = %v; want status NotFound", err)
	}
	msg := err.Error()
	for _, want := range []string{"cblas: openblas:", "/nonexistent/libopenblas.so.0", "No such file", "install libopenblas-dev"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q spans several lines", msg)
	}

	t.Setenv("PEAKBENCH_BLIS", "/nonexistent/libblis.so")
	_, err = cblas.Open("blis")
	if !errors.As(err, &le) || len(le.Tried) != 1 || !strings.HasPrefix(le.Tried[0], "PEAKBENCH_BLIS=/nonexistent/libblis.so: ") {
		t.Errorf("with PEAKBENCH_BLIS set: err = %v; want only that file tried", err)
	}

	// Files that are not shared libraries at all.
	for _, path := range []string{"/etc/passwd", "/usr", "/bin/ls"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		_, err := cblas.OpenPath("openblas", path)
		if !errors.As(err, &le) || len(le.Tried) != 1 {
			t.Errorf("OpenPath(openblas, %s) = %v; want a LoadError", path, err)
		}
	}

	accepted := "accepted: " + strings.Join(cblas.Names(), ", ") + ")"
	if _, err := cblas.Open("nosuchblas"); err == nil || !strings.Contains(err.Error(), accepted) {
		t.Errorf("Open(nosuchblas) = %v; want the accepted names (%s)", err, accepted)
	}
}

func TestNotABLAS(t *testing.T) {
	libm := "/lib/x86_64-linux-gnu/libm.so.6"
	if _, err := os.Stat(libm); err != nil {
		t.Skip("no", libm)
	}
	_, err := cblas.OpenPath("openblas", libm)
	var ce *cblas.Error
	if !errors.As(err, &ce) || ce.Status != native.Symbol || !strings.Contains(err.Error(), "cblas_sgemm") {
		t.Errorf("libm as openblas: err = %v; want a missing-symbol error naming cblas_sgemm", err)
	}
}

// TestMissingSymbol builds a library with every symbol peakbench needs from
// OpenBLAS except cblas_sgemm.
func TestMissingSymbol(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler:", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fake.c")
	var b strings.Builder
	for _, f := range []string{"cblas_dgemm", "cblas_sgemv", "cblas_dgemv", "cblas_saxpy", "cblas_daxpy", "cblas_sdot", "cblas_ddot", "openblas_set_num_threads", "openblas_get_num_threads"} {
		b.WriteString("void " + f + "(void) {}\n")
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "libfake.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	_, err = cblas.OpenPath("openblas", so)
	var ce *cblas.Error
	if !errors.As(err, &ce) || ce.Status != native.Symbol {
		t.Fatalf("err = %v; want a missing-symbol error", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "missing symbol cblas_sgemm") || !strings.Contains(msg, so) {
		t.Errorf("message %q: want it to name cblas_sgemm alone and the file", msg)
	}
}

func TestWrongFamily(t *testing.T) {
	nl := openLib(t, "netlib")
	_, err := cblas.OpenPath("blis", nl.Path())
	if err == nil || !strings.Contains(err.Error(), "is not blis: missing symbols bli_thread_set_num_threads") {
		t.Errorf("netlib as blis: err = %v; want the BLIS symbols named", err)
	}
	_, err = cblas.OpenPath("mkl", nl.Path())
	if err == nil || !strings.Contains(err.Error(), "MKL_Set_Threading_Layer") {
		t.Errorf("netlib as mkl: err = %v; want MKL's missing symbol named", err)
	}
}

func TestNetlibImpostor(t *testing.T) {
	ob := openLib(t, "openblas")
	t.Setenv("PEAKBENCH_NETLIB", ob.Path())
	_, err := cblas.Open("netlib")
	if err == nil || !strings.Contains(err.Error(), "is OpenBLAS") {
		t.Errorf("netlib pointing at OpenBLAS: err = %v; want a refusal", err)
	}
}

// oneThread reports whether the row of name says it has no thread control.
func oneThread(name string) bool {
	for _, f := range cblas.Families() {
		if f.Name == name {
			return f.OneThread
		}
	}
	return false
}

// TestFamilies: the C layer's table, as Go sees it: the libraries
// peakbench has always known among them, every row complete.
func TestFamilies(t *testing.T) {
	fams := cblas.Families()
	for _, want := range []string{"openblas", "blis", "mkl", "netlib"} {
		if cblas.Describe(want) == "" {
			t.Errorf("no row for %s in %v", want, cblas.Names())
		}
	}
	for i, f := range fams {
		if f.Name != cblas.Names()[i] || f.Description == "" || cblas.Describe(f.Name) != f.Description ||
			f.Env != "PEAKBENCH_"+strings.ToUpper(f.Name) || !strings.Contains(f.Hint, f.Env) {
			t.Errorf("row %d: %+v", i, f)
		}
	}
	if oneThread("openblas") || !oneThread("netlib") {
		t.Errorf("OneThread: openblas %v, netlib %v; want false, true", oneThread("openblas"), oneThread("netlib"))
	}
	if cblas.Describe("nosuchblas") != "" {
		t.Error("a description for an unknown name")
	}
}

func TestThreads(t *testing.T) {
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		for _, n := range []int{0, -1, 10000, cblas.MaxThreads + 1} {
			err := l.SetThreads(n)
			if !errors.Is(err, cblas.ErrInvalid) || !strings.Contains(err.Error(), "accepted: 1 to 1024") {
				t.Errorf("SetThreads(%d) = %v; want ErrInvalid naming the range", n, err)
			}
		}
		if err := l.SetThreads(1); err != nil || l.Threads() != 1 {
			t.Errorf("SetThreads(1) = %v, Threads() = %d", err, l.Threads())
		}
		err := l.SetThreads(2)
		switch {
		case oneThread(l.Name()):
			if !errors.Is(err, cblas.ErrUnsupported) || l.Threads() != 1 {
				t.Errorf("%s SetThreads(2) = %v, Threads() = %d; want ErrUnsupported, 1", l.Name(), err, l.Threads())
			}
		default:
			if err != nil || l.Threads() != 2 {
				t.Errorf("SetThreads(2) = %v, Threads() = %d", err, l.Threads())
			}
		}
		if l.Name() == "openblas" && strings.Contains(l.Details()["config"], "MAX_THREADS=64") {
			if err := l.SetThreads(100); !errors.Is(err, cblas.ErrUnsupported) || l.Threads() != 2 {
				t.Errorf("openblas SetThreads(100) beyond MAX_THREADS=64: %v, left at %d; want ErrUnsupported, left at 2", err, l.Threads())
			}
		}
		if _, err := l.PrepareDot(cblas.F32, 4, cblas.JobOptions{Threads: 10000}); !errors.Is(err, cblas.ErrInvalid) {
			t.Errorf("PrepareDot with 10000 threads: err = %v; want ErrInvalid", err)
		}
	})
}

func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		s, _ := r.(string)
		if !strings.HasPrefix(s, "cblas: ") || !strings.Contains(s, want) {
			t.Errorf("%s: panic %v; want a \"cblas: ...%s\" panic", what, r, want)
		}
	}()
	f()
}

func TestCallerMistakes(t *testing.T) {
	l := openLib(t, "netlib") // the reference CBLAS exits on bad arguments: none may reach it
	a := make([]float64, 6)
	mustPanic(t, "lda", "leading dimension of A", func() { l.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) })
	mustPanic(t, "short a", "length of a", func() { l.Dgemm(blas.NoTrans, blas.NoTrans, 3, 2, 3, 1, a, 3, a, 2, 0, a, 2) })
	mustPanic(t, "trans", "transpose", func() { l.Dgemm('X', blas.NoTrans, 2, 2, 2, 1, a, 2, a, 2, 0, a, 2) })
	mustPanic(t, "m<0", "m < 0", func() { l.Dgemm(blas.NoTrans, blas.NoTrans, -1, 2, 2, 1, a, 2, a, 2, 0, a, 2) })
	mustPanic(t, "incX", "zero x", func() { l.Ddot(2, a, 0, a, 1) })
	mustPanic(t, "short y", "length of y", func() { l.Daxpy(4, 1, a, 1, a, 2) })
	mustPanic(t, "gemv lda", "leading dimension", func() { l.Dgemv(blas.NoTrans, 2, 3, 1, a, 2, a, 1, 0, a, 1) })
	mustPanic(t, "trsm side", "side", func() { l.Dtrsm('X', blas.Upper, blas.NoTrans, blas.Unit, 1, 1, 1, a, 1, a, 1) })
	s := make([]float32, 4)
	mustPanic(t, "sgemm ldc", "leading dimension of C", func() { l.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, s, 2, s, 2, 0, s, 1) })
	// Empty slices are fine when nothing is read.
	l.Sgemm(blas.NoTrans, blas.NoTrans, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1)
	if l.Sdot(0, nil, 1, nil, 1) != 0 {
		t.Error("Sdot of nothing is not 0")
	}
	l.Close()
	mustPanic(t, "closed", "closed", func() { l.Ddot(1, a, 1, a, 1) })
}

func TestJob(t *testing.T) {
	forEachLib(t, func(t *testing.T, l *cblas.Library) {
		j, err := l.PrepareGemm(cblas.F64, false, true, 2, 3, 2, cblas.JobOptions{Copies: 3, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if _, err := j.Output(); err == nil {
			t.Error("Output before any Run: no error")
		}
		if err := j.SetInput(0, []float64{1, 2, 3}); err == nil {
			t.Error("SetInput with 3 of 4 elements: no error")
		}
		if err := j.SetInput(0, []float64{1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
		// B is n×k = 3×2 (transposed): op(B) = [[1 3 5] [2 4 6]].
		if err := j.SetInput(1, []float64{1, 2, 3, 4, 5, 6}); err != nil {
			t.Fatal(err)
		}
		for _, iters := range []int{1, 4} {
			if d, err := j.Run(iters); err != nil || d <= 0 {
				t.Fatalf("Run(%d) = %v, %v", iters, d, err)
			}
			out, err := j.Output()
			if err != nil {
				t.Fatal(err)
			}
			want := []float64{5, 11, 17, 11, 25, 39}
			for i := range want {
				if out[i] != want[i] {
					t.Fatalf("after Run(%d): C = %v; want %v", iters, out, want)
				}
			}
		}
		if _, err := j.Run(-1); err == nil {
			t.Error("Run(-1): no error")
		}
		// Closing the library keeps it alive for the open job.
		l.Close()
		if _, err := j.Run(2); err != nil {
			t.Errorf("Run after the library's Close: %v", err)
		}
		j.Close()
		j.Close()
		if _, err := j.Run(1); err == nil {
			t.Error("Run after Close: no error")
		}
	})
}

func TestVML(t *testing.T) {
	l := openLib(t, "mkl")
	for _, op := range []cblas.VMLOp{cblas.VMLAdd, cblas.VMLMul, cblas.VMLExp, cblas.VMLTanh} {
		if !l.HasVML(op, cblas.F32) || !l.HasVML(op, cblas.F64) {
			t.Errorf("mkl lacks VML %v", op)
		}
	}
	if l.HasVML(cblas.VMLSigmoid, cblas.F32) {
		t.Error("mkl has a VML sigmoid? update the backend")
	}
	if _, err := l.PrepareVML(cblas.VMLSigmoid, cblas.F32, 8, cblas.JobOptions{}); !errors.Is(err, cblas.ErrUnsupported) {
		t.Errorf("sigmoid: err = %v; want ErrUnsupported", err)
	}
	j, err := l.PrepareVML(cblas.VMLExp, cblas.F64, 3, cblas.JobOptions{Copies: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.SetInput(0, []float64{0, 1, -1})
	j.Run(3)
	out, _ := j.Output()
	if out[0] != 1 || !near(out[1], 2.718281828459045, 1, 1e-15) {
		t.Errorf("vdExp = %v", out)
	}
	ob := openLib(t, "openblas")
	if _, err := ob.PrepareVML(cblas.VMLAdd, cblas.F32, 8, cblas.JobOptions{}); !errors.Is(err, cblas.ErrUnsupported) {
		t.Errorf("openblas VML: err = %v; want ErrUnsupported", err)
	}
}

// TestNoCgo checks that the packages build and behave without cgo.
func TestNoCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with CGO_ENABLED=0 (slow)")
	}
	goexe := filepath.Join(runtime.GOROOT(), "bin", "go")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goexe, "test", "-count=1", "-run", "TestNoCgoOpen", "./cgo/cblas", "./cgo/onednn")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go test: %v\n%s", err, out)
	}
	cmd = exec.Command(goexe, "vet", "./native", "./cgo/...", "./bench/backend/cblas", "./bench/backend/onednn")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go vet: %v\n%s", err, out)
	}
}

// TestGonumMat checks that gonum/mat runs on the library after blas64.Use.
func TestGonumMat(t *testing.T) {
	l := openLib(t, "openblas")
	blas64.Use(l.Float64())
	defer blas64.Use(gonum.Implementation{})
	if impl, ok := blas64.Implementation().(cblas.Float64Impl); !ok || impl.Library() != l {
		t.Fatalf("blas64.Implementation() = %T; want the library's Float64Impl", blas64.Implementation())
	}
	const n = 37
	a, b := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, float64(i-j)/7)
			b.Set(i, j, float64(i*j%5)-2)
		}
	}
	var got mat.Dense
	got.Mul(a, b.T())
	blas64.Use(gonum.Implementation{})
	var want mat.Dense
	want.Mul(a, b.T())
	if !mat.EqualApprox(&got, &want, 1e-12) {
		t.Errorf("gonum/mat on openblas differs from gonum")
	}
}

// TestBLISArchOverride opens BLIS in a child process with BLIS_ARCH_TYPE set,
// the override its multi-architecture builds read at initialisation: the open
// must succeed and the code path name the configuration asked for (0, the
// first of x86-64 builds: skx). Querying the code path before BLIS has
// initialised aborted the process under this override.
func TestBLISArchOverride(t *testing.T) {
	if os.Getenv("PEAKBENCH_BLIS_CHILD") == "1" {
		l := openLib(t, "blis")
		t.Logf("code_path=%s", l.Details()["code_path"])
		return
	}
	openLib(t, "blis").Close() // skips where BLIS is absent
	if runtime.GOARCH != "amd64" {
		t.Skip("configuration 0 is skx on x86-64 builds only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBLISArchOverride$", "-test.v")
	cmd.Env = append(os.Environ(), "PEAKBENCH_BLIS_CHILD=1", "BLIS_ARCH_TYPE=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("BLIS with BLIS_ARCH_TYPE=0: %v\n%s", err, out)
	}
	t.Logf("child: %s", bytes.TrimSpace(out))
	if !strings.Contains(string(out), "code_path=skx") {
		t.Errorf("BLIS with BLIS_ARCH_TYPE=0 did not report skx:\n%s", out)
	}
}

// TestFamiliesFromSource: a build without cgo reads the rows from the C
// source; that reading must match the table compiled here.
func TestFamiliesFromSource(t *testing.T) {
	var parsed []cblas.Family
	for _, r := range native.CBLASRowsFromSource() {
		parsed = append(parsed, cblas.Family(r))
	}
	if !reflect.DeepEqual(parsed, cblas.Families()) {
		t.Errorf("rows read from native/cblas_families.c:\n%+v\ncompiled:\n%+v", parsed, cblas.Families())
	}
}
