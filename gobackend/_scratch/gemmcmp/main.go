package main

/*
#cgo CFLAGS: -I/usr/include/x86_64-linux-gnu/openblas-pthread
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
extern void openblas_set_num_threads(int);
*/
import "C"

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/peakbench/peakbench/gobackend/gemm"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// candidates: level[@kc,mc,nc] comma... separated by ';'
func main() {
	n := flag.Int("n", 1024, "size")
	th := flag.Int("t", 1, "threads")
	d := flag.Bool("d", false, "f64")
	reps := flag.Int("r", 15, "rounds")
	lv := flag.String("l", "avx2;avx512", "candidates: level[@kc,mc,nc];...")
	secs := flag.Float64("s", 0.25, "seconds per sample")
	flag.Parse()
	runtime.GOMAXPROCS(*th)
	C.openblas_set_num_threads(C.int(*th))
	N := *n
	r := rand.New(rand.NewPCG(1, 2))
	a32, b32, c32 := make([]float32, N*N), make([]float32, N*N), make([]float32, N*N)
	a64, b64, c64 := make([]float64, N*N), make([]float64, N*N), make([]float64, N*N)
	for i := range a32 {
		a32[i], b32[i] = float32(r.Float64()), float32(r.Float64())
		a64[i], b64[i] = r.Float64(), r.Float64()
	}
	type cand struct {
		name string
		f    func()
	}
	var cs []cand
	for _, spec := range strings.Split(*lv, ";") {
		spec0 := spec
		spec, qs, _ := strings.Cut(spec, "#")
		q, _ := strconv.Atoi(qs)
		q = max(q, 1)
		l, blk, _ := strings.Cut(spec, "@")
		lvl := map[string]isa.Level{"generic": isa.Generic, "avx2": isa.AVX2, "avx512": isa.AVX512}[l]
		var bs [3]int
		if blk != "" {
			for i, f := range strings.Split(blk, ",") {
				bs[i], _ = strconv.Atoi(f)
			}
		}
		set := func() { gemm.SetBlocksTmp(bs[0], bs[1], bs[2]); gemm.SetItemsTmp(q) }
		spec = spec0
		if *d {
			cs = append(cs, cand{spec, func() { set(); gemm.Gemm(lvl, false, false, N, N, N, 1, a64, N, b64, N, 0, c64, N, *th) }})
		} else {
			cs = append(cs, cand{spec, func() { set(); gemm.Gemm(lvl, false, false, N, N, N, 1, a32, N, b32, N, 0, c32, N, *th) }})
		}
	}
	if *d {
		cs = append(cs, cand{"openblas", func() {
			C.cblas_dgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasNoTrans, C.int(N), C.int(N), C.int(N), 1, (*C.double)(&a64[0]), C.int(N), (*C.double)(&b64[0]), C.int(N), 0, (*C.double)(&c64[0]), C.int(N))
		}})
	} else {
		cs = append(cs, cand{"openblas", func() {
			C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasNoTrans, C.int(N), C.int(N), C.int(N), 1, (*C.float)(&a32[0]), C.int(N), (*C.float)(&b32[0]), C.int(N), 0, (*C.float)(&c32[0]), C.int(N))
		}})
	}
	res := make([][]float64, len(cs))
	flops := 2 * float64(N) * float64(N) * float64(N)
	iters := max(1, int(*secs*90e9*float64(*th)/flops))
	for _, c := range cs {
		c.f()
	}
	rr := rand.New(rand.NewPCG(3, 4))
	for rep := 0; rep < *reps; rep++ {
		order := rr.Perm(len(cs))
		for _, i := range order {
			c := cs[i]
			t := time.Now()
			for range iters {
				c.f()
			}
			res[i] = append(res[i], flops*float64(iters)/time.Since(t).Seconds()/1e9)
		}
	}
	for i, c := range cs {
		s := append([]float64(nil), res[i]...)
		sort.Float64s(s)
		fmt.Printf("%-28s median %6.1f  max %6.1f GFLOP/s  ratio/openblas median %.3f\n", c.name, s[len(s)/2], s[len(s)-1], ratio(res[i], res[len(cs)-1]))
	}
}

func ratio(a, b []float64) float64 {
	var r []float64
	for i := range a {
		r = append(r, a[i]/b[i])
	}
	sort.Float64s(r)
	return r[len(r)/2]
}
