package isa

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLevels(t *testing.T) {
	ls := Levels()
	if len(ls) == 0 || ls[0] != Generic || ls[len(ls)-1] != Best {
		t.Fatalf("Levels() = %v, Best %v", ls, Best)
	}
	for _, l := range []Level{Generic, AVX2, AVX512, 7} {
		if c := l.Clamp(); c > l || c > Best || (l <= Best && c != l) {
			t.Errorf("%v.Clamp() = %v (Best %v)", l, c, Best)
		}
		if l.Supported() != (l <= Best) {
			t.Errorf("%v.Supported() = %v", l, l.Supported())
		}
	}
	for l, want := range map[Level]string{Generic: "generic", AVX2: "avx2", AVX512: "avx512", 9: "level(9)"} {
		if got := l.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
	t.Logf("Best = %v, caches %+v", Best, Caches())
}

func TestCaches(t *testing.T) {
	dir := t.TempDir()
	write := func(index, level, typ, size string) {
		d := filepath.Join(dir, index)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"level": level, "type": typ, "size": size, "shared_cpu_list": "0," + level + "-8"} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("index0", "1", "Data", "48K")
	write("index1", "1", "Instruction", "32K")
	write("index2", "2", "Unified", "2048K")
	write("index3", "3", "Unified", "36M")
	if got, want := readCaches(dir), (CacheSizes{48 << 10, 2 << 20, 36 << 20, 8}); got != want { // L2: "0,2-8"
		t.Errorf("readCaches = %+v, want %+v", got, want)
	}
	if got := readCaches(filepath.Join(dir, "missing")); got != defaultCaches {
		t.Errorf("no sysfs: %+v, want the defaults %+v", got, defaultCaches)
	}
	for list, want := range map[string]int{"0": 1, "0-1": 2, "0,8": 2, "0-3,8-11": 8, "0-3,8,10-11": 7, "": 0, "x": 0, "3-1": 0} {
		if got := CountCPUList(list); got != want {
			t.Errorf("CountCPUList(%q) = %d, want %d", list, got, want)
		}
	}
	c := Caches()
	if c.L1 <= 0 || c.L2 <= 0 || c.L2SharedBy < 1 {
		t.Errorf("Caches() = %+v", c)
	}
}

// TestForBytes checks the switch from AVX512 to AVX2 above the crossover
// given, and that the other levels pass through.
func TestForBytes(t *testing.T) {
	for _, c := range []struct {
		l    Level
		n    int
		want Level
	}{
		{AVX512, 16 << 20, AVX512},
		{AVX512, 16<<20 + 1, AVX2},
		{AVX2, 16<<20 + 1, AVX2},
		{Generic, 16<<20 + 1, Generic},
		{Generic, 0, Generic},
	} {
		if got := c.l.ForBytes(c.n, 16<<20); got != c.want {
			t.Errorf("%v.ForBytes(%d) = %v, want %v", c.l, c.n, got, c.want)
		}
	}
	if got, want := ZMMKernel(16<<20), "AVX512 (AVX2 above 16 MiB)"; got != want {
		t.Errorf("ZMMKernel(16 MiB) = %q, want %q", got, want)
	}
	if got, want := ZMMKernel(1<<40), "AVX512"; got != want {
		t.Errorf("ZMMKernel(1 TiB) = %q, want %q", got, want)
	}
}

// TestImplFor: assembly from AVX2 up, AVX-512's where the level reaches
// it, and never above what the CPU runs or where there is no assembly.
func TestImplFor(t *testing.T) {
	for _, c := range []struct {
		l       Level
		haveAsm bool
		want    Impl
	}{
		{Generic, true, ImplGeneric},
		{AVX2, false, ImplGeneric},
		{AVX512, false, ImplGeneric},
		{AVX2, true, min(ImplAVX2, ImplFor(Best, true))},
		{AVX512, true, ImplFor(Best, true)},
	} {
		if got := ImplFor(c.l, c.haveAsm); got != c.want {
			t.Errorf("ImplFor(%v, %v) = %d, want %d", c.l, c.haveAsm, got, c.want)
		}
	}
	want := map[Level]Impl{Generic: ImplGeneric, AVX2: ImplAVX2, AVX512: ImplAVX512}[Best]
	if got := ImplFor(Best, true); got != want {
		t.Errorf("ImplFor(Best=%v) = %d, want %d", Best, got, want)
	}
}

// TestZMMRateRatio checks the probe's arithmetic on fake loops that spin
// for a time proportional to their work: a 512-bit round at the time of a
// 256-bit one (full rate) gives 2, at twice it (halves) 1.
func TestZMMRateRatio(t *testing.T) {
	for _, c := range []struct {
		zmmCost float64
		want    float64
	}{{1, 2}, {2, 1}} {
		loop := func(zmm bool, rounds int) {
			d := time.Duration(float64(rounds) * 50) // 50 ns a round
			if zmm {
				d = time.Duration(float64(d) * c.zmmCost)
			}
			for start := time.Now(); time.Since(start) < d; {
			}
		}
		if got := zmmRateRatio(loop); got < c.want*0.8 || got > c.want*1.25 {
			t.Errorf("zmm rounds %g× as long: ratio %.2f, want about %g", c.zmmCost, got, c.want)
		}
	}
}

// TestFullRateZMM runs the probe on this machine: the loops run (at the
// AVX512 level) and the answer is the same when asked again.
func TestFullRateZMM(t *testing.T) {
	first := FullRateZMM()
	if Best < AVX512 && first {
		t.Errorf("FullRateZMM() = true without AVX-512")
	}
	if Best >= AVX512 {
		t.Logf("512-bit over 256-bit FMA rate: %.2f", zmmRateRatio(fmaLoop))
	}
	if FullRateZMM() != first {
		t.Errorf("FullRateZMM changed between calls")
	}
}
