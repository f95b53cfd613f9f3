package result

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLoadReadsRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file (a directory)") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("/dev/zero: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if syscall.Mkfifo(fifo, 0o600) == nil { // must not wait for a writer
		if _, err := Load(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("fifo: %v", err)
		}
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat(" ", 100)), 0o644)
	if _, err := readRegular(big, 99); err == nil || !strings.Contains(err.Error(), "more than the 99") {
		t.Errorf("over the limit: %v", err)
	}
	if b, err := readRegular(big, 100); err != nil || len(b) != 100 {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
}
