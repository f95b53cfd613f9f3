package procmem

import (
	"bytes"
	"os"
	"strconv"
)

// procPath is /proc/self/FILE or /proc/PID/FILE.
func procPath(pid int, file string) string {
	if pid == 0 {
		return "/proc/self/" + file
	}
	return "/proc/" + strconv.Itoa(pid) + "/" + file
}

// readStatus reads one "Vm…:   123 kB" field of /proc/PID/status, in bytes.
func readStatus(pid int, field string) (int64, bool) {
	data, err := os.ReadFile(procPath(pid, "status"))
	if err != nil {
		return 0, false
	}
	key := []byte(field + ":")
	for line := range bytes.Lines(data) {
		rest, found := bytes.CutPrefix(line, key)
		if !found {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// resetHWM sets the process's resident high-water mark to its resident
// set ("5" to clear_refs, Linux 4.0 and later).
func resetHWM(pid int) error {
	f, err := os.OpenFile(procPath(pid, "clear_refs"), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte("5"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
