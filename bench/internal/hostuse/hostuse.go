// Package hostuse reads what the host's CPUs did over a stretch of time:
// the CPU time of this process and of its child processes (the workers
// that run framework and isolated library calls), and the time the
// hypervisor stole from the guest. Over a backend's samples the first,
// divided by the wall time, is the number of threads the backend kept
// busy; the second says whether the host, not the library, made the
// samples noisy.
package hostuse

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Snapshot is one reading.
type Snapshot struct {
	Wall time.Time
	// CPU is the user and system time of this process and its live
	// children; ok is false when it could not be read.
	CPU   time.Duration
	cpuOK bool
	// Steal, Busy and Total are the machine's clock ticks (all CPUs,
	// /proc/stat): stolen by the hypervisor, spent running anything, and
	// in all; zero where /proc/stat is missing.
	Steal, Busy, Total uint64
}

// ticksPerSecond is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture peakbench builds for.
const ticksPerSecond = 100

// Read takes a snapshot.
func Read() Snapshot {
	s := Snapshot{Wall: time.Now()}
	s.CPU, s.cpuOK = processCPU()
	s.Steal, s.Busy, s.Total = statTicks()
	return s
}

// Use accumulates the stretches between pairs of snapshots.
type Use struct {
	Wall, CPU          time.Duration
	Steal, Busy, Total uint64
	cpuMissing         bool
}

// Add counts the stretch from a to b.
func (u *Use) Add(a, b Snapshot) {
	u.Wall += b.Wall.Sub(a.Wall)
	if a.cpuOK && b.cpuOK && b.CPU >= a.CPU {
		u.CPU += b.CPU - a.CPU
	} else {
		u.cpuMissing = true
	}
	if b.Total > a.Total && b.Steal >= a.Steal && b.Busy >= a.Busy {
		u.Steal += b.Steal - a.Steal
		u.Busy += b.Busy - a.Busy
		u.Total += b.Total - a.Total
	}
}

// BusyThreads is the CPU time over the wall time: how many threads were
// busy on average; ok is false when a CPU reading failed.
func (u Use) BusyThreads() (float64, bool) {
	if u.cpuMissing || u.Wall <= 0 {
		return 0, false
	}
	return u.CPU.Seconds() / u.Wall.Seconds(), true
}

// StealShare is the share of all CPUs' time the hypervisor took; ok is
// false when /proc/stat gave nothing (or no tick passed).
func (u Use) StealShare() (float64, bool) {
	if u.Total == 0 {
		return 0, false
	}
	return float64(u.Steal) / float64(u.Total), true
}

// OtherThreads is the CPUs other processes of the machine kept busy on
// average (the machine's busy time less this process's and its children's,
// over the wall time); ok is false when either is missing.
func (u Use) OtherThreads() (float64, bool) {
	if u.cpuMissing || u.Wall <= 0 || u.Total == 0 {
		return 0, false
	}
	busy := float64(u.Busy) / ticksPerSecond
	return max(busy-u.CPU.Seconds(), 0) / u.Wall.Seconds(), true
}

// processCPU is this process's CPU time (getrusage, every thread) plus
// that of its live children: the sum of their threads' run time from
// /proc/PID/task/*/schedstat, which counts nanoseconds, where the ticks of
// /proc/PID/stat would quantise a 20 ms sample to half its length.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	for _, pid := range children() {
		total += threadsRunTime(pid)
	}
	return total, true
}

// children lists this process's live child processes: each thread's
// /proc/self/task/TID/children names those it started.
func children() []string {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var out []string
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// threadsRunTime sums the run time of every thread of process pid.
func threadsRunTime(pid string) time.Duration {
	tasks, _ := filepath.Glob("/proc/" + pid + "/task/*")
	var d time.Duration
	for _, task := range tasks {
		d += taskRunTime(task)
	}
	return d
}

// taskRunTime is the run time of the thread whose /proc directory is
// task: the first field of its schedstat (0 where it ended).
func taskRunTime(task string) time.Duration {
	b, err := os.ReadFile(task + "/schedstat")
	if err != nil {
		return 0
	}
	i := bytes.IndexByte(b, ' ')
	if i <= 0 {
		return 0
	}
	v, _ := strconv.ParseInt(string(b[:i]), 10, 64)
	return time.Duration(v)
}

// statTicks reads the steal, busy and total ticks of all CPUs from the
// first line of /proc/stat: "cpu user nice system idle iowait irq softirq
// steal guest guest_nice" (guest time is already inside user); busy is
// user, nice, system, irq and softirq.
func statTicks() (steal, busy, total uint64) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, 0
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0, 0
	}
	for i, s := range fields[1:9] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, 0
		}
		total += v
		switch i {
		case 0, 1, 2, 5, 6: // user, nice, system, irq, softirq
			busy += v
		case 7:
			steal = v
		}
	}
	return steal, busy, total
}
