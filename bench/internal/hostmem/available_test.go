package hostmem

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMemInfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(path, []byte("MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   20480000 kB\n"), 0o644)
	if v, ok := memInfo(path, "MemAvailable"); !ok || v != 20480000*1024 {
		t.Errorf("MemAvailable = %d, %v", v, ok)
	}
	if _, ok := memInfo(path, "SwapFree"); ok {
		t.Error("found a missing key")
	}
	if _, ok := memInfo(filepath.Join(t.TempDir(), "none"), "MemAvailable"); ok {
		t.Error("read a missing file")
	}
	if v, _, ok := Available(); ok && v == 0 {
		t.Log("no memory available here, or a cgroup at its limit")
	}
}

func TestCheckEnv(t *testing.T) {
	for _, v := range []string{"", "on", "off"} {
		if err := CheckEnv(v, true); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	if err := CheckEnv("anything", false); err != nil {
		t.Errorf("unset: %v", err)
	}
	for _, v := range []string{"of", "OFF", "0", "no"} {
		if err := CheckEnv(v, true); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}
