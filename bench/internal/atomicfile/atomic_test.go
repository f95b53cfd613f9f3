package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeText(s string) func(f *os.File) error {
	return func(f *os.File) error { _, err := io.WriteString(f, s); return err }
}

func TestWriteFileAtomicKeepsModeAndFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	// A file it replaces keeps its mode; a new one gets 0644.
	kept := filepath.Join(dir, "kept.json")
	if err := os.WriteFile(kept, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o640)
	if err := WriteFileAtomic(kept, writeText("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v, want 0640", fi.Mode().Perm())
	}
	fresh := filepath.Join(dir, "fresh.json")
	if err := WriteFileAtomic(fresh, writeText("x")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file has mode %v, want 0644", fi.Mode().Perm())
	}
	// A link (relative, and through a second link) stays a link; its target
	// gets the content and keeps its mode.
	os.Symlink("kept.json", filepath.Join(dir, "link1"))
	os.Symlink(filepath.Join(dir, "link1"), filepath.Join(dir, "link2"))
	if err := WriteFileAtomic(filepath.Join(dir, "link2"), writeText("via link")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"link1", "link2"} {
		if li, err := os.Lstat(filepath.Join(dir, l)); err != nil || li.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	if b, _ := os.ReadFile(kept); string(b) != "via link" {
		t.Errorf("target holds %q", b)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o640 {
		t.Errorf("target's mode %v, want 0640", fi.Mode().Perm())
	}
	// A dangling link: the target is created.
	os.Symlink("later.json", filepath.Join(dir, "dangling"))
	if err := CheckWritable(filepath.Join(dir, "dangling")); err != nil {
		t.Error(err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "dangling"), writeText("later")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "later.json")); string(b) != "later" {
		t.Errorf("dangling link's target holds %q", b)
	}
	if li, _ := os.Lstat(filepath.Join(dir, "dangling")); li.Mode()&fs.ModeSymlink == 0 {
		t.Error("the dangling link was replaced")
	}
	// A loop of links is an error, not a hang.
	os.Symlink("loopB", filepath.Join(dir, "loopA"))
	os.Symlink("loopA", filepath.Join(dir, "loopB"))
	if err := WriteFileAtomic(filepath.Join(dir, "loopA"), writeText("x")); err == nil {
		t.Error("a loop of links was written")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestWriteFileAtomicRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []func(string) error{CheckWritable, func(p string) error { return WriteFileAtomic(p, writeText("x")) }} {
		err := f(dir)
		if err == nil || !strings.Contains(err.Error(), "directory") {
			t.Errorf("directory: %v", err)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("the directory is gone: %v", err)
	}
	if err := CheckWritable(filepath.Join(dir, "missing", "x.json")); err == nil {
		t.Error("a file in a missing folder passed the check")
	}
}

// TestWriteFileAtomicWritesDevicesAndPipes: a device or a named pipe is
// written in place, never replaced by a regular file.
func TestWriteFileAtomicWritesDevicesAndPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	if err := CheckWritable(fifo); err != nil { // no reader yet: fine
		t.Error(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteFileAtomic(fifo, writeText("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
	// /dev/null, named directly and through a link.
	null := filepath.Join(dir, "null")
	os.Symlink("/dev/null", null)
	for _, p := range []string{"/dev/null", null} {
		if err := CheckWritable(p); err != nil {
			t.Error(err)
		}
		if err := WriteFileAtomic(p, writeText("gone")); err != nil {
			t.Error(err)
		}
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
	if li, _ := os.Lstat(null); li.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link to /dev/null was replaced")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A failed write leaves the old file and no temporary behind.
	err := WriteFileAtomic(path, func(f *os.File) error {
		f.WriteString("half")
		return errors.New("disk on fire")
	})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file is %q after a failed write", b)
	}
	if err := WriteFileAtomic(path, func(f *os.File) error { _, err := f.WriteString("new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("file is %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in the folder, want 1", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such", "dir.json"), func(*os.File) error { return nil }); err == nil {
		t.Error("write into a missing folder succeeded")
	}
	if err := CheckWritable(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("CheckWritable accepted a missing folder")
	}
}

// TestNoFileBeside: a file that exists in a folder taking no new file
// (/proc/self) is refused naming the folder, not as if it were missing;
// a folder that does not exist is named.
func TestNoFileBeside(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none", "out.json")
	cases := []struct{ path, want string }{
		{missing, "cannot write " + missing + ": cannot create a file in " + filepath.Dir(missing) + ": no such file or directory"},
	}
	if _, err := os.Stat("/proc/self/status"); err == nil {
		cases = append(cases, struct{ path, want string }{"/proc/self/status", "cannot write /proc/self/status: it is replaced by a new file made beside it, and /proc/self takes none"})
	}
	for _, c := range cases {
		for name, err := range map[string]error{
			"CheckWritable":   CheckWritable(c.path),
			"WriteFileAtomic": WriteFileAtomic(c.path, func(*os.File) error { return nil }),
		} {
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%s(%s): %v, want %q", name, c.path, err, c.want)
			}
		}
	}
}
