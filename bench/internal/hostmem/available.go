package hostmem

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Available returns the memory this process can still take, in bytes:
// /proc/meminfo's MemAvailable, or less where the process's cgroup (v2)
// sets a lower limit (memory.max − memory.current). ok is false where
// neither can be read (off Linux): nothing is known.
func Available() (bytes uint64, source string, ok bool) {
	if v, found := memInfo("/proc/meminfo", "MemAvailable"); found {
		bytes, source, ok = v, "MemAvailable in /proc/meminfo", true
	}
	if limit, found := cgroupRoom(); found && (!ok || limit < bytes) {
		bytes, source, ok = limit, "the cgroup's memory.max less memory.current", true
	}
	return bytes, source, ok
}

// memInfo reads one "Key:   N kB" line of a meminfo file.
func memInfo(path, key string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != key {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// cgroupRoom is the room left under this process's cgroup memory limit:
// memory.max − memory.current (v2), or memory.limit_in_bytes −
// memory.usage_in_bytes (v1), when it has a limit.
func cgroupRoom() (uint64, bool) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var dir, limit, usage string
		switch {
		case f[0] == "0" && f[1] == "":
			dir, limit, usage = filepath.Join("/sys/fs/cgroup", f[2]), "memory.max", "memory.current"
		case f[1] == "memory":
			dir, limit, usage = filepath.Join("/sys/fs/cgroup/memory", f[2]), "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		m, ok1 := readUint(filepath.Join(dir, limit)) // v2's "max": no limit
		c, ok2 := readUint(filepath.Join(dir, usage))
		if !ok1 || !ok2 {
			continue
		}
		if c >= m {
			return 0, true
		}
		return m - c, true
	}
	return 0, false
}

func readUint(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil
}
