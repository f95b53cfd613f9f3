package main

// The streaming GEMM's row-remainder kernels (gobackend/gemm/stream.go):
// for each micro-kernel of gemmKernels, the same nr with every smaller
// number of rows. A product with few rows (a convolution's K output
// channels) otherwise computes its last m mod mr rows as a whole mr-row
// tile: m = 16 with the 14-row AVX-512 kernels did 28 rows' work for 16.
// They read A panels packed rows wide (k steps of rows values) and B's
// usual nr-wide panels; their unpacked twins (sgemm2x32AVX512Direct) read
// A's rows and B's in place, for the direct path.
func genGemmStream(g *gen) {
	// The AVX-512 kernels' prefetching variants: their B panels are 128
	// bytes wide (f32 and f64), the two lines each prefetch covers.
	for _, k := range gemmKernels {
		if k.w == zmm {
			k.prefetchB = true
			g.gemmMicroKernel(k)
		}
	}
	for _, k := range gemmKernels {
		for rows := 1; rows < k.mr; rows++ {
			r := k
			r.mr = rows
			g.gemmMicroKernel(r)
			// The direct path's (gemm: direct.go): A's last rows read in
			// place, as the full tiles' are.
			g.gemmDirectKernel(r)
		}
	}
	for _, k := range narrowKernels {
		for rows := 1; rows < k.mr; rows++ {
			r := k
			r.mr = rows
			g.gemmDirectKernel(r)
		}
	}
}
