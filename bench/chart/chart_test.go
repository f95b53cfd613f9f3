package chart

import (
	"bytes"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/peakbench/peakbench/bench/peak"
	"github.com/peakbench/peakbench/bench/result"
	"github.com/peakbench/peakbench/bench/result/resulttest"
)

func TestRooflineImages(t *testing.T) {
	var svg, pngBuf bytes.Buffer
	if err := WriteRoofline(&svg, resulttest.Fixture(), "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "f32 peak 195 GFLOP/s", "f32 FMA kernel 190 GFLOP/s", "L2 read 160 GB/s", "DRAM read 31.0 GB/s",
		">go<", ">gemm<", ">axpy<", "Liberation Sans',Arimo,Arial"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg.String(), ">gonum<") {
		t.Error("the failed gonum result is charted")
	}
	if err := WriteRoofline(&pngBuf, resulttest.Fixture(), "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&pngBuf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 10*pngDPI || b.Dy() != int(6.5*pngDPI) {
		t.Errorf("PNG is %v", b)
	}
	if err := WriteRoofline(&svg, resulttest.Fixture(), "gif"); err == nil || !strings.Contains(err.Error(), "svg, png") {
		t.Errorf("gif: %v", err)
	}
	empty := resulttest.Fixture()
	empty.Results = empty.Results[2:] // only failures
	if err := WriteRoofline(&svg, empty, "svg"); err == nil {
		t.Error("charted a run without a correct result")
	}
}

// A GPU's results sit on their own roofline: with the ceilings its results
// carry when run.Peaks has none for it, with none when they carry none.
func TestRooflinePerDevice(t *testing.T) {
	run := resulttest.Fixture()
	gpu := run.Results[0]
	gpu.Backend, gpu.Device, gpu.GFLOPS = "cublas", "cuda:0", 9000
	gpu.Peak = result.PeakRef{ComputeTheoreticalGFLOPS: 19500, ComputeEmpiricalGFLOPS: 18000, BandwidthGBPS: 1500, BandwidthLevel: "HBM"}
	bare := gpu
	bare.Device, bare.Peak = "rocm:0", result.PeakRef{}
	run.Results = append(run.Results, gpu, bare)
	gs := chartGroups(run)
	if len(gs) != 3 || gs[0].Device != "cpu" || gs[1].Device != "cuda:0" || gs[2].Device != "rocm:0" {
		t.Fatalf("groups %+v", gs)
	}
	cpu := deviceCeilings(run, gs[0])
	if cpu.FromResults || len(cpu.Compute) != 2 || len(cpu.Bandwidth) != 2 || cpu.Bandwidth[0].Level != "L2" {
		t.Errorf("cpu ceilings %+v", cpu)
	}
	c := deviceCeilings(run, gs[1])
	if !c.FromResults || c.maxCompute() != 19500 || len(c.Bandwidth) != 1 || c.Bandwidth[0].Level != "HBM" {
		t.Errorf("gpu ceilings %+v", c)
	}
	if c := deviceCeilings(run, gs[2]); !c.empty() {
		t.Errorf("bare device ceilings %+v", c)
	}
	var svg bytes.Buffer
	if err := WriteRoofline(&svg, run, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Roofline: cuda:0, 2 threads", "HBM 1500 GB/s", "f32 peak 19500 GFLOP/s", "rocm:0, 2 threads (no peaks known for this device)"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// A dtype several units run gets each unit's roof, drawn only where a
// result ran on that unit: bf16 on the FMAs and on VDPBF16PS are two
// peaks, and merging them by dtype once lifted the f32 roof to the
// dot-product unit's twice higher one.
func TestRooflineRoofsPerUnit(t *testing.T) {
	run := resulttest.Fixture()
	f32 := run.Peaks.Compute[0]
	bf16FMA, bf16Dot := f32, f32
	bf16FMA.DType = "bf16"
	bf16Dot.DType, bf16Dot.Unit, bf16Dot.TheoreticalGFLOPS, bf16Dot.EmpiricalGFLOPS = "bf16", peak.UnitAVX512BF16, 390.4, 350
	vnni := bf16Dot
	vnni.DType, vnni.Unit, vnni.TheoreticalGFLOPS, vnni.EmpiricalGFLOPS = "i8", peak.UnitAVX512VNNI, 780.8, 700
	run.Peaks.Compute = append(run.Peaks.Compute, bf16FMA, bf16Dot, vnni)

	roofs := func(run *result.Run) []string {
		var s []string
		for _, cc := range deviceCeilings(run, chartGroups(run)[0]).Compute {
			s = append(s, cc.label())
		}
		return s
	}
	want := []string{"f32/bf16 peak 195 GFLOP/s", "f32/bf16 FMA kernel 190 GFLOP/s"}
	if got := roofs(run); !slices.Equal(got, want) {
		t.Errorf("f32 results only: roofs %q, want %q", got, want)
	}

	bf16 := run.Results[0] // the f32 GEMM, now in bf16 on VDPBF16PS
	bf16.DType = "bf16"
	bf16.Ceilings(bf16Dot, run.Peaks.Bandwidth[0])
	run.Results = append(run.Results, bf16)
	want = []string{"bf16 avx512-bf16 peak 390 GFLOP/s", "bf16 avx512-bf16 kernel 350 GFLOP/s", "f32/bf16 peak 195 GFLOP/s", "f32/bf16 FMA kernel 190 GFLOP/s"}
	if got := roofs(run); !slices.Equal(got, want) {
		t.Errorf("with a bf16 result on avx512-bf16: roofs %q, want %q", got, want)
	}
}
