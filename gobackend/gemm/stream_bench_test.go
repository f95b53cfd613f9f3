package gemm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/gobackend/internal/numtest"
	"github.com/peakbench/peakbench/gobackend/isa"
)

// BenchmarkStream times the paths a few-row product can take, forced, at
// the best level: the loop nest, shared or cut in a grid (grid.go), the
// unpacked direct path (in the order it chooses, and in each loop order
// forced: directrows, directcols) and the
// streaming path, on the convolution shapes (m output channels, n output
// positions, k = C·R·S) and with m growing to find where streaming stops
// paying (streamMaxRows). The sub-benchmarks of one shape run back to
// back: compare them with -count ≥ 2 and benchstat. STREAM_SHAPES=MxNxK,…
// replaces the shapes; STREAM_CHUNKS=1,4,… adds a streaming run per
// chunk width (streamChunkPanels).
func BenchmarkStream(b *testing.B) {
	chunks := []int{streamChunkPanels}
	if env := os.Getenv("STREAM_CHUNKS"); env != "" {
		chunks = nil
		for _, s := range strings.Split(env, ",") {
			c, err := strconv.Atoi(s)
			if err != nil || c < 1 {
				b.Fatalf("STREAM_CHUNKS: %q", s)
			}
			chunks = append(chunks, c)
		}
	}
	shapes := [][3]int{
		{64, 3136, 256}, {64, 3136, 576}, {16, 6272, 432},
		{128, 3136, 576}, {192, 3136, 576}, {256, 3136, 576},
		{64, 392, 576}, {64, 784, 576},
	}
	if env := os.Getenv("STREAM_SHAPES"); env != "" {
		shapes = nil
		for _, s := range strings.Split(env, ",") {
			var d [3]int
			if _, err := fmt.Sscanf(s, "%dx%dx%d", &d[0], &d[1], &d[2]); err != nil {
				b.Fatal(err)
			}
			shapes = append(shapes, d)
		}
	}
	for _, s := range shapes {
		for _, th := range []int{1, 2} {
			paths := []string{"nest", "grid", "direct", "directrows", "directcols"}
			for _, c := range chunks {
				paths = append(paths, fmt.Sprintf("stream%d", c))
			}
			paths = append(paths, "noprefetch")
			for _, path := range paths {
				b.Run(fmt.Sprintf("f32/%dx%dx%d/t=%d/%s", s[0], s[1], s[2], th, path), func(b *testing.B) {
					benchPath[float32](b, path, s[0], s[1], s[2], th)
				})
				b.Run(fmt.Sprintf("f64/%dx%dx%d/t=%d/%s", s[0], s[1], s[2], th, path), func(b *testing.B) {
					benchPath[float64](b, path, s[0], s[1], s[2], th)
				})
			}
		}
	}
}

func benchPath[T Float](b *testing.B, path string, m, n, k, threads int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a := numtest.New[T](m*k, rnd).Data
	bb := numtest.New[T](k*n, rnd).Data
	c := numtest.New[T](m*n, rnd).Data
	kern := kernelFor[T](isa.Best)
	var chunk int
	if _, err := fmt.Sscanf(path, "stream%d", &chunk); err == nil {
		old := streamChunkPanels
		streamChunkPanels = chunk
		defer func() { streamChunkPanels = old }()
	}
	if path == "noprefetch" {
		streamPrefetch = false
		defer func() { streamPrefetch = true }()
	}
	for b.Loop() {
		switch path {
		case "nest":
			gemmNest(false, false, m, n, k, 1, a, k, bb, n, 0, c, n, &kern, threads)
		case "grid":
			tr, tc := gridFor(&kern, m, n, threads)
			gemmGrid(false, false, m, n, k, 1, a, k, bb, n, 0, c, n, &kern, tr, tc)
		case "direct":
			gemmDirect(m, n, k, 1, a, k, bb, n, 0, c, n, &kern, threads)
		case "directrows", "directcols": // the loop order forced (directOrder)
			directOrder = map[string]int{"directrows": 1, "directcols": 2}[path]
			gemmDirect(m, n, k, 1, a, k, bb, n, 0, c, n, &kern, threads)
			directOrder = 0
		default:
			gemmStream(isa.Best, false, false, m, n, k, 1, a, k, bb, n, 0, c, n, &kern, threads)
		}
	}
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
