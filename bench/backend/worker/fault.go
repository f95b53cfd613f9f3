package worker

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// death says how the worker's process ended, once it has been waited for:
// "exited with status 3", "killed by SIGKILL (killed)", or, for peakbench's
// own workers, "died of SIGSEGV (segmentation violation)": the Go runtime
// catches a signal raised in a library's code, prints it and a goroutine
// dump on standard error, and exits with status 2, so the signal is read
// from what it printed (tail).
func (b *Backend) death() string {
	ps := b.cmd.ProcessState
	if ps == nil {
		return "closed its output"
	}
	if sig := b.stderr.signal(); sig != "" {
		return "died of " + sig
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by %s (%v)", unix.SignalName(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}

// doing names what the worker was doing when it failed: "running gemm f32
// 256x256x256", or "answering hello" for a request without a workload.
func doing(cmd, what string) string {
	if what == "" {
		return "answering " + cmd
	}
	verb := map[string]string{"prepare": "preparing", "run": "running", "output": "writing the output of", "free": "freeing"}[cmd]
	if verb == "" {
		verb = "answering " + cmd + " for"
	}
	return verb + " " + what
}

// timedOut is the watchdog's message (watchdog.go).
func (b *Backend) timedOut(cmd, what string, limit time.Duration) error {
	if what == "" {
		return fmt.Errorf("%s: worker did not answer %s within %v; stopped the worker%s", b.spec.Name, cmd, limit, b.stderr.last())
	}
	return fmt.Errorf("%s: %s timed out after %v; stopped the worker%s", b.spec.Name, what, limit, b.stderr.last())
}

// tail follows a worker's standard error for the messages of its faults:
// the last line it wrote before a crash, and the signal the Go runtime
// reports when the crash is a signal (peakbench's own workers). What a Go
// crash prints after its first line (the goroutine dump) is not kept: the
// line before it is the library's or the worker's own last word.
type tail struct {
	mu      sync.Mutex
	partial []byte // the line being written
	lastLn  string // the last complete non-blank line before a crash
	crashed bool   // a crash report has begun
	crash   string // its first line when it names no signal ("panic: …")
	sig     string // "SIGSEGV (segmentation violation)"
}

// maxLine bounds the line kept while it is written.
const maxLine = 4 << 10

var (
	// The Go runtime's reports of a signal: in Go code, or in a library
	// called through cgo ("[signal SIGSEGV: segmentation violation code=…]"),
	// and on a thread of its own ("SIGABRT: abort").
	goSignal  = regexp.MustCompile(`^\[signal (SIG[A-Z0-9]+): ([^\]]*?)(?: code=.*)?\]$|^(SIG[A-Z0-9]+): (.+)$`)
	goCrashes = []string{"fatal error: ", "panic: ", "runtime: "}
)

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = append(t.partial, p[:min(len(p), maxLine-len(t.partial))]...)
			break
		}
		t.partial = append(t.partial, p[:min(i, maxLine-len(t.partial))]...)
		t.line(strings.TrimSpace(string(t.partial)))
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (t *tail) line(l string) {
	if l == "" {
		return
	}
	if m := goSignal.FindStringSubmatch(l); m != nil && t.sig == "" {
		name, desc := m[1], m[2]
		if name == "" {
			name, desc = m[3], m[4]
		}
		t.sig, t.crashed = fmt.Sprintf("%s (%s)", name, desc), true
		return
	}
	if t.crashed {
		return
	}
	for _, c := range goCrashes {
		if strings.HasPrefix(l, c) {
			t.crashed, t.crash = true, l
			return
		}
	}
	t.lastLn = l
}

// signal returns the signal a Go crash reported, or "".
func (t *tail) signal() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sig
}

// last returns ": " and the last line worth quoting — a crash's first line
// when it names no signal, else the last line before it — or "".
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.lastLn
	if t.crash != "" && t.sig == "" {
		l = t.crash
	}
	if p := strings.TrimSpace(string(t.partial)); p != "" && !t.crashed {
		l = p
	}
	if l == "" {
		return ""
	}
	return ": " + clip([]byte(l), 200)
}
