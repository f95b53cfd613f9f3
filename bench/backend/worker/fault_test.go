package worker

import (
	"testing"
	"time"
)

// TestTail reads how a worker died from what it wrote on standard error,
// written in pieces as a pipe delivers it.
func TestTail(t *testing.T) {
	for _, c := range []struct {
		name, stderr, sig, last string
	}{
		{"python", "Traceback (most recent call last):\n  File \"w.py\", line 3\nRuntimeError: out of memory\n", "", ": RuntimeError: out of memory"},
		{"cgo segfault", "fakeblas: segfault on call 1\nfatal error: unexpected signal during runtime execution\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x7f2c]\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x5c0 [syscall]:\nruntime.cgocall(0x4f, 0xc0)\n",
			"SIGSEGV (segmentation violation)", ": fakeblas: segfault on call 1"},
		{"cgo abort", "fakeblas: abort on call 1\nSIGABRT: abort\nPC=0x7f5e m=0 sigcode=18446744073709551610\nsignal arrived during cgo execution\n\ngoroutine 1 gp=0xc0 [syscall]:\n",
			"SIGABRT (abort)", ": fakeblas: abort on call 1"},
		{"go panic", "served 3 requests\npanic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n", "", ": panic: runtime error: index out of range [3] with length 3"},
		{"no newline", "last words", "", ": last words"},
		{"silent", "", "", ""},
	} {
		var tl tail
		for i := 0; i < len(c.stderr); i += 7 {
			if n, err := tl.Write([]byte(c.stderr[i:min(i+7, len(c.stderr))])); err != nil || n != min(7, len(c.stderr)-i) {
				t.Fatalf("%s: Write = %d, %v", c.name, n, err)
			}
		}
		if got := tl.signal(); got != c.sig {
			t.Errorf("%s: signal %q, want %q", c.name, got, c.sig)
		}
		if got := tl.last(); got != c.last {
			t.Errorf("%s: last %q, want %q", c.name, got, c.last)
		}
	}
}

// TestRunLimit: a run's limit is the base timeout, or 20× its expected
// time when longer: by the slowest iteration measured, else by the
// harness's estimate.
func TestRunLimit(t *testing.T) {
	b := &Backend{spec: Spec{Timeout: 30 * time.Second}}
	for _, c := range []struct {
		estimate, perIter time.Duration
		iters             int
		want              time.Duration
	}{
		{0, 0, 1, 30 * time.Second},
		{time.Millisecond, 0, 100, 30 * time.Second},
		{10 * time.Second, 0, 1, 200 * time.Second},
		{10 * time.Second, time.Second, 3, 60 * time.Second},
		{0, 2 * time.Second, 1, 40 * time.Second},
	} {
		k := &kernel{b: b, estimate: c.estimate, perIter: c.perIter}
		if got := k.runLimit(c.iters); got != c.want {
			t.Errorf("estimate %v, per iteration %v, %d iterations: limit %v, want %v", c.estimate, c.perIter, c.iters, got, c.want)
		}
	}
}
