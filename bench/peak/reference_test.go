package peak

import (
	"strings"
	"testing"
)

func TestStreamTarget(t *testing.T) {
	m := DetectMachine()
	for _, pat := range patterns {
		for _, threads := range []int{1, 2} {
			st, err := NewStreamTarget(m, pat, 48<<10, threads, "")
			if err != nil {
				t.Fatal(err)
			}
			if b := st.Bytes(); b > 48<<10 || b < 40<<10 {
				t.Errorf("%s ×%d: %g bytes per pass, want about 48 KiB", pat, threads, b)
			}
			if d := st.Describe(); !strings.HasPrefix(d, pat) || !strings.Contains(d, "KiB") {
				t.Errorf("%s ×%d: Describe() = %q", pat, threads, d)
			}
			for _, iters := range []int{1, 100} {
				if d, err := st.Run(iters); err != nil || d <= 0 {
					t.Errorf("%s ×%d: Run(%d) = %v, %v", pat, threads, iters, d, err)
				}
			}
			if _, err := st.Run(0); err == nil {
				t.Errorf("%s: Run(0) gave no error", pat)
			}
			// The kernel ran over the arrays: a triad's or update's a, a
			// copy's a equal to b, a read's total in a[0].
			x := st.arrays[threads-1]
			switch pat {
			case PatternCopy, PatternCopyNT:
				if x[0][st.n-1] != x[1][st.n-1] {
					t.Errorf("copy: a[n-1] = %v, b[n-1] = %v", x[0][st.n-1], x[1][st.n-1])
				}
			case PatternWiden, PatternWidenNT:
				if x[0][st.n-1] != x[1][(st.n-1)/32*8+(st.n-1)%8] {
					t.Errorf("widen-nt: a[n-1] = %v, not its element of b", x[0][st.n-1])
				}
			case PatternRead:
				if want := 100 * readF64Generic(x[1]); x[0][0] < 0.99*want || x[0][0] > 1.01*want {
					t.Errorf("read: total %v, want about %v", x[0][0], want)
				}
			}
			st.Close()
			st.Close() // twice is harmless
		}
	}
	if _, err := NewStreamTarget(m, "scale", 4096, 1, ""); err == nil {
		t.Error("unknown pattern accepted")
	}
}

// TestStreamTargetMix: a mix of two patterns (PatternFor of quantize) is
// referenced by the nearer one's stream.
func TestStreamTargetMix(t *testing.T) {
	st, err := NewStreamTarget(DetectMachine(), MixPattern(PatternTriad, PatternRead), 48<<10, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if d := st.Describe(); !strings.HasPrefix(d, PatternTriad) {
		t.Errorf("Describe() = %q, want the triad's stream", d)
	}
}

// TestStreamTargetKernel: the reference streams with the kernel a peak
// names, where the pattern has it, else with its plain one.
func TestStreamTargetKernel(t *testing.T) {
	m := DetectMachine()
	plain := streamKernelFor(PatternRead, m.SIMDBits)
	for _, k := range streamKernelsFor(PatternRead, m.SIMDBits) {
		st, err := NewStreamTarget(m, PatternRead, 48<<10, 1, k.name)
		if err != nil {
			t.Fatal(err)
		}
		if st.kernel.name != k.name || !strings.Contains(st.Describe(), k.name) {
			t.Errorf("kernel %q: the target streams with %q (%s)", k.name, st.kernel.name, st.Describe())
		}
		if _, err := st.Run(3); err != nil {
			t.Error(err)
		}
		st.Close()
	}
	for _, other := range []string{"", "triad-avx512 (4 zmm per iteration, VFMADD231PD)", "no such kernel"} {
		st, err := NewStreamTarget(m, PatternRead, 48<<10, 1, other)
		if err != nil {
			t.Fatal(err)
		}
		if st.kernel.name != plain.name {
			t.Errorf("kernel %q: the target streams with %q, want the plain %q", other, st.kernel.name, plain.name)
		}
		st.Close()
	}
}
