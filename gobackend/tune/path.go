package tune

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
)

// DefaultPath is where the tune file of machine m lives: the user's cache
// folder, peakbench/tune-VENDOR-FAMILY-MODEL-STEPPING-HASH.json, HASH of the
// whole machine, so that two machines with one CPU but other core counts or
// caches (VMs of one host) keep a file each.
func DefaultPath(m Machine) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder (%v): name a tune file with -tune-file", err)
	}
	return filepath.Join(dir, "peakbench", FileName(m)), nil
}

// FileName is DefaultPath's file name.
func FileName(m Machine) string {
	sig, _ := json.Marshal(m) // plain data: cannot fail
	h := fnv.New32a()
	h.Write(sig)
	vendor := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, m.Vendor)
	return fmt.Sprintf("tune-%s-%d-%d-%d-%08x.json", vendor, m.Family, m.Model, m.Stepping, h.Sum32())
}
