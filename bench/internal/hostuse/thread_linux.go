package hostuse

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// othersCPU is the run time of each thread of this process but the
// calling one, by thread ID, and of each live child process, by its
// negated process ID. The caller is locked to its thread.
//
// A thread's time is read from its CPU clock, which the kernel brings up
// to date when read, also for a thread running on another CPU at the
// time. getrusage and /proc count such a thread's time only at that
// CPU's timer tick: at 250 Hz (4 ms), 5% of 500 µs windows read a
// spinning thread as idle (the Zen 5 Turin VM, 1500 windows), and
// WaitQuiet, given two such windows in a row, called it quiet.
//
// A child's threads have no clock this process may read, and their
// schedstat run time too moves only at the tick. So runnable also says
// whether any child thread is running or waiting to run at the reading
// (state R): a child spinning through a window that no tick ended still
// reads busy (half the 500 µs window pairs read idle otherwise at 250 Hz).
func othersCPU() (run map[int]time.Duration, runnable, ok bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false, false
	}
	me := unix.Gettid()
	run = make(map[int]time.Duration, len(tasks))
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil || tid == me {
			continue
		}
		var ts unix.Timespec
		// The clock of thread tid, counting its scheduled run time:
		// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of the kernel's
		// posix-timers.h. A thread that ended since the listing has none.
		if unix.ClockGettime(int32(^tid<<3|6), &ts) == nil {
			run[tid] = time.Duration(ts.Nano())
		}
	}
	for _, pid := range children() {
		n, err := strconv.Atoi(pid)
		if err != nil {
			continue
		}
		tasks, _ := filepath.Glob("/proc/" + pid + "/task/*")
		for _, task := range tasks {
			run[-n] += taskRunTime(task)
			runnable = runnable || taskRunnable(task)
		}
	}
	return run, runnable, true
}

// taskRunnable says whether the thread whose /proc directory is task is
// running or waiting for a CPU: the state after the command name in its
// stat is R.
func taskRunnable(task string) bool {
	b, err := os.ReadFile(task + "/stat")
	if err != nil {
		return false
	}
	// The command name may hold spaces and parentheses; the last ") "
	// ends it.
	i := bytes.LastIndex(b, []byte(") "))
	return i >= 0 && i+2 < len(b) && b[i+2] == 'R'
}
